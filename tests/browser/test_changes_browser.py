"""A turn's changes in real Chromium: the summary under the turn, the
diff, and Undo (then Redo) followed by the editor and preview of this tab and of
a second one."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from fakes.script import ToolCallScript, text, tool_calls
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_update
from tests.browser.conftest import ChatServer, open_file, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

NEW_CSS = ".hero h1 {\n  color: tomato;\n}\n"


def _starter(owner: User) -> Project:
    project = project_create(owner=owner, name="Changes site", starter=True)
    assert isinstance(project, Project)
    return project


def _open(page: Page, server: ChatServer, project: Project) -> None:
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")


def _script_turn(server: ChatServer) -> None:
    edit = {"path": "index.html", "edits": [{"search": "Hello, world", "replace": "Fresh bread"}]}
    styles = ToolCallScript("update_file", {"path": "styles.css", "content": NEW_CSS})
    about = ToolCallScript("create_file", {"path": "about.html", "content": "<h1>About</h1>\n"})
    server.fake.script(
        tool_calls(ToolCallScript("edit_file", edit), styles, about), text("Changed three files.")
    )


def _send(page: Page, message: str) -> None:
    page.click("#composer-input")
    page.keyboard.type(message)
    page.keyboard.press("Enter")


def test_a_turns_changes_are_summarised_shown_undone_and_redone_in_every_tab(
    context, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    first, second = context.new_page(), context.new_page()
    sign_in(first, chat_server.url)
    _open(first, chat_server, project)
    _open(second, chat_server, project)
    open_file(second, "/index.html")
    _script_turn(chat_server)

    _send(first, "Make it a bakery")
    for page in (first, second):
        expect(page.locator("#chat-log .turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
        summary = page.locator("#chat-log .turn-changes summary")
        expect(summary).to_contain_text("3 files changed")
        expect(page.frame_locator("#preview-frame").locator("h1")).to_have_text("Fresh bread")
    files = first.locator("#chat-log .changed-files li")
    expect(files).to_have_count(3)
    expect(files.nth(0)).to_contain_text("edited")
    expect(files.nth(0)).to_contain_text("/index.html")
    expect(files.nth(0).locator(".line-counts")).to_have_text("+1 \u22121")
    expect(files.nth(2)).to_contain_text("created")
    expect(files.nth(2).locator(".line-counts")).to_have_text("+1 \u22120")
    expect(second.locator("#editor-form")).to_have_attribute("data-path", "/index.html")
    _editor_shows(second, "Fresh bread")

    # One file's diff: the changed line, removed and added; on this wide screen, side by side.
    dialog = first.locator("#changes-dialog")
    files.nth(0).locator("button.file-diff").click()
    expect(dialog).to_be_visible()
    expect(dialog.locator("table.diff-split")).to_have_count(1)
    expect(dialog.locator("td.code.removed")).to_contain_text("Hello, world")
    expect(dialog.locator("td.code.added")).to_contain_text("Fresh bread")
    dialog.locator("button", has_text="Inline").click()
    expect(dialog.locator("table.diff-inline td.code.added")).to_contain_text("Fresh bread")
    _close(first)
    # A new file's diff opens inline, even on this wide screen: no empty left half.
    files.nth(2).locator("button.file-diff").click()
    expect(dialog.locator("table.diff-inline")).to_have_count(1)
    expect(dialog.locator("table.diff-split")).to_have_count(0)
    expect(dialog.locator("button", has_text="Side by side")).to_have_count(0)
    _close(first)
    # The whole turn, one file after the other.
    first.locator("#chat-log button", has_text="View all changes").click()
    expect(dialog.locator(".file-diff-block")).to_have_count(3)
    _close(first)

    first.locator("#chat-log button", has_text="Undo this turn").click()
    expect(dialog).to_contain_text("Turn undone")
    for page in (first, second):
        expect(page.frame_locator("#preview-frame").locator("h1")).to_have_text("Hello, world")
        expect(page.locator("#file-tree .file-link", has_text="about.html")).to_have_count(0)
        expect(page.locator("#chat-log .turn-changes summary")).to_contain_text("Undone")
    _editor_shows(second, "Hello, world")
    expect(second.locator("#editor-status")).to_have_text(
        "Updated: an undo or restore changed this file."
    )
    assert "Hello, world" in ProjectFile.objects.get(project=project, path="/index.html").content
    assert not ProjectFile.objects.filter(project=project, path="/about.html").exists()

    dialog.locator("button", has_text="Redo").click()
    expect(dialog.locator("h2")).to_have_text("Turn redone")
    expect(dialog).to_contain_text("Redid the turn “Make it a bakery”: its changes to")
    expect(dialog.locator("button", has_text="Undo again")).to_be_visible()
    for page in (first, second):
        expect(page.frame_locator("#preview-frame").locator("h1")).to_have_text("Fresh bread")
        expect(page.locator("#file-tree .file-link", has_text="about.html")).to_have_count(1)
        expect(page.locator("#chat-log .turn-changes summary")).not_to_contain_text("Undone")
        expect(page.locator("#chat-log button", has_text="Undo this turn")).to_have_count(1)
    _editor_shows(second, "Fresh bread")


def test_a_diff_is_inline_on_a_phone_and_fits_the_screen(page, chat_server, browser_user) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    _script_turn(chat_server)
    _send(page, "Make it a bakery")
    expect(page.locator("#chat-log .turn-changes summary")).to_contain_text("3 files changed")
    page.locator("#chat-log .changed-files button.file-diff").first.click()
    dialog = page.locator("#changes-dialog")
    expect(dialog.locator("table.diff-inline")).to_have_count(1)
    box = dialog.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 390


def _editor_shows(page: Page, needle: str) -> None:
    page.wait_for_function(
        "(needle) => (window.builtitWorkspace.text() || '').includes(needle)", arg=needle
    )


def _close(page: Page) -> None:
    page.locator("#changes-dialog form.dialog-actions button").click()
    expect(page.locator("#changes-dialog")).to_be_hidden()


def test_undoing_a_turn_that_created_the_open_file_keeps_the_workspace(
    page, chat_server, browser_user
) -> None:
    """The file the editor shows goes with the undo: the editor says so, and the
    chat, the tree and the menu stay (the page had become that one line)."""
    project = project_create(owner=browser_user, name="Blank")
    assert isinstance(project, Project)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    index = ToolCallScript("create_file", {"path": "index.html", "content": "<h1>Hi</h1>\n"})
    chat_server.fake.script(tool_calls(index), text("Made it."))
    _send(page, "Make a page")
    expect(page.locator("#chat-log .turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    open_file(page, "/index.html")

    page.locator("#chat-log button", has_text="Undo this turn").click()
    expect(page.locator("#changes-dialog")).to_contain_text("Turn undone")
    _close(page)

    expect(page.locator("#editor-status .status.warning")).to_have_text(
        "An undo or restore deleted this file (or renamed it). Your text is still here: save "
        "it as a new file to keep it."
    )
    expect(page.locator("#editor-form")).to_have_attribute("data-path", "/index.html")
    expect(page.locator("#chat-log .turn-changes summary")).to_contain_text("Undone")
    expect(page.locator("#file-tree")).to_contain_text("No files yet")


def test_view_all_changes_opens_at_the_top_of_the_list(page, chat_server, browser_user) -> None:
    """A turn that made three long new files: the dialog opens on its title,
    not scrolled to its Close button at the end of the last file."""
    project = project_create(owner=browser_user, name="Blank")
    assert isinstance(project, Project)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    made = [
        ToolCallScript("create_file", {"path": name, "content": f"<p>{name} line</p>\n" * 60})
        for name in ("index.html", "about.html", "menu.html")
    ]
    chat_server.fake.script(tool_calls(*made), text("Made three pages."))
    _send(page, "Make three pages")
    expect(page.locator("#chat-log .turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))

    page.locator("#chat-log button", has_text="View all changes").focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#changes-dialog")
    title = dialog.locator("h2")
    expect(title).to_have_text("What “Make three pages” changed")
    expect(title).to_be_focused()
    expect(title).to_be_in_viewport()
    assert dialog.evaluate("(d) => d.scrollTop") == 0
    expect(dialog.locator(".file-diff-block")).to_have_count(3)
    page.keyboard.press("Escape")
    expect(page.locator("#chat-log button", has_text="View all changes")).to_be_focused()


LONG_BEFORE = (
    "<p>" + "Our bakers start at four, and the first loaves come out at six. " * 5 + "</p>\n"
)
LONG_AFTER = LONG_BEFORE.replace("first loaves", "first warm loaves")


@pytest.mark.parametrize("width", [1440, 768, 390])
def test_a_side_by_side_diff_fits_the_history_dialog(
    page: Page, live_server, browser_user: User, width: int
) -> None:
    """Both halves of a change to a long line show at once, without scrolling
    the dialog or the diff sideways; on a phone the diff is inline only."""
    project = _starter(browser_user)
    author = Author.person(browser_user)
    file_create(project=project, path="/story.html", content=LONG_BEFORE, author=author)
    file_update(project=project, path="/story.html", content=LONG_AFTER, author=author)
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    if width < 1000:
        page.click("[data-show-panel=files]")
    open_file(page, "/story.html")
    page.locator("[data-action=show-history]").click()
    dialog = page.locator("#history-dialog")
    dialog.locator(".revision-list li").first.get_by_role("button", name="Diff").click()
    expect(dialog.locator("table.diff")).to_have_count(1)
    side_by_side = dialog.locator("button", has_text="Side by side")
    if width < 600:
        expect(side_by_side).to_be_hidden()
        expect(dialog.locator("table.diff-inline")).to_have_count(1)
    elif not dialog.locator("table.diff-split").count():
        side_by_side.click()
    if width >= 600:
        # The inline diff stays until the side-by-side one has come: measure that one.
        expect(dialog.locator("table.diff-split")).to_have_count(1)
    table = dialog.locator("table.diff")
    expect(table).to_contain_text("first warm loaves")
    assert dialog.evaluate("(d) => d.scrollWidth - d.clientWidth") == 0
    if width >= 600:
        # Nor the diff within it: a long line wraps in its half.
        assert (
            dialog.evaluate(
                "(d) => { const s = d.querySelector('.diff-scroll');"
                " return s.scrollWidth - s.clientWidth; }"
            )
            == 0
        )
        box = dialog.bounding_box()
        assert box is not None
        for cell in (dialog.locator("td.code.removed"), dialog.locator("td.code.added")):
            shown = cell.bounding_box()
            assert shown is not None
            assert box["x"] <= shown["x"]
            assert shown["x"] + shown["width"] <= box["x"] + box["width"]
