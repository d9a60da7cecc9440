"""Who else has the project open (issue 45), in Chromium with two people in two
browser contexts: the owner's top bar shows a dot for the editor who opened the
project (named, with the file in their editor, for a tooltip and for screen
readers), the file tree marks the file they have open, and when they close the
page they are gone from both. Her unsaved edits stay hers when the owner saves
the same file, and her save over the owner's newer one is refused in words. At
390 px the dot leaves the project's name its room."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from projects.lifecycle import project_create
from projects.models import Membership, Project
from projects.services import Author, file_create
from tests.browser.conftest import PASSWORD, assert_fits, open_file, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)


def test_the_owner_sees_who_is_here_the_file_they_have_open_and_them_leave(
    browser, page: Page, chat_server, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Shared bakery", starter=True)
    assert isinstance(project, Project)
    file_create(
        project=project,
        path="/about.html",
        content="<p>About</p>",
        author=Author.person(browser_user),
    )
    erin = User.objects.create_user("erin", "erin@example.com", PASSWORD)
    Membership.objects.create(project=project, user=erin, role="editor", added_by=browser_user)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    expect(page.locator("#presence .presence-dot")).to_have_count(0)  # alone: nobody else

    theirs = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        hers = theirs.new_page()
        sign_in(hers, chat_server.url, "erin")
        hers.goto(f"{chat_server.url}/projects/{project.pk}/")
        open_file(hers, "/about.html")
        dot = page.locator("#presence .presence-dot")
        expect(dot).to_have_count(1)
        expect(dot).to_have_attribute("title", "erin — editor, has about.html open")
        expect(dot.locator(".presence-label")).to_have_text("erin — editor, has about.html open")
        mark = page.locator("#file-tree .file-link[data-path='/about.html'] .others-open")
        expect(mark).to_be_attached()
        expect(
            page.locator("#file-tree .file-link[data-path='/index.html'] .others-open")
        ).to_have_count(0)
        # By keyboard: the dot is a stop in the page's Tab order.
        dot.focus()
        expect(dot).to_be_focused()
        # Hers shows the owner, never herself.
        expect(hers.locator("#presence .presence-dot")).to_have_attribute(
            "title", "grace — owner, has index.html open"
        )
        # Her unsaved edits are hers: the owner's save shows in her editor as a
        # notice, her text stays, and her save over the newer one is refused.
        hers.keyboard.type("<p>Hers</p>")
        hers.wait_for_function("builtitWorkspace.isDirty()")
        open_file(page, "/about.html")
        page.keyboard.type("<p>Mine</p>")
        page.click("#editor-form button[type=submit]")
        expect(hers.locator("#editor-status")).to_contain_text("Your unsaved edits are still here")
        assert "<p>Hers</p>" in hers.evaluate("builtitWorkspace.text()")
        hers.click("#editor-form button[type=submit]")
        expect(hers.locator("#editor-status")).to_contain_text("changed since it was opened")
        # At 390 px the dot takes no room from the project's name.
        page.set_viewport_size({"width": 390, "height": 844})
        assert_fits(390, page.locator("#project-name"), dot)
        width = "document.getElementById('project-name').getBoundingClientRect().width"
        beside = page.evaluate(width)
        hers.close()
        expect(dot).to_have_count(0)
        expect(mark).to_have_count(0)
        assert beside >= page.evaluate(width) - 1
    finally:
        theirs.close()
    assert errors == []
