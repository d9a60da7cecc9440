"""Publishing in real Chromium (issue 28): the dialog from the workspace, the
check in words, the site live on the sites origin without the app's cookies,
an edit that does not reach it until Update, and Unpublish."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project
from projects.services import Author, file_create, file_update
from tests.browser.conftest import sign_in
from tests.servers import sites_url_of

pytestmark = pytest.mark.django_db(transaction=True)

PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    "<title>Bakery</title></head><body><h1>HEADING</h1>"
    "<script>let c; try { c = String(document.cookie.length) } catch (e) { c = 'blocked' }"
    " document.body.dataset.cookies = c</script>"
    "</body></html>"
)


def _project(owner: User) -> Project:
    project = project_create(owner=owner, name="Lisbon Bakery")
    assert isinstance(project, Project)
    result = file_create(
        project=project,
        path="/index.html",
        content=PAGE.replace("HEADING", "Fresh bread") + "<p>Lorem ipsum</p>",
        author=Author.person(owner),
    )
    assert isinstance(result, FileWrite), result
    return project


def _open_publish(page, width: int) -> None:
    """From the top bar, or on a phone from the menu."""
    if width < 1000:
        page.click("summary[aria-label=Menu]")
        page.click(".menu-items >> text=Publish")
    else:
        page.click(".project-title button:has-text('Publish')")
    page.wait_for_selector("#publish-dialog[open]")


@pytest.mark.parametrize("width", [1440, 390])
def test_a_person_publishes_updates_and_unpublishes(
    page, live_server, browser_user, width: int
) -> None:
    project = _project(browser_user)
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    _open_publish(page, width)
    assert page.input_value("#site-name") == "lisbon-bakery"

    page.click("#publish-dialog button.primary")  # the check speaks first
    page.wait_for_selector("#publish-dialog >> text=Text left from a template")
    page.click("#publish-dialog button:has-text('Publish anyway')")
    page.wait_for_selector("#publish-dialog >> text=Version 1 is live.")
    address = page.get_attribute(".publish-live a", "href")
    assert address == f"{sites_url_of(live_server.url)}/s/lisbon-bakery/"

    site = page.context.new_page()
    opened = site.goto(address)
    assert opened is not None
    assert "cookie" not in opened.request.all_headers()  # the app's stay with the app
    assert site.inner_text("h1") == "Fresh bread"
    # Each site's pages run in an opaque origin: no cookies or storage to share.
    assert site.evaluate("document.body.dataset.cookies") == "blocked"

    result = file_update(
        project=project,
        path="/index.html",
        content=PAGE.replace("HEADING", "Fresh bread, daily"),
        author=Author.person(browser_user),
    )
    assert isinstance(result, FileWrite)
    site.reload()
    assert site.inner_text("h1") == "Fresh bread"  # the published version is frozen

    page.click("#publish-dialog button:has-text('Close')")
    _open_publish(page, width)
    page.wait_for_selector("#publish-dialog >> text=1 file changed since")
    page.click("#publish-dialog button:has-text('Update')")
    page.wait_for_selector("#publish-dialog >> text=Version 2 is live.")
    site.reload()
    assert site.inner_text("h1") == "Fresh bread, daily"

    page.click("#publish-dialog button:has-text('Unpublish')")
    page.click("dialog.ask-dialog[open] button[value=ok]")
    page.wait_for_selector("#publish-dialog >> text=Taken offline")
    answer = site.goto(address)
    assert answer is not None
    assert answer.status == 410
