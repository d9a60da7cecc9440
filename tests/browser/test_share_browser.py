"""Sharing in real Chromium: the owner opens Share in the workspace (from the
top bar, or on a phone from the menu), adds a person by username with a role,
changes the role, removes them after a confirmation; once by keyboard only,
where Esc closes the dialog and the focus goes back to Share. The person
finds it on their dashboard, and accepts it there when it is offered."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from projects.lifecycle import project_create
from projects.models import Membership, Project
from tests.browser.conftest import ARTIFACTS, People, answer, person_make, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def _project(owner: User) -> Project:
    project = project_create(owner=owner, name="Lisbon Bakery", starter=True)
    assert isinstance(project, Project)
    person_make("erin")
    return project


def _open_share(page, width: int) -> None:
    if width < 1000:
        page.click("summary[aria-label=Menu]")
        page.click(".menu-items >> text=Share")
    else:
        page.click(".project-title button:has-text('Share')")
    page.wait_for_selector("#share-dialog[open] #share-title")


def _said(page, text: str) -> None:
    page.wait_for_selector(f"#share-dialog .status >> text={text}")


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"share-{name}.png"))


@pytest.mark.parametrize("width", [1440, 390])
def test_the_owner_adds_changes_and_removes_a_person(
    browser, page, live_server, browser_user, width: int
) -> None:
    project = _project(browser_user)
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    _open_share(page, width)

    dialog = page.locator("#share-dialog")
    dialog.get_by_label("Username", exact=True).fill("erin")
    dialog.get_by_label("Role", exact=True).select_option("editor")
    dialog.get_by_role("button", name="Add").click()
    _said(page, "Shared with Erin as editor.")
    assert Membership.objects.get().role == "editor"
    row = dialog.locator(".share-people li", has_text="erin")
    assert row.get_by_label("Role of erin").input_value() == "editor"
    assert (
        dialog.locator(".share-activity-list li")
        .first.inner_text()
        .startswith("grace shared it with erin as editor")
    )
    # Nothing wider than the screen, at 390 px too.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    _shot(page, f"added-{width}")

    row.get_by_label("Role of erin").select_option("viewer")
    _said(page, "erin is now a viewer.")
    assert Membership.objects.get().role == "viewer"

    dialog.get_by_role("button", name="Remove erin").click()
    answer(page, accept=False)  # asked first: no
    assert Membership.objects.count() == 1
    dialog.get_by_role("button", name="Remove erin").click()
    answer(page)
    _said(page, "Removed erin.")
    assert not Membership.objects.exists()
    assert dialog.locator(".share-people li", has_text="erin").count() == 0
    if width < 1000:
        page.emulate_media(color_scheme="dark")
        _shot(page, f"dark-{width}")


def test_sharing_by_keyboard_only(browser, page, live_server, browser_user) -> None:
    project = _project(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    share = page.locator(".project-title button:has-text('Share')")
    share.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#share-dialog[open] #share-title")
    username = page.locator("#share-username")
    username.focus()  # the dialog's first field: the first stop after its own start
    page.keyboard.type("erin")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "share-role"
    page.keyboard.press("ArrowDown")  # Viewer to Editor
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Add"
    page.keyboard.press("Enter")
    _said(page, "Shared with Erin as editor.")
    assert Membership.objects.get().role == "editor"
    # The answer has the focus, so a screen reader reads it.
    assert page.evaluate("document.activeElement.textContent") == "Shared with Erin as editor."
    page.keyboard.press("Escape")
    page.wait_for_selector("#share-dialog", state="hidden")
    assert page.evaluate("document.activeElement.textContent") == "Share"


def test_the_person_shared_with_finds_it_on_their_dashboard(
    people: People, page, live_server, browser_user
) -> None:
    project = _project(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    _open_share(page, 1440)
    page.locator("#share-username").fill("erin")
    page.locator("#share-role").select_option("viewer")
    page.locator("#share-dialog button:has-text('Add')").click()
    _said(page, "Shared with erin as viewer.")
    page.goto(live_server.url + "/")
    assert page.locator(f"#project-{project.pk} .shared-line").inner_text() == "Shared with 1"

    erin = people.signed_in(live_server.url, "erin", width=390)
    card = erin.locator(f"#project-{project.pk}")
    assert card.locator(".shared-line").inner_text() == "Shared by grace · Viewer"
    assert card.get_by_role("link", name="Delete").count() == 0
    assert erin.evaluate("document.documentElement.scrollWidth") <= 390
    _shot(erin, "dashboard-390")

    # The owner offers it to erin: nothing moves until erin accepts.
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    _open_share(page, 1440)
    page.locator("#hand-over-username").fill("erin")
    page.locator("#share-dialog button:has-text('Offer…')").click()
    answer(page)
    _said(page, "Offered to Erin: it is theirs once they accept")
    assert Project.objects.get().owner == browser_user
    erin.reload()
    offer = erin.locator(".hand-over-offer")
    assert "grace offers you Lisbon Bakery" in offer.inner_text()
    assert erin.evaluate("document.documentElement.scrollWidth") <= 390
    _shot(erin, "offer-390")
    offer.get_by_role("button", name="Accept").click()
    erin.wait_for_url(f"**/projects/{project.pk}/")
    erin.wait_for_selector("text=Lisbon Bakery is yours now")
    assert Project.objects.get().owner.username == "erin"
    assert Membership.objects.get().user == browser_user  # grace stays on, an editor
