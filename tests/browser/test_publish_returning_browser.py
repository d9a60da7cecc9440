"""Publishing for someone who comes back, in real Chromium: the dashboard card of
a published project shows its address with Copy link, copied from the keyboard
and said; the workspace has Copy link beside Publish (in the menu on a phone);
the list of versions says what each holds; an earlier version opens in a tab of
its own on the sites origin before it is made live; a finding published anyway
is not asked about on the next Update. At 1440, 768 and 390 px."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from chat.models import Conversation, Message
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project
from projects.publish.services import PublishRefused, site_publish
from projects.services import Author, file_create, file_update
from tests.browser.conftest import ARTIFACTS, sign_in
from tests.browser.test_layout_browser import CONTRAST
from tests.servers import sites_url_of

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    "<title>Crumb</title></head><body><h1>HEADING</h1>"
    "<a href='menu.html'>Menu</a></body></html>"
)


def _project(owner: User) -> Project:
    project = project_create(owner=owner, name="Crumb bakery")
    assert isinstance(project, Project)
    write = file_create(
        project=project,
        path="/index.html",
        content=PAGE.replace("HEADING", "Fresh bread"),
        author=Author.person(owner),
    )
    assert isinstance(write, FileWrite), write
    return project


def _turn(project: Project, request: str, heading: str) -> None:
    """A turn of the assistant's that changed the home page."""
    conversation, _ = Conversation.objects.get_or_create(project=project)
    last = conversation.messages.count()
    Message.objects.create(
        conversation=conversation, sequence=last + 1, role="user", content=request
    )
    answer = Message.objects.create(
        conversation=conversation, sequence=last + 2, role="assistant", content="Done."
    )
    result = file_update(
        project=project,
        path="/index.html",
        content=PAGE.replace("HEADING", heading),
        author=Author.assistant(project.owner, message_id=answer.pk),
    )
    assert isinstance(result, FileWrite), result


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"publish-returning-{name}.png"), full_page=True)


def _tab_to(page: Page, locator, limit: int = 60) -> None:
    """Tab until `locator` has the focus, as a person on a keyboard would."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if locator.evaluate("(el) => el === document.activeElement"):
            return
    raise AssertionError(f"{locator} is not reached with Tab")


@pytest.mark.parametrize("width", [1440, 768, 390])
def test_the_dashboard_card_shows_the_address_and_copies_it_from_the_keyboard(
    browser, live_server, browser_user: User, width: int
) -> None:
    project = _project(browser_user)
    version = site_publish(project=project, user=browser_user, name="crumb")
    assert not isinstance(version, PublishRefused)
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    try:
        page = context.new_page()
        sign_in(page, live_server.url)
        address = f"{sites_url_of(live_server.url).replace('sites.', 'crumb.sites.')}/"
        card = page.locator(f"#project-{project.pk}")
        expect(card.locator(".badge")).to_have_text("Published")
        expect(card.locator(".published-address")).to_have_attribute("href", address)
        copy = card.get_by_role("button", name="Copy link to Crumb bakery")
        box = copy.bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= width
        _tab_to(page, copy)
        page.keyboard.press("Enter")
        expect(card.locator(".copy-said")).to_have_text("Copied")
        expect(copy).to_have_text("Copied ✓")
        assert page.evaluate("navigator.clipboard.readText()") == address
        assert page.evaluate(CONTRAST) == []
        _shot(page, f"dashboard-{width}")
        expect(copy).to_have_text("Copy link", timeout=5_000)  # ready again
    finally:
        context.close()


def _open_publish(page: Page, width: int) -> None:
    if width < 1000:
        page.click("summary[aria-label=Menu]")
        page.click(".menu-items >> text=Publish")
    else:
        page.click(".project-title button:has-text('Publish')")
    page.wait_for_selector("#publish-dialog[open]")


@pytest.mark.parametrize("width", [1440, 390])
def test_a_returning_person_reads_previews_updates_and_copies_the_link(
    browser, live_server, browser_user: User, width: int
) -> None:
    project = _project(browser_user)
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    try:
        page = context.new_page()
        sign_in(page, live_server.url)
        page.goto(f"{live_server.url}/projects/{project.pk}/")
        expect(page.locator("#site-link button")).to_have_count(0)  # nothing live yet

        # The first publish: the check speaks of the broken link; published anyway.
        _turn(project, "A website for my bakery called Crumb", "Crumb")
        _open_publish(page, width)
        page.click("#publish-dialog button.primary")
        page.wait_for_selector("#publish-dialog >> text=menu.html leads to no file.")
        page.click("#publish-dialog button:has-text('Publish anyway')")
        page.wait_for_selector("#publish-dialog .status >> text=Version 1 is live.")
        address = page.get_attribute(".publish-live a", "href")
        assert address is not None

        # Later: two turns, then Update. The same broken link is not asked about again.
        page.click("#publish-dialog button:has-text('Close')")
        _turn(project, "Make the header dark blue", "Crumb, since 1990")
        _turn(project, "Add our opening hours", "Crumb: open daily")
        _open_publish(page, width)
        page.click("#publish-dialog button:has-text('Update')")
        said = page.locator("#publish-dialog .status")
        expect(said).to_contain_text("Version 2 is live.")
        expect(said).to_contain_text("you published anyway before is unchanged")
        versions = page.locator(".publish-versions li")
        expect(versions.nth(0)).to_contain_text(
            "Asked: “Make the header dark blue” and “Add our opening hours”"
        )
        expect(versions.nth(0)).to_contain_text("1 changed: index.html.")
        expect(versions.nth(1)).to_contain_text("Asked: “A website for my bakery called Crumb”")
        expect(versions.nth(1)).to_contain_text("First version: index.html.")
        assert page.evaluate(CONTRAST) == []
        _shot(page, f"dialog-{width}")

        # Version 1, looked at before it is made live: a tab of its own on the sites origin.
        preview = versions.nth(1).get_by_role("link", name="Preview version 1 (opens in a new tab)")
        with context.expect_page() as opened:
            preview.focus()
            page.keyboard.press("Enter")
        old = opened.value
        old.wait_for_load_state()
        assert old.url.startswith(sites_url_of(live_server.url) + "/preview/")
        expect(old.locator("h1")).to_have_text("Crumb")
        # Sandboxed: no origin of its own, so none of anyone's storage.
        assert old.evaluate("window.origin") == "null"
        old.close()

        # Copy link: beside Publish, or in the menu on a phone.
        page.click("#publish-dialog button:has-text('Close')")
        if width < 1000:
            page.click("summary[aria-label=Menu]")
            copy = page.get_by_role("button", name="Copy site link")
            said = page.locator("#site-link-menu .copy-said")
        else:
            copy = page.get_by_role("button", name="Copy link to the published site")
            said = page.locator("#site-link .copy-said")
        copy.focus()
        page.keyboard.press("Enter")
        expect(said).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == address
        _shot(page, f"workspace-{width}")
    finally:
        context.close()


def test_when_the_browser_will_not_copy_the_address_is_shown_to_copy_by_hand(
    page: Page, live_server, browser_user: User
) -> None:
    project = _project(browser_user)
    version = site_publish(project=project, user=browser_user, name="crumb")
    assert not isinstance(version, PublishRefused)
    # As on a plain-HTTP address that is not localhost: no clipboard, no copy command.
    page.add_init_script(
        "Object.defineProperty(navigator, 'clipboard', {value: undefined});"
        "document.execCommand = () => false;"
    )
    sign_in(page, live_server.url)
    card = page.locator(f"#project-{project.pk}")
    card.get_by_role("button", name="Copy link to Crumb bakery").click()
    said = card.locator(".copy-said")
    address = f"{sites_url_of(live_server.url).replace('sites.', 'crumb.sites.')}/"
    expect(said).to_be_visible()
    expect(said).to_have_text(f"Could not copy it here: {address}")
    assert page.evaluate("String(getSelection())") == address
