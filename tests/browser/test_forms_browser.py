"""Forms in real Chromium: the offline demo's bakery published, its contact
form sent from the site's own host on a phone, with the keyboard alone (the
honeypot is never reached), and read in the owner's inbox on a desktop, in
light and dark."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from demo.site import brief_from, site_files
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import FormSubmission, Project
from projects.publish.services import PublishRefused, site_publish
from projects.services import Author, file_create
from tests.browser.conftest import ARTIFACTS, assert_fits, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

# Where the walk's screenshots go (the lead looks at them): BUILTIT_SHOTS, or the artifacts.
SHOTS = Path(os.environ.get("BUILTIT_SHOTS", str(ARTIFACTS)))


def _demo_bakery(owner: User) -> Project:
    """What the offline demo builds for "a bakery called Crumb…", published as `crumb`."""
    project = project_create(owner=owner, name="Crumb")
    assert isinstance(project, Project)
    brief = brief_from("a bakery called Crumb with a menu and a contact section")
    for name, text in site_files(brief).items():
        written = file_create(
            project=project, path=f"/{name}", content=text, author=Author.person(owner)
        )
        assert isinstance(written, FileWrite), written
    version = site_publish(project=project, user=owner, name="crumb")
    assert not isinstance(version, PublishRefused), version
    return project


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_visitor_sends_the_contact_form_and_the_owner_reads_it(
    browser, live_server, browser_user, scheme: str
) -> None:
    project = _demo_bakery(browser_user)
    port = live_server.url.rsplit(":", 1)[1]
    site = f"http://crumb.sites.localhost:{port}"

    phone = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    visitor = phone.new_page()
    visitor.goto(site + "/")
    form = visitor.locator("form.site-form")
    form.scroll_into_view_if_needed()
    assert_fits(390, form)
    _shot(visitor, f"forms-site-390-{scheme}")
    # The keyboard alone: name, email, message, then Send (the honeypot is skipped).
    visitor.get_by_label("Your name").focus()
    visitor.keyboard.type("Ana Lima")
    visitor.keyboard.press("Tab")
    visitor.keyboard.type("ana@example.org")
    visitor.keyboard.press("Tab")
    visitor.keyboard.type("Two sourdough loaves for Saturday, please.")
    visitor.keyboard.press("Tab")
    focused = visitor.evaluate("document.activeElement.textContent.trim()")
    assert focused == "Send message"
    with visitor.expect_navigation():
        visitor.keyboard.press("Enter")
    assert visitor.url.startswith(site + "/_forms/contact/sent")
    visitor.get_by_role("heading", name="Thank you").wait_for()
    _shot(visitor, f"forms-thanks-390-{scheme}")
    visitor.get_by_role("link", name="Back to the site").click()
    visitor.wait_for_url(site + "/")
    phone.close()

    [row] = FormSubmission.objects.all()
    assert row.project_id == project.pk
    assert row.fields == [
        ["name", "Ana Lima"],
        ["email", "ana@example.org"],
        ["message", "Two sourdough loaves for Saturday, please."],
    ]
    assert not row.spam

    desk = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme=scheme)
    owner = desk.new_page()
    sign_in(owner, live_server.url)
    card = owner.locator(f"#project-{project.pk}")
    card.get_by_role("link", name="1 new form submission").click()
    owner.wait_for_url(f"{live_server.url}/projects/{project.pk}/forms/")
    entry = owner.locator(".submission").first
    entry.get_by_text("Two sourdough loaves for Saturday, please.").wait_for()
    assert "unread" in (entry.get_attribute("class") or "")
    _shot(owner, f"forms-inbox-1440-{scheme}")
    entry.get_by_role("button", name="Mark read").click()
    owner.locator(".submission:not(.unread)").wait_for()
    owner.goto(f"{live_server.url}/projects/{project.pk}/")
    forms_link = owner.locator(".project-title a.forms-link")
    forms_link.wait_for()
    assert forms_link.locator(".unread-badge").count() == 0
    desk.close()


def test_the_preview_sends_a_sites_form_as_a_test(browser, live_server, browser_user) -> None:
    """The form names the site's root (`/_forms/contact`); in the preview the
    page's script sends it to the preview's own form address instead."""
    project = _demo_bakery(browser_user)
    port = live_server.url.rsplit(":", 1)[1]
    phone = browser.new_context(viewport={"width": 390, "height": 844})
    page = phone.new_page()
    page.goto(f"http://sites.localhost:{port}/preview/{project.preview_token}/")
    page.get_by_label("Your name").fill("Preview tester")
    page.get_by_label("Email").fill("me@example.org")
    page.get_by_label("Message", exact=True).fill("Does it work here?")
    page.get_by_role("button", name="Send message").click()
    page.get_by_role("heading", name="Thank you").wait_for()
    assert "/preview/" in page.url
    assert page.get_by_text("is not mailed").count() == 1
    # And a script's fetch() to the site's root goes to the preview too.
    page.goto(f"http://sites.localhost:{port}/preview/{project.preview_token}/")
    said = page.evaluate(
        "fetch('/_forms/newsletter', {method: 'POST', headers: {Accept: 'application/json'},"
        " body: new URLSearchParams({email: 'cy@example.org'})}).then(r => r.json())"
    )
    assert said == {"ok": True, "message": "Your message was sent.", "next": None, "test": True}
    phone.close()
    assert sorted(FormSubmission.objects.values_list("form", "test")) == [
        ("contact", True),
        ("newsletter", True),
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_owner_sees_a_full_inbox_on_a_desk_and_a_phone(
    browser, live_server, browser_user, settings, scheme: str
) -> None:
    settings.BUILTIT_FORMS_MAX_KEPT = 3
    project = _demo_bakery(browser_user)
    for name in ("Ana", "Bo", "Cy"):
        FormSubmission.objects.create(
            project=project, form="contact", fields=[["name", name]], text=f"name: {name}"
        )
    for width, height in ((1440, 900), (390, 844)):
        seen = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
        owner = seen.new_page()
        sign_in(owner, live_server.url)
        owner.goto(f"{live_server.url}/projects/{project.pk}/forms/")
        notice = owner.get_by_role("alert")
        notice.get_by_text("Your form inbox is full:").wait_for()
        assert_fits(width, notice)
        _shot(owner, f"forms-inbox-full-{width}-{scheme}")
        seen.close()
