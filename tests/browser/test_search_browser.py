"""Search across the project's files, in Chromium: Ctrl+Shift+F goes
to the box, Enter searches, and a result opens its file in the editor at its
line, on a wide screen and on a phone."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from projects.lifecycle import project_create
from projects.models import Project
from projects.services import Author, file_create
from tests.browser.conftest import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

# The match far down a long page: the editor has to scroll to show it.
ABOUT = (
    "".join(f"<p>Paragraph {number}</p>\n" for number in range(1, 48))
    + "<p>Opening HOURS: eight to four</p>\n"
    + "".join(f"<p>More {number}</p>\n" for number in range(30))
)
MATCH_LINE = 48


def _project(owner: User) -> Project:
    project = project_create(owner=owner, name="Crumb", starter=True)
    assert isinstance(project, Project)
    author = Author.person(owner)
    file_create(project=project, path="/about.html", content=ABOUT, author=author)
    file_create(project=project, path="/hours.txt", content="opening hours\n", author=author)
    return project


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)], ids=["wide", "phone"])
def test_a_search_result_opens_its_file_at_its_line(
    page: Page, live_server, browser_user: User, size: tuple[int, int]
) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    project = _project(browser_user)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#editor-form[data-path='/index.html'] .ace_content", state="attached")

    page.keyboard.press("Control+Shift+F")
    box = page.locator("#file-search-input")
    expect(box).to_be_focused()
    page.keyboard.type("opening hours")
    page.keyboard.press("Enter")

    hits = page.locator("#search-results .search-hit")
    expect(hits).to_have_count(2)
    expect(page.locator("#search-results .search-path")).to_have_text(["/about.html", "/hours.txt"])
    about = page.locator(f".search-hit[data-path='/about.html'][data-line='{MATCH_LINE}']")
    expect(about.locator("mark")).to_have_text("Opening HOURS")
    about.click()

    editor = page.locator("#editor-form[data-path='/about.html'] .ace_content")
    expect(editor).to_be_visible()
    page.wait_for_function(
        "(line) => { const e = builtitWorkspace.editor();"
        " return e && e.getCursorPosition().row === line - 1; }",
        arg=MATCH_LINE,
    )
    shown = page.evaluate(
        "() => { const e = builtitWorkspace.editor(); const row = e.getCursorPosition().row;"
        " return [e.session.getLine(row), e.renderer.getFirstVisibleRow() <= row"
        " && row <= e.renderer.getLastFullyVisibleRow()]; }"
    )
    assert shown == ["<p>Opening HOURS: eight to four</p>", True]


HOSTILE = (
    '<p class="intro" data-track="homepage-hero">Welcome to the shop, <img src="x" '
    'onerror="window.searched = true">find the <b>opening hours</b> below</p>\n'
)


def test_a_result_shows_its_match_in_sight_and_a_hostile_line_as_text(
    page: Page, live_server, browser_user: User
) -> None:
    """A match far along a line is highlighted where it can be seen in the
    narrow file panel; the line's markup stays text, never the page's."""
    project = _project(browser_user)
    author = Author.person(browser_user)
    file_create(project=project, path="/shop.html", content=HOSTILE, author=author)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.fill("#file-search-input", "opening hours")
    page.press("#file-search-input", "Enter")

    hit = page.locator(".search-hit[data-path='/shop.html']")
    mark = hit.locator("mark")
    expect(mark).to_have_text("opening hours")
    shown = hit.locator(".search-text").bounding_box()
    marked = mark.bounding_box()
    assert shown is not None
    assert marked is not None
    assert marked["x"] + marked["width"] <= shown["x"] + shown["width"], "cut off at the end"
    assert marked["y"] + marked["height"] <= shown["y"] + shown["height"], "cut off below"
    expect(hit).to_contain_text("…nd the <b>opening hours</b> below</p>")
    expect(hit).to_have_attribute("title", HOSTILE.strip())
    expect(page.locator("#search-results img, #search-results b")).to_have_count(0)
    assert page.evaluate("window.searched") is None
