"""A published site's forms over real HTTP, at the site's own host, on a real
server (daphne, as in production): what a visitor's browser sends, what it is
answered, what the owner gets (stored, and mailed to a real SMTP server)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

import httpx
import pytest
from django.contrib.auth.models import User
from django.test import Client

from projects.lifecycle import project_trash
from projects.models import FormSubmission, Project, Site
from projects.publish.services import site_unpublish
from tests.fakes.smtp_server import FakeSMTP, body_of, running
from tests.projects.publish.test_publish import page, published, site_project, write
from tests.servers import ServerProcess, server_start, shared_settings

__all__ = ["site_project"]  # a fixture, used by name

HOST = "lisbon-bakery.sites.localhost"
CONTACT = page(
    '<form action="/_forms/contact" method="post"><label>Name <input name="name"></label>'
    '<label>Email <input name="email"></label><textarea name="message"></textarea>'
    '<input name="_gotcha" hidden><button>Send</button></form>'
)
pytestmark = pytest.mark.django_db(transaction=True)
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def smtp() -> Iterator[FakeSMTP]:
    with running() as fake:
        yield fake


@pytest.fixture(scope="module")
def server(
    django_db_setup: None, smtp: FakeSMTP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    given = shared_settings(
        # Each test speaks from an address of its own (X-Forwarded-For), so the
        # per-address bound of one does not reach the next.
        BUILTIT_TRUSTED_PROXIES=1,
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=smtp.port,
        EMAIL_USE_TLS=False,
        EMAIL_USE_SSL=False,
        BUILTIT_APP_URL="http://127.0.0.1:8000",
    )
    process = server_start(given, log=tmp_path_factory.mktemp("forms") / "server.log")
    yield process
    process.stop()
    assert "Traceback" not in process.logged()


class Visitor:
    """A browser at one address, on the site's own host of `server`."""

    def __init__(self, server: ServerProcess, host: str = HOST) -> None:
        self.address = f"203.0.113.{next(_addresses)}"
        self.origin = f"http://{host}:{server.port}"
        self.client = httpx.Client(
            base_url=server.url,
            headers={"Host": f"{host}:{server.port}", "X-Forwarded-For": self.address},
            timeout=10,
            trust_env=False,
        )

    def send(self, path: str = "/_forms/contact", data: object = None, **headers: str):
        sent = {"Origin": self.origin, "Referer": f"{self.origin}/contact", **headers}
        return self.client.post(path, data=data, headers=sent)  # type: ignore[arg-type]

    def get(self, path: str, **headers: str) -> httpx.Response:
        return self.client.get(path, headers=headers)


@pytest.fixture
def visitor(server: ServerProcess, smtp: FakeSMTP) -> Iterator[Visitor]:
    smtp.clear()
    seen = Visitor(server)
    yield seen
    seen.client.close()


@pytest.fixture
def bakery(site_project: Project) -> Site:
    write(site_project, "/contact.html", CONTACT)
    return published(site_project)


def mailed(smtp: FakeSMTP) -> str:
    """Every message's body so far (an earlier test's mail may come late: each
    test looks for its own)."""
    return "\n".join(body_of(message) for _, message in smtp.received())


def kept() -> list[FormSubmission]:
    return list(FormSubmission.objects.order_by("pk"))


# --- what a visitor sends, and where it leads -------------------------------------


def test_a_form_is_kept_for_the_owner_and_the_visitor_thanked(
    visitor: Visitor, bakery: Site
) -> None:
    answer = visitor.send(data={"name": "Ana", "email": "ana@example.org", "message": "Two loaves"})
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/_forms/contact/sent?back=%2Fcontact"
    [row] = kept()
    assert row.project_id == bakery.project_id
    assert row.form == "contact"
    assert row.fields == [["name", "Ana"], ["email", "ana@example.org"], ["message", "Two loaves"]]
    assert row.page == "/contact"
    assert not row.spam
    assert not row.test
    assert row.read_at is None
    # The visitor's address only as a hash.
    assert visitor.address not in json.dumps(list(FormSubmission.objects.values()), default=str)
    assert len(row.address_hash) == 32

    thanks = visitor.get(answer.headers["Location"])
    assert thanks.status_code == 200
    assert "<h1>Thank you</h1>" in thanks.text
    assert '<a href="/contact">Back to the site</a>' in thanks.text


def test_the_thank_you_page_speaks_the_sites_language(
    visitor: Visitor, site_project: Project
) -> None:
    write(site_project, "/index.html", CONTACT.replace('lang="en"', 'lang="fr"'))
    published(site_project)
    answer = visitor.send(data={"name": "Léa"}, Referer=f"{visitor.origin}/")
    thanks = visitor.get(answer.headers["Location"])
    assert '<html lang="fr">' in thanks.text
    assert "<h1>Merci</h1>" in thanks.text
    assert "Retour au site" in thanks.text


def test_next_leads_to_a_page_of_the_same_site_and_thanks_html_is_the_default(
    visitor: Visitor, site_project: Project
) -> None:
    write(site_project, "/merci.html", page("<h1>Merci!</h1>"))
    published(site_project)
    assert visitor.send(data={"a": "1", "_next": "/merci"}).headers["Location"] == "/merci"
    assert visitor.send(data={"a": "1", "_next": "merci.html"}).headers["Location"] == "/merci.html"
    # Not a page of this site: the plain thank-you page.
    for elsewhere in ("https://evil.example/", "//evil.example/x", "/nowhere", "javascript:x"):
        said = visitor.send(data={"a": "1", "_next": elsewhere})
        assert said.headers["Location"].startswith("/_forms/contact/sent"), elsewhere
    # The site's own thank-you page, once it has one.
    write(site_project, "/thanks.html", page("<h1>Thanks!</h1>"))
    published(site_project)
    assert visitor.send(data={"a": "1"}).headers["Location"] == "/thanks.html"
    assert kept()[0].fields == [["a", "1"]]  # _next is not a field


def test_a_script_that_asks_for_json_gets_json(visitor: Visitor, bakery: Site) -> None:
    answer = visitor.send(data={"name": "Ana"}, Accept="application/json")
    assert answer.status_code == 200
    assert answer.json() == {"ok": True, "message": "Your message was sent.", "next": None}
    as_json = visitor.client.post(
        "/_forms/signup",
        content=json.dumps({"email": "bo@example.org", "topics": ["bread", "cakes"]}),
        headers={"Content-Type": "application/json", "Accept": "application/json"},
    )
    assert as_json.json()["ok"] is True
    assert kept()[-1].fields == [
        ["email", "bo@example.org"],
        ["topics", "bread"],
        ["topics", "cakes"],
    ]
    refused = visitor.send(data={}, Accept="application/json")
    assert refused.status_code == 400
    assert refused.json() == {
        "ok": False,
        "error": "The form sent no fields: nothing to keep. Nothing was kept.",
    }


# --- spam and bounds ------------------------------------------------------------------


def test_a_filled_honeypot_is_kept_apart_as_spam_and_answered_as_any_other(
    visitor: Visitor, bakery: Site, smtp: FakeSMTP
) -> None:
    robot = visitor.send(data={"name": "Buy now", "_gotcha": "http://spam.example"})
    person = visitor.send(data={"name": "Ana", "_gotcha": ""})
    assert robot.status_code == person.status_code == 303
    assert robot.headers["Location"] == person.headers["Location"]
    spam, real = kept()
    assert spam.spam
    assert spam.fields == [["name", "Buy now"]]
    assert not real.spam
    assert spam.mail == FormSubmission.Mail.NONE
    smtp.wait_for("name: Ana")  # the person's is mailed; the robot's never
    assert "Buy now" not in mailed(smtp)


def test_one_address_may_send_ten_a_minute_then_is_told_when_to_try_again(
    server: ServerProcess, visitor: Visitor, bakery: Site
) -> None:
    for _ in range(10):
        assert visitor.send(data={"n": "1"}).status_code == 303
    refused = visitor.send(data={"n": "11"})
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert "Too many forms were sent from your address" in refused.text
    assert "try again in" in refused.text
    assert len(kept()) == 10
    # Another visitor is not held back by this one.
    assert Visitor(server).send(data={"n": "1"}).status_code == 303


def test_a_body_over_64_kib_is_refused_before_it_is_read(
    visitor: Visitor, bakery: Site, user_client: Client
) -> None:
    answer = visitor.send(data={"message": "x" * (65 * 1024)})
    assert answer.status_code == 413
    assert "64 KiB" in answer.text
    # A signed-in session's larger bounds are the app's alone: at a site's host
    # every body is a stranger's.
    user_client.get("/")
    session = user_client.cookies["sessionid"].value
    upload = visitor.client.post(
        f"/projects/{bakery.project_id}/files/save/",
        content=b"x" * (100 * 1024),
        headers={"Cookie": f"sessionid={session}", "Content-Type": "text/plain"},
    )
    assert upload.status_code == 413
    assert not kept()


def test_fields_are_bounded_and_files_refused_in_words(visitor: Visitor, bakery: Site) -> None:
    too_many = visitor.send(data={f"f{number}": "x" for number in range(51)})
    assert too_many.status_code == 400
    assert "a form here may send at most 50" in too_many.text
    too_long = visitor.send(data={"message": "x" * 10_001})
    assert too_long.status_code == 400
    assert "longer than 10,000 characters" in too_long.text
    with_file = visitor.client.post(
        "/_forms/contact",
        data={"name": "Ana"},
        files={"photo": ("cake.png", b"\x89PNG....", "image/png")},
    )
    assert with_file.status_code == 415
    assert "forms here do not take files yet" in with_file.text
    assert not kept()


def test_a_form_sent_from_another_site_is_refused(visitor: Visitor, bakery: Site) -> None:
    for origin in (
        "http://evil.example",
        "null",
        f"http://other.sites.localhost:{visitor.origin[-5:]}",
    ):
        answer = visitor.send(data={"name": "x"}, Origin=origin)
        assert answer.status_code == 404, origin
    assert visitor.client.post("/_forms/contact", data={"name": "no origin"}).status_code == 303
    assert [row.fields for row in kept()] == [[["name", "no origin"]]]


# --- which sites take forms -----------------------------------------------------------


def test_unknown_unpublished_taken_down_and_kept_sites(
    server: ServerProcess, visitor: Visitor, bakery: Site, user_client: Client
) -> None:
    nobody = Visitor(server, host="nobody-here.sites.localhost")
    assert nobody.send(data={"name": "x"}).status_code == 404

    site_unpublish(site=bakery)
    assert visitor.send(data={"name": "x"}).status_code == 404
    published(Project.objects.get(pk=bakery.project_id))

    protected = user_client.post(
        f"/projects/{bakery.project_id}/publish/password/", {"password": "correct horse battery"}
    )
    assert protected.status_code == 200
    kept_out = visitor.send(data={"name": "x"})
    assert kept_out.status_code == 403
    assert "password" in kept_out.text
    opened = visitor.client.post("/contact", data={"password": "correct horse battery"})
    assert opened.status_code == 303
    assert visitor.send(data={"name": "with a pass"}).status_code == 303
    user_client.post(f"/projects/{bakery.project_id}/publish/password/", {"public": "1"})

    site = Site.objects.get(pk=bakery.pk)
    site.taken_down = "Phishing."
    site.save()
    closed = visitor.send(data={"name": "x"})
    assert closed.status_code == 410
    assert "forms are closed" in closed.text
    assert [row.fields for row in kept()] == [[["name", "with a pass"]]]

    site.taken_down = ""
    site.save()
    assert project_trash(project=Project.objects.get(pk=bakery.project_id)) is None
    assert visitor.send(data={"name": "x"}).status_code == 404


def test_the_shared_address_and_the_preview_take_forms_too(
    server: ServerProcess, bakery: Site, smtp: FakeSMTP
) -> None:
    shared = Visitor(server, host="sites.localhost")
    answer = shared.send("/s/lisbon-bakery/_forms/contact", data={"name": "Ana"}, Origin="null")
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/s/lisbon-bakery/_forms/contact/sent"
    thanks = shared.get(answer.headers["Location"])
    assert thanks.status_code == 200
    assert thanks.headers["Content-Security-Policy"].startswith("sandbox")
    # The server's root is no site's.
    assert shared.send("/_forms/contact", data={"name": "x"}).status_code == 404

    token = Project.objects.get(pk=bakery.project_id).preview_token
    tried = shared.send(f"/preview/{token}/_forms/contact", data={"name": "Test"}, Origin="null")
    assert tried.status_code == 303
    assert tried.headers["Location"] == f"/preview/{token}/_forms/contact/sent"
    assert "not mailed" in shared.get(tried.headers["Location"]).text
    assert shared.send("/preview/not-a-token/_forms/contact", data={"a": "1"}).status_code == 404
    from_site, from_preview = kept()
    assert not from_site.test
    assert from_preview.test
    assert from_preview.mail == FormSubmission.Mail.NONE
    smtp.wait_for("name: Ana")
    assert "name: Test" not in mailed(smtp)  # the preview's is never mailed


# --- mail -------------------------------------------------------------------------


def test_each_submission_is_mailed_to_the_owner_after_the_answer(
    visitor: Visitor, bakery: Site, smtp: FakeSMTP, user: User
) -> None:
    answer = visitor.send(
        data={"name": "Ana Lima", "email": "ana@example.org", "message": "Two loaves,\nplease"}
    )
    assert answer.status_code == 303
    to, message = smtp.wait_for("name: Ana Lima")
    assert to == [user.email]
    assert message["Subject"] == "Lisbon Bakery: a new contact form"
    assert message["Reply-To"] == "ana@example.org"
    body = body_of(message)
    assert "name: Ana Lima" in body
    assert "message: Two loaves,\nplease" in body
    assert "from /contact" in body
    assert f"/projects/{bakery.project_id}/forms/" in body
    row = FormSubmission.objects.get()
    for _ in range(100):  # marked once the mail server took it
        if row.mail == FormSubmission.Mail.SENT:
            break
        row.refresh_from_db()
    assert row.mail == FormSubmission.Mail.SENT


# --- many at once: one writer keeps them all ----------------------------------------


def test_a_burst_of_forms_at_once_is_all_kept_each_answered_with_its_own_page(
    server: ServerProcess, bakery: Site
) -> None:
    """Sent together, they are kept by the process's one writer, several in
    one commit: none lost, and each visitor sent back to the page they came from."""

    def send(number: int) -> tuple[int, str, httpx.Response]:
        visitor = Visitor(server)
        came_from = "/contact" if number % 2 else "/"
        try:
            answer = visitor.send(
                data={"name": f"Visitor {number}"}, Referer=visitor.origin + came_from
            )
        finally:
            visitor.client.close()
        return number, came_from, answer

    with ThreadPoolExecutor(max_workers=40) as pool:
        answers = list(pool.map(send, range(40)))
    for _, came_from, answer in answers:
        assert answer.status_code == 303, answer.text
        assert answer.headers["Location"] == "/_forms/contact/sent?" + urlencode(
            {"back": came_from}
        )
    pages = {row.fields[0][1]: row.page for row in kept()}
    assert pages == {f"Visitor {number}": came_from for number, came_from, _ in answers}


def test_the_sites_pages_are_served_beside_its_forms_as_a_static_host_serves_them(
    visitor: Visitor, bakery: Site
) -> None:
    """The own host's pages take the same early way as its forms (builtit.own_hosts)."""
    page = visitor.get("/contact")
    assert page.status_code == 200
    assert 'action="/_forms/contact"' in page.text
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    again = visitor.get("/contact", **{"If-None-Match": page.headers["ETag"]})
    assert again.status_code == 304
    head = visitor.client.head("/contact")
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["Content-Length"] == page.headers["Content-Length"]
    assert visitor.get("/nothing-here").status_code == 404
