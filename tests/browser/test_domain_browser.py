"""A site's own domain in real Chromium, by keyboard alone: claimed in the
Publish dialog, which shows the records to add and that it waits for them;
the TXT record added at the (test's own) DNS server; Check now; proven, and
the site served at that host."""

from __future__ import annotations

import httpx
import pytest
from django.contrib.auth.models import User

from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project
from projects.publish.services import PublishRefused, site_publish
from projects.services import Author, file_create
from tests.browser.conftest import sign_in
from tests.fakes.dns_server import FakeDNS

pytestmark = pytest.mark.django_db(transaction=True)

DOMAIN = "shop.example.org"
PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    "<title>Bakery</title></head><body><h1>Fresh bread</h1></body></html>"
)


def _published(owner: User) -> Project:
    project = project_create(owner=owner, name="Lisbon Bakery")
    assert isinstance(project, Project)
    written = file_create(
        project=project, path="/index.html", content=PAGE, author=Author.person(owner)
    )
    assert isinstance(written, FileWrite), written
    assert not isinstance(site_publish(project=project, user=owner, name="bakery"), PublishRefused)
    return project


def _focused(page) -> str:
    return str(
        page.evaluate(
            "() => { const e = document.activeElement; const words ="
            " e.getAttribute('aria-label') || e.textContent || '';"
            " return (e.id || '') + '|' + words.trim() }"
        )
    )


def _tab_to(page, wanted: str) -> None:
    """Tab on until the focus is on what `wanted` names (an id, or its words)."""
    for _ in range(80):
        if wanted in _focused(page):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"the keyboard never reached {wanted!r}")


def _served(base_url: str, path: str = "/") -> httpx.Response:
    port = base_url.rsplit(":", 1)[1]
    return httpx.get(
        base_url + path, headers={"Host": f"{DOMAIN}:{port}"}, timeout=10, trust_env=False
    )


@pytest.mark.parametrize("width", [1440, 390])
def test_a_person_proves_a_domain_by_keyboard_and_the_site_answers_there(
    page, live_server, browser_user, dns: FakeDNS, width: int
) -> None:
    project = _published(browser_user)
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    if width < 1000:
        _tab_to(page, "|Menu")
        page.keyboard.press("Enter")
    _tab_to(page, "|Publish")
    page.keyboard.press("Enter")
    page.wait_for_selector("#publish-dialog[open]")
    _tab_to(page, "site-domain|")
    page.keyboard.type(DOMAIN)
    page.keyboard.press("Enter")

    proof = page.locator("#domain-proof")
    proof.get_by_text("Waiting").wait_for()
    assert proof.get_by_text(f"No TXT record at _builtit.{DOMAIN} yet.").is_visible()
    name = page.text_content("#domain-record-name")
    value = page.text_content("#domain-record-value")
    assert name == f"_builtit.{DOMAIN}"
    assert value is not None
    assert value.startswith("builtit-verify=")
    assert _served(live_server.url).status_code == 400

    dns.add_txt(name, value)
    _tab_to(page, "domain-check-now")
    page.keyboard.press("Enter")
    said = page.locator("#publish-dialog .status[role=status]")
    said.get_by_text(f"the site answers at {DOMAIN}").wait_for()
    assert said.evaluate("(element) => element === document.activeElement")
    assert proof.get_by_text("Proven").is_visible()
    assert "Fresh bread" in _served(live_server.url).text
