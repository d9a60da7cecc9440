"""A protected site's password in real Chromium: another address locked out
for guessing leaves a visitor with the right password free to get in, and a
cookie of the pass's name that another published site's script sets for every
host under the sites host voids no visitor's pass."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from projects.files.results import FileWrite
from projects.models import Project, Site
from projects.publish import passwords
from projects.publish.live_sites import live_site
from projects.publish.passwords import Throttled, password_hashed, password_try
from projects.publish.services import PublishRefused, site_publish
from projects.services import Author, file_create

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "flour and water"
PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{name}</title></head>'
    "<body><h1>{name}</h1>{script}</body></html>"
)
# What any published site's page may run: a cookie of the pass's name for
# every host under the sites host (over HTTP nothing stops it).
FORGE = (
    "<script>document.cookie = 'builtit_site_pass=forged; domain=sites.localhost; path=/';"
    " document.body.dataset.forged = document.cookie</script>"
)


def _site(owner: User, name: str, *, script: str = "", password: str = "") -> Site:
    project = Project.objects.create(owner=owner, name=name)
    written = file_create(
        project=project,
        path="/index.html",
        content=PAGE.format(name=name, script=script),
        author=Author.person(owner),
    )
    assert isinstance(written, FileWrite), written
    version = site_publish(project=project, user=owner, name=name)
    assert not isinstance(version, PublishRefused), version
    if password:
        version.site.password = password_hashed(password)
        version.site.save(update_fields=["password"])
    return version.site


def _address(live_server, name: str) -> str:
    port = live_server.url.rsplit(":", 1)[1]
    return f"http://{name}.sites.localhost:{port}/"


def _give_password(page, password: str) -> None:
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("button:has-text('Open')")


def test_a_right_password_opens_the_site_while_another_address_is_locked_out(
    page, live_server, browser_user: User
) -> None:
    _site(browser_user, "bakery", password=SECRET)
    kept = live_site(name="bakery")
    assert kept is not None
    # Someone elsewhere guesses, far past every bound (the server shares this cache).
    for _ in range(passwords.SITE_TRIES + passwords.TRIES + 1):
        password_try(kept, "203.0.113.9", "a guess")
    assert isinstance(password_try(kept, "203.0.113.9", SECRET), Throttled)

    asked = page.goto(_address(live_server, "bakery"))
    assert asked is not None
    assert asked.status == 403
    _give_password(page, SECRET)
    page.wait_for_selector("h1:text-is('bakery')")


def test_a_cookie_another_site_sets_for_every_host_voids_no_pass(
    context, live_server, browser_user: User
) -> None:
    _site(browser_user, "bakery", password=SECRET)
    _site(browser_user, "prankster", script=FORGE)
    page = context.new_page()
    page.goto(_address(live_server, "bakery"))
    _give_password(page, SECRET)
    page.wait_for_selector("h1:text-is('bakery')")

    page.goto(_address(live_server, "prankster"))
    page.wait_for_selector("h1:text-is('prankster')")
    assert "builtit_site_pass=forged" in page.evaluate("document.body.dataset.forged")
    forged = [cookie for cookie in context.cookies() if cookie["value"] == "forged"]
    assert [cookie["domain"] for cookie in forged] == [".sites.localhost"]

    # Both cookies go to the protected site now; its own pass still opens it.
    page.goto(_address(live_server, "bakery"))
    page.wait_for_selector("h1:text-is('bakery')")
