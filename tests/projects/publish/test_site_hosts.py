"""A published site on a host of its own: `<name>.<sites host>` and a
domain of its owner's, each an origin of the site's own, where a password can
keep it; `/s/<name>/` on the shared sites host never serves a kept site."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client, override_settings

from projects.generations import generation
from projects.lifecycle import project_trash
from projects.models import Project, Site
from projects.publish import live_sites, passwords
from projects.publish.services import site_unpublish, site_version_make_live
from projects.views.published import PASS_COOKIE, SECURE_PASS_COOKIE
from tests.conftest import SITES_HOST
from tests.fakes.dns_server import FakeDNS
from tests.projects.publish.test_domain_proofs import prove
from tests.projects.publish.test_publish import page, published, site_project, write
from tests.servers import server_start, shared_settings

__all__ = ["site_project"]  # a fixture, used by name

HOST = "lisbon-bakery." + SITES_HOST
SECRET = "correct horse battery"


@pytest.fixture(autouse=True)
def _no_guesses_counted():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def visitor() -> Client:
    return Client(HTTP_HOST=HOST)


def protect(client: Client, project: Project, password: str = SECRET) -> str:
    return client.post(
        f"/projects/{project.pk}/publish/password/", {"password": password}
    ).content.decode()


def set_domain(client: Client, project: Project, domain: str) -> str:
    return client.post(
        f"/projects/{project.pk}/publish/domain/", {"domain": domain}
    ).content.decode()


def test_a_site_is_served_at_its_own_host_as_a_static_host_serves_it(
    user_client: Client, visitor: Client, site_project: Project
) -> None:
    published(site_project)
    home = visitor.get("/")
    assert home.status_code == 200
    assert home.content.decode() == page("<h1>Fresh bread</h1><a href='about'>About</a>")
    # Its own origin: no sandbox (its scripts keep their storage), nothing of the app's.
    assert "Content-Security-Policy" not in home
    assert home["X-Content-Type-Options"] == "nosniff"
    assert visitor.get("/about").content.decode() == page("<h1>About us</h1>")
    assert visitor.get("/blog")["Location"] == "/blog/"
    assert visitor.get("/accounts/login/").status_code == 404  # no page of the app
    assert visitor.post("/").status_code == 405
    # The app's session is neither read nor answered with a cookie.
    user_client.get("/")
    answer = user_client.get("/", HTTP_HOST=HOST)
    assert answer.wsgi_request.COOKIES == {}
    assert not answer.cookies


def test_a_name_no_site_has_says_so_and_a_reserved_one_is_no_host(site_project: Project) -> None:
    published(site_project)
    nobody = Client(HTTP_HOST="nobody-here." + SITES_HOST).get("/")
    assert nobody.status_code == 404
    assert b"No site is published at this address" in nobody.content
    assert Client(HTTP_HOST="admin." + SITES_HOST).get("/").status_code == 400
    assert Client(HTTP_HOST="a.b." + SITES_HOST).get("/").status_code == 400


def test_the_workspace_shows_the_sites_own_host(user_client: Client, site_project: Project):
    said = user_client.post(
        f"/projects/{site_project.pk}/publish/go/", {"name": "lisbon-bakery", "anyway": "1"}
    ).content.decode()
    assert f'href="http://{HOST}/"' in said


# --- a password --------------------------------------------------------------------


def test_a_password_keeps_the_site_until_a_visitor_gives_it(
    user_client: Client, visitor: Client, site_project: Project
) -> None:
    published(site_project)
    assert "Visitors now need the password." in protect(user_client, site_project)
    stored = Site.objects.get(name="lisbon-bakery").password
    assert SECRET not in stored
    assert stored

    for path in ("/", "/about", "/styles.css", "/missing"):
        gate = visitor.get(path)
        assert gate.status_code == 403, path
        assert b"kept by a password" in gate.content
        assert b"Fresh bread" not in gate.content
        assert b"#333" not in gate.content
        assert gate["Cache-Control"] == "no-store"
    wrong = visitor.post("/about", {"password": "not it at all"})
    assert wrong.status_code == 403
    assert b"That is not the password." in wrong.content

    opened = visitor.post("/about?x=1", {"password": SECRET})
    assert opened.status_code == 303
    assert opened["Location"] == "/about?x=1"
    cookie = opened.cookies[PASS_COOKIE]
    assert cookie["httponly"]
    assert cookie["samesite"] == "Lax"
    assert not cookie["domain"]  # this host alone: no other site sees it
    page_now = visitor.get("/about")
    assert page_now.content.decode() == page("<h1>About us</h1>")
    assert page_now["Cache-Control"] == "private, no-cache"
    assert "Cookie" in page_now["Vary"]


def test_the_shared_address_of_a_kept_site_sends_visitors_to_its_own_host(
    user_client: Client, sites_client: Client, site_project: Project
) -> None:
    published(site_project)
    protect(user_client, site_project)
    answer = sites_client.get("/s/lisbon-bakery/blog/?a=1")
    assert answer.status_code == 302
    assert answer["Location"] == f"http://{HOST}/blog/?a=1"
    assert b"Blog" not in answer.content


def test_a_new_password_ends_every_pass_and_public_opens_the_site(
    user_client: Client, visitor: Client, site_project: Project
) -> None:
    published(site_project)
    protect(user_client, site_project)
    visitor.post("/", {"password": SECRET})
    assert visitor.get("/").status_code == 200
    protect(user_client, site_project, "another password")
    assert visitor.get("/").status_code == 403
    user_client.post(f"/projects/{site_project.pk}/publish/password/", {"public": "1"})
    assert Client(HTTP_HOST=HOST).get("/").status_code == 200


def test_one_sites_pass_opens_no_other_site(
    user: User, user_client: Client, visitor: Client, site_project: Project
) -> None:
    published(site_project)
    protect(user_client, site_project)
    other = Project.objects.create(owner=user, name="Other")
    write(other, "/index.html", page("<h1>Other</h1>"))
    published(other, "other-site")
    protect(user_client, other)
    pass_cookie = visitor.post("/", {"password": SECRET}).cookies[PASS_COOKIE].value
    stranger = Client(HTTP_HOST="other-site." + SITES_HOST)
    stranger.cookies[PASS_COOKIE] = pass_cookie
    assert stranger.get("/").status_code == 403
    stranger.cookies[PASS_COOKIE] = pass_cookie[:-2] + "xx"
    assert stranger.get("/").status_code == 403


def test_wrong_guesses_are_throttled_even_when_the_next_is_right(
    user_client: Client, site_project: Project
) -> None:
    published(site_project)
    protect(user_client, site_project)
    guesser = Client(HTTP_HOST=HOST, REMOTE_ADDR="203.0.113.9")
    for _ in range(passwords.TRIES):
        assert guesser.post("/", {"password": "guess guess"}).status_code == 403
    throttled = guesser.post("/", {"password": SECRET})
    assert throttled.status_code == 429
    assert b"Too many wrong passwords" in throttled.content
    assert not throttled.cookies
    # Someone else, from another address, still gets in.
    neighbour = Client(HTTP_HOST=HOST, REMOTE_ADDR="198.51.100.7")
    assert neighbour.post("/", {"password": SECRET}).status_code == 303


def test_a_password_is_refused_plainly_when_too_short(
    user_client: Client, site_project: Project
) -> None:
    published(site_project)
    said = protect(user_client, site_project, "short")
    assert "at least 8 characters" in said
    assert not Site.objects.get(name="lisbon-bakery").protected


# --- a domain of the owner's ---------------------------------------------------------


def test_a_site_answers_at_a_domain_its_owner_names(
    user_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    published(site_project)
    said = prove(user_client, site_project, "https://Shop.Example.org/", dns)
    assert "the site answers at shop.example.org." in said
    shop = Client(HTTP_HOST="shop.example.org")
    assert shop.get("/about").content.decode() == page("<h1>About us</h1>")
    assert Client(HTTP_HOST="shop.example.org:8443").get("/").status_code == 200
    # A host no site names is still refused, as Django refuses it.
    assert Client(HTTP_HOST="elsewhere.example.org").get("/").status_code == 400
    assert "Its own domain is removed." in set_domain(user_client, site_project, "")
    assert shop.get("/").status_code == 400


@pytest.mark.parametrize(
    ("domain", "said"),
    [
        ("testserver.com:80/x", "is not a domain"),
        ("localhost", "is not a domain"),
        ("10.0.0.1", "not an IP address"),
        ("exa mple.com", "is not a domain"),
        ("sites.testserver", "where this server names its sites"),
        ("x.sites.testserver", "where this server names its sites"),
    ],
)
def test_a_domain_that_cannot_be_the_sites_is_refused_in_words(
    user_client: Client, site_project: Project, domain: str, said: str
) -> None:
    published(site_project)
    assert said in set_domain(user_client, site_project, domain)
    assert Site.objects.get(name="lisbon-bakery").domain is None


@override_settings(ALLOWED_HOSTS=["testserver", "app.example.org", "sites.testserver"])
def test_the_apps_own_domain_is_refused(user_client: Client, site_project: Project) -> None:
    published(site_project)
    assert "server&#x27;s own address" in set_domain(user_client, site_project, "app.example.org")


@override_settings(BUILTIT_SITES_SUBDOMAINS=False)
def test_without_hosts_of_their_own_a_password_needs_a_domain(
    user_client: Client, sites_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    published(site_project)
    assert (
        f"http://{SITES_HOST}/s/lisbon-bakery/"
        in user_client.get(f"/projects/{site_project.pk}/publish/").content.decode()
    )
    assert Client(HTTP_HOST=HOST).get("/").status_code == 400  # no such host
    assert "a host of its own" in protect(user_client, site_project)
    set_domain(user_client, site_project, "shop.example.org")
    assert "a host of its own" in protect(user_client, site_project)  # not proven yet
    prove(user_client, site_project, "shop.example.org", dns)
    assert "Visitors now need the password." in protect(user_client, site_project)
    moved = sites_client.get("/s/lisbon-bakery/about")
    assert moved["Location"] == "http://shop.example.org/about"
    assert Client(HTTP_HOST="shop.example.org").get("/").status_code == 403
    assert "make the site public first" in set_domain(user_client, site_project, "")


# --- another process ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_server_process_serves_each_change_made_elsewhere_at_once(
    user: User, user_client: Client, site_project: Project, tmp_path: Path
) -> None:
    """As `manage.py publish` or a second server would: the change is made in
    this process, and a running server, which kept what it read, serves it next."""
    server = server_start(shared_settings(), log=tmp_path / "server.log")
    try:

        def fetch(path: str = "/") -> int:
            return httpx.get(
                server.url + path,
                headers={"Host": "lisbon-bakery.sites.localhost"},
                timeout=10,
                trust_env=False,
            ).status_code

        assert fetch() == 404  # no such site yet: read, and kept
        site = published(site_project)
        assert fetch() == 200
        assert fetch() == 200  # kept
        protect(user_client, site_project)
        assert fetch() == 403
        user_client.post(f"/projects/{site_project.pk}/publish/password/", {"public": "1"})
        assert fetch() == 200
        site_unpublish(site=site)
        assert fetch() == 410
        assert site_version_make_live(site=site, version=site.versions.get()) is None
        assert fetch() == 200
        assert project_trash(project=site_project) is None
        assert fetch() == 410
    finally:
        server.stop()
    assert "Traceback" not in server.logged()


def test_a_proxy_may_ask_which_hosts_to_get_certificates_for(
    user_client: Client, sites_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    published(site_project)
    prove(user_client, site_project, "shop.example.org", dns)

    def asks(domain: str) -> int:
        return sites_client.get("/domain-check", {"domain": domain}).status_code

    assert asks("shop.example.org") == 200
    assert asks(HOST) == 200
    assert asks("nobody-here." + SITES_HOST) == 404
    assert asks("elsewhere.example.org") == 404
    assert asks("") == 404
    assert (
        Client().get("/domain-check", {"domain": "shop.example.org"}).status_code == 404
    )  # the app's


def test_over_https_the_pass_is_a_cookie_no_other_host_can_set(
    user_client: Client, site_project: Project
) -> None:
    published(site_project)
    protect(user_client, site_project)
    visitor = Client(HTTP_HOST=HOST)
    opened = visitor.post("/", {"password": SECRET}, secure=True)
    assert PASS_COOKIE not in opened.cookies
    cookie = opened.cookies[SECURE_PASS_COOKIE]
    assert cookie["secure"]
    assert cookie["path"] == "/"
    assert not cookie["domain"]
    assert visitor.get("/", secure=True).status_code == 200
    # The plain name, as another site's page could set it for every host under
    # the sites host, opens nothing over HTTPS.
    tossed = Client(HTTP_HOST=HOST)
    tossed.cookies[PASS_COOKIE] = cookie.value
    assert tossed.get("/", secure=True).status_code == 403


def test_over_https_the_apps_cookies_are_kept_to_its_own_host() -> None:
    """A site's page, on a sibling host of the same site, must not be able to set
    the app's session or CSRF cookie for the whole domain."""
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "from django.conf import settings; import django; django.setup(); "
            "print(settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME)",
        ],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "builtit.settings",
            "BUILTIT_HTTPS": "1",
            "SECRET_KEY": "x" * 50,
        },
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert shown.stdout.split() == ["__Host-sessionid", "__Host-csrftoken"]


def test_the_page_after_the_password_is_never_another_hosts(
    user_client: Client, visitor: Client, site_project: Project
) -> None:
    """A link to `//evil.example/x` on the site's host shows the real form; the
    answer must not send the visitor to evil.example once they give it."""
    published(site_project)
    protect(user_client, site_project)
    # As a browser sends it (the test client would read "//evil.example" as a host).
    opened = visitor.post(
        "/", {"password": SECRET}, PATH_INFO="//evil.example/phish", QUERY_STRING="a=1"
    )
    assert opened.status_code == 303
    assert not opened["Location"].startswith("//")
    assert opened["Location"] == "/%2Fevil.example/phish?a=1"
    folder = visitor.get("/", PATH_INFO="//blog")  # a folder named without its slash
    assert not folder.get("Location", "").startswith("//")


def test_a_right_password_gives_its_try_back(user_client: Client, site_project: Project) -> None:
    published(site_project)
    protect(user_client, site_project)
    person = Client(HTTP_HOST=HOST, REMOTE_ADDR="192.0.2.10")
    for _ in range(passwords.TRIES - 1):
        person.post("/", {"password": "not the one"})
    assert person.post("/", {"password": SECRET}).status_code == 303
    assert (
        Client(HTTP_HOST=HOST, REMOTE_ADDR="192.0.2.10")
        .post("/", {"password": "not the one"})
        .status_code
        == 403
    )  # the tenth wrong guess, still looked at


def test_a_proxy_gets_no_certificate_for_a_site_offline(
    user_client: Client, sites_client: Client, site_project: Project, dns: FakeDNS
) -> None:
    site = published(site_project)
    prove(user_client, site_project, "shop.example.org", dns)
    site_unpublish(site=Site.objects.get(pk=site.pk))
    assert sites_client.get("/domain-check", {"domain": "shop.example.org"}).status_code == 404
    assert sites_client.get("/domain-check", {"domain": HOST}).status_code == 404


def test_a_sign_in_leaves_what_every_process_keeps_alone(user: User, site_project: Project) -> None:
    """Only a change to what an address serves moves the generation on: a
    sign-in's last_login would empty every process's cache each time."""
    published(site_project)
    before = generation(live_sites.GENERATION)
    user.save(update_fields=["last_login"])
    assert generation(live_sites.GENERATION) == before
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert generation(live_sites.GENERATION) != before
