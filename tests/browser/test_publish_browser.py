"""Publishing in real Chromium: the dialog from the workspace, the
check in words, the site live on a host of its own without the app's cookies,
an edit that does not reach it until Update, an earlier version made live
again, a password that keeps the site from visitors until they give it, and
Unpublish."""

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
SITE_PASSWORD = "flour and water"


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


def _said(page, text: str) -> None:
    page.wait_for_selector(f"#publish-dialog .status >> text={text}")


def _give_password(visitor, password: str) -> None:
    visitor.fill("input[name=password]", password)
    with visitor.expect_navigation():
        visitor.click("button:has-text('Open')")


@pytest.mark.parametrize("width", [1440, 390])
def test_a_person_publishes_updates_and_unpublishes(
    browser, page, live_server, browser_user, width: int
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
    _said(page, "Version 1 is live.")
    address = page.get_attribute(".publish-live a", "href")
    port = live_server.url.rsplit(":", 1)[1]
    assert address == f"http://lisbon-bakery.sites.localhost:{port}/"

    site = page.context.new_page()
    opened = site.goto(address)
    assert opened is not None
    assert "cookie" not in opened.request.all_headers()  # the app's stay with the app
    assert site.inner_text("h1") == "Fresh bread"
    # A host of its own is an origin of its own: its cookies, none of the app's.
    assert site.evaluate("document.body.dataset.cookies") == "0"

    result = file_update(
        project=project,
        path="/index.html",
        content=PAGE.replace("HEADING", "Fresh bread, daily"),
        author=Author.person(browser_user),
    )
    assert isinstance(result, FileWrite)
    site.reload()
    assert site.inner_text("h1") == "Fresh bread"  # the published version is frozen

    page.bring_to_front()  # back to the workspace's tab
    page.click("#publish-dialog button:has-text('Close')")
    _open_publish(page, width)
    page.wait_for_selector("#publish-dialog >> text=1 file changed since")
    page.click("#publish-dialog button:has-text('Update')")
    _said(page, "Version 2 is live.")
    site.reload()
    assert site.inner_text("h1") == "Fresh bread, daily"

    # Back to the first version, from the list of versions.
    page.click(".publish-versions li:has-text('Version 1 ·') button:has-text('Make live')")
    _said(page, "Version 1 is live again.")
    page.wait_for_selector(".publish-versions li:has-text('Version 1 ·') .badge:text-is('live')")
    site.reload()
    assert site.inner_text("h1") == "Fresh bread"

    # Behind a password: visitors, who share nothing with the owner, are asked for it.
    page.fill("#site-password", SITE_PASSWORD)
    page.click("#publish-dialog button:has-text('Keep behind a password')")
    _said(page, "Visitors now need the password.")
    page.wait_for_selector("#publish-dialog button:has-text('Make public')")

    visitors = browser.new_context(viewport={"width": width, "height": 900})
    try:
        visitor = visitors.new_page()
        asked = visitor.goto(address)
        assert asked is not None
        assert asked.status == 403
        visitor.wait_for_selector("input[name=password]")
        assert visitor.query_selector("text=Fresh bread") is None

        _give_password(visitor, "bread and butter")
        visitor.wait_for_selector("[role=alert] >> text=That is not the password.")
        assert visitor.query_selector("text=Fresh bread") is None

        _give_password(visitor, SITE_PASSWORD)
        visitor.wait_for_selector("h1:text-is('Fresh bread')")
        assert visitor.url == address
        # The pass is a cookie of this site's host alone, out of its scripts' reach.
        (held,) = visitors.cookies()
        assert held["name"] == "builtit_site_pass"
        assert held["domain"] == "lisbon-bakery.sites.localhost"
        assert held["httpOnly"] is True
        assert visitor.evaluate("document.body.dataset.cookies") == "0"

        # The shared address sends the site's visitors to its own host.
        shared = visitor.goto(f"{sites_url_of(live_server.url)}/s/lisbon-bakery/")
        assert shared is not None
        assert shared.request.redirected_from is not None
        assert shared.request.redirected_from.response().status == 302
        assert visitor.url == address
        visitor.wait_for_selector("h1:text-is('Fresh bread')")
    finally:
        visitors.close()

    site.reload()  # the owner's own browser holds no pass either
    site.wait_for_selector("input[name=password]")

    page.click("#publish-dialog button:has-text('Make public')")
    _said(page, "Anyone with the address can see the site now.")
    page.wait_for_selector("#publish-dialog button:has-text('Keep behind a password')")
    site.reload()
    site.wait_for_selector("h1:text-is('Fresh bread')")

    page.click("#publish-dialog button:has-text('Unpublish')")
    page.click("dialog.ask-dialog[open] button[value=ok]")
    _said(page, "Taken offline")
    answer = site.goto(address)
    assert answer is not None
    assert answer.status == 410
