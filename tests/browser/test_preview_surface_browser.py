"""The preview as the main surface, in Chromium: the splitter between
the editor and the preview (keys, drag, remembered), full screen, device widths,
the site as it was after a turn or at a file's version (nothing written until
Restore, which works from there), the chat beside one other panel on a tablet,
and the History dialog's Restore on a phone. Screenshots go to test-artifacts/."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import FloatRect, Frame, Locator, Page, expect

from fakes.script import ToolCallScript, text, tool_calls
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_update
from tests.browser.conftest import ARTIFACTS, ChatServer, assert_fits, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

INDEX = """<!doctype html>
<html lang="en">
<head><title>Home</title></head>
<body style="min-height: 3000px">
<h1>Home, first draft</h1>
<p><a id="to-about" href="about.html">About us</a></p>
</body>
</html>
"""
ABOUT = '<!doctype html><title>About</title><body style="min-height: 3000px"><h1>About us</h1>\n'


def _site(owner: User) -> Project:
    project = project_create(owner=owner, name="Two pages")
    assert isinstance(project, Project)
    for path, content in (("/index.html", INDEX), ("/about.html", ABOUT)):
        result = file_create(
            project=project, path=path, content=content, author=Author.person(owner)
        )
        assert isinstance(result, FileWrite), result
    return project


def _open(page: Page, url: str, project: Project) -> None:
    sign_in(page, url)
    page.goto(f"{url}/projects/{project.pk}/")
    page.frame_locator("#preview-frame").locator("h1").wait_for()


def _box(page: Page, selector: str) -> FloatRect:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"preview-{name}.png"))


def _live_frame(page: Page) -> Frame:
    handle = page.locator("#preview-frame").element_handle()
    assert handle is not None
    frame = handle.content_frame()
    assert frame is not None
    return frame


def test_the_splitter_gives_the_preview_room_by_keyboard_and_drag_and_is_remembered(
    page: Page, live_server, browser_user: User
) -> None:
    project = _site(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    _open(page, live_server.url, project)
    start = _box(page, "#preview-frame")
    assert start["height"] >= 480, "at 1440x900 the preview had 380 px of height"
    _shot(page, "1440")
    splitter = page.locator(".splitter")
    expect(splitter).to_have_attribute("aria-orientation", "horizontal")

    splitter.focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    taller = _box(page, "#preview-frame")
    assert taller["height"] > start["height"] + 50
    assert _box(page, "#editor-panel")["height"] < 300

    grip = splitter.bounding_box()
    assert grip is not None
    x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y + 250, steps=5)
    page.mouse.up()
    dragged = _box(page, "#preview-frame")
    assert dragged["height"] < taller["height"] - 200
    assert _box(page, "#editor-panel")["height"] > 400

    page.reload()
    page.frame_locator("#preview-frame").locator("h1").wait_for()
    again = _box(page, "#preview-frame")
    assert abs(again["height"] - dragged["height"]) < 3, "remembered in this browser"

    # From 1600 px the two are side by side: the same separator, across.
    page.set_viewport_size({"width": 1700, "height": 900})
    expect(splitter).to_have_attribute("aria-orientation", "vertical")
    side = _box(page, "#preview-frame")
    splitter.focus()
    page.keyboard.press("ArrowLeft")
    assert _box(page, "#preview-frame")["width"] > side["width"] + 30


def test_full_screen_covers_the_window_and_esc_leaves_with_the_page_kept(
    page: Page, live_server, browser_user: User
) -> None:
    project = _site(browser_user)
    _open(page, live_server.url, project)
    page.frame_locator("#preview-frame").locator("#to-about").click()
    page.frame_locator("#preview-frame").locator("h1", has_text="About us").wait_for()
    frame = _live_frame(page)
    frame.evaluate("() => { window.kept = 'the same page'; window.scrollTo(0, 400); }")
    full = page.locator("[data-action='preview-full']")

    full.click()
    expect(full).to_have_attribute("aria-pressed", "true")
    box = _box(page, "#preview-frame")
    assert box["width"] >= 1366 - 1
    assert box["height"] >= 768 * 0.85
    assert page.evaluate("document.getElementById('chat-panel').inert"), "the rest is out of reach"
    _shot(page, "full-screen")
    assert frame.evaluate("() => [window.kept, window.scrollY]") == ["the same page", 400]

    page.keyboard.press("Escape")
    expect(full).to_have_attribute("aria-pressed", "false")
    expect(full).to_be_focused()
    assert _box(page, "#preview-frame")["width"] < 1000
    assert not page.evaluate("document.getElementById('chat-panel').inert")
    assert frame.evaluate("() => [window.kept, window.scrollY]") == ["the same page", 400]

    full.click()
    expect(full).to_have_attribute("aria-pressed", "true")
    full.click()
    expect(full).to_have_attribute("aria-pressed", "false")


def test_device_widths_set_the_frames_width_and_shrink_it_to_fit(
    page: Page, live_server, browser_user: User
) -> None:
    project = _site(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    _open(page, live_server.url, project)
    frame = _live_frame(page)
    pane = _box(page, ".preview-stage")

    page.click("[data-preview-width='phone']")
    frame.wait_for_function("() => window.innerWidth === 390")
    expect(page.locator("[data-preview-width='phone']")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#preview-width-note")).to_have_text("390 px")
    shown = _box(page, "#preview-frame")
    assert abs(shown["width"] - 390) < 1
    assert abs(shown["x"] + shown["width"] / 2 - (pane["x"] + pane["width"] / 2)) < 2, "centred"
    _shot(page, "phone-width")

    page.click("[data-preview-width='tablet']")
    frame.wait_for_function("() => window.innerWidth === 768")
    assert abs(_box(page, "#preview-frame")["width"] - 768) < 1

    # A pane narrower than a tablet: the page still lays out at 768 px, shown smaller.
    page.set_viewport_size({"width": 1100, "height": 900})
    expect(page.locator("#preview-width-note")).to_contain_text("768 px at")
    assert _box(page, "#preview-frame")["width"] <= _box(page, ".preview-stage")["width"] + 1
    assert frame.evaluate("() => window.innerWidth") == 768

    page.click("[data-preview-width='desktop']")
    stage = _box(page, ".preview-stage")
    frame.wait_for_function(
        "(width) => Math.abs(window.innerWidth - width) < 2", arg=stage["width"]
    )
    expect(page.locator("#preview-width-note")).to_be_hidden()


def _starter(owner: User) -> Project:
    project = project_create(owner=owner, name="Changes site", starter=True)
    assert isinstance(project, Project)
    return project


def _turn(page: Page, server: ChatServer, message: str, search: str, replace: str) -> None:
    edit = {"path": "index.html", "edits": [{"search": search, "replace": replace}]}
    server.fake.script(tool_calls(ToolCallScript("edit_file", edit)), text("Changed it."))
    done = page.locator("#chat-log .turn-footer.completed").count()
    page.click("#composer-input")
    page.keyboard.type(message)
    page.keyboard.press("Enter")
    expect(page.locator("#chat-log .turn-footer.completed")).to_have_count(done + 1)


def _index(project: Project) -> str:
    return ProjectFile.objects.get(project=project, path="/index.html").content


def test_a_turn_is_previewed_as_it_was_and_restored_from_there(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    _turn(page, chat_server, "Make it a bakery", "Hello, world", "Fresh bread")
    _turn(page, chat_server, "Warm rolls instead", "Fresh bread", "Warm rolls")
    live = page.frame_locator("#preview-frame").locator("h1")
    expect(live).to_have_text("Warm rolls")

    first = page.locator("#chat-log article.turn").nth(0)
    first.locator(".restore-row button", has_text="Preview").click()
    banner = page.locator("#preview-past .past-banner")
    expect(banner).to_contain_text("Viewing the site as it was after “Make it a bakery”")
    expect(page.frame_locator("#preview-past-frame").locator("h1")).to_have_text("Fresh bread")
    expect(page.locator("#preview-frame")).to_be_hidden()
    expect(page.locator("#preview-address")).to_be_hidden()
    _shot(page, "as-it-was-1440")
    assert "Warm rolls" in _index(project), "nothing is written by looking"
    expect(live).to_have_text("Warm rolls")

    banner.locator("button", has_text="Restore the project to here").click()
    dialog = page.locator("#changes-dialog")
    dialog.locator("button", has_text=re.compile(r"^Restore 1 file$")).click()
    expect(dialog).to_contain_text("Project restored")
    expect(banner).to_have_count(0)
    expect(page.locator("#preview-frame")).to_be_visible()
    expect(live).to_have_text("Fresh bread")
    assert "Fresh bread" in _index(project)


def test_on_a_phone_the_preview_bar_is_one_row_without_width_buttons(
    page: Page, live_server, browser_user: User
) -> None:
    """The pane is phone-wide already: no width buttons (a width picked on a
    wider screen waits for one), and Open and New link under "More", reached
    with the keyboard, so the bar keeps to one row."""
    project = _site(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    _open(page, live_server.url, project)
    page.click("[data-preview-width='tablet']")
    frame = _live_frame(page)
    frame.wait_for_function("() => window.innerWidth === 768")

    page.set_viewport_size({"width": 390, "height": 844})
    page.click("[data-show-panel='preview']")
    bar = page.locator(".preview-toolbar")
    expect(page.locator(".preview-widths")).to_be_hidden()
    expect(page.locator("#preview-width-note")).to_be_hidden()
    stage = _box(page, ".preview-stage")
    frame.wait_for_function(
        "(width) => Math.abs(window.innerWidth - width) < 2", arg=stage["width"]
    )
    shown = [
        control
        for control in bar.locator("> *").all()
        if control.is_visible() and control.bounding_box() is not None
    ]
    tops = {round(_top(control)) for control in shown}
    assert len(tops) == 1, f"one row: {tops}"
    assert_fits(390, *shown)
    _shot(page, "bar-390")

    more = bar.get_by_role("button", name="More")
    more.focus()
    page.keyboard.press("Enter")
    expect(more).to_have_attribute("aria-expanded", "true")
    expect(page.locator("#preview-open")).to_be_focused()
    page.keyboard.press("Tab")
    expect(bar.get_by_role("button", name="New link")).to_be_focused()
    assert_fits(390, page.locator("#preview-more"))
    page.keyboard.press("Escape")
    expect(page.locator("#preview-more")).to_be_hidden()
    expect(more).to_be_focused()

    page.set_viewport_size({"width": 1440, "height": 900})  # the width picked is back
    expect(page.locator("[data-preview-width='tablet']")).to_have_attribute("aria-pressed", "true")
    frame.wait_for_function("() => window.innerWidth === 768")
    expect(bar.get_by_role("button", name="More")).to_be_hidden()
    expect(page.locator("#preview-open")).to_be_visible()


def _top(control: Locator) -> float:
    box = control.bounding_box()
    assert box is not None
    return float(box["y"] + box["height"] / 2)


def test_a_past_shown_goes_back_to_live_when_the_site_changes(
    context, chat_server: ChatServer, browser_user: User
) -> None:
    """A turn, then another tab's save, change the site while a past version
    shows: each time the preview is the live site again, and says why."""
    project = _starter(browser_user)
    page, other = context.new_page(), context.new_page()
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    _turn(page, chat_server, "Make it a bakery", "Hello, world", "Fresh bread")
    first = page.locator("#chat-log article.turn").nth(0)
    banner = page.locator("#preview-past .past-banner")
    note = page.locator("#preview-note")
    live = page.frame_locator("#preview-frame").locator("h1")

    first.locator(".restore-row button", has_text="Preview").click()
    expect(banner).to_be_visible()
    expect(page.locator("#preview-past-frame")).to_have_attribute("src", re.compile(r"/@\d+-"))
    _turn(page, chat_server, "Warm rolls instead", "Fresh bread", "Warm rolls")
    expect(banner).to_have_count(0)
    expect(page.locator("#preview-past-frame")).to_be_hidden()
    expect(live).to_have_text("Warm rolls")
    expect(note.locator(".preview-note-text")).to_have_text(
        "Back to the live site: the assistant changed it."
    )
    expect(page.locator("#preview-address")).to_be_visible()

    first.locator(".restore-row button", has_text="Preview").click()
    expect(banner).to_be_visible()
    expect(note).to_be_hidden()
    other.goto(f"{chat_server.url}/projects/{project.pk}/")
    other.wait_for_selector("#editor-form[data-path='/index.html'] .ace_content")
    other.evaluate("() => builtitWorkspace.editor().find('Warm rolls')")
    other.focus("#editor-form .ace_text-input")
    other.keyboard.type("Cinnamon buns")
    other.keyboard.press("Control+s")
    expect(banner).to_have_count(0)
    expect(live).to_have_text("Cinnamon buns")
    expect(note.locator(".preview-note-text")).to_have_text(
        "Back to the live site: it was saved in another tab."
    )
    _shot(page, "back-to-live-1440")
    note.get_by_role("button", name="Close this note").click()
    expect(note).to_be_hidden()


def test_on_a_phone_history_shows_restore_and_previews_a_version(
    page: Page, live_server, browser_user: User
) -> None:
    project = _site(browser_user)
    changed = INDEX.replace("first draft", "second draft")
    result = file_update(
        project=project, path="/index.html", content=changed, author=Author.person(browser_user)
    )
    assert isinstance(result, FileWrite), result
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.click("[data-show-panel='files']")
    page.click("#file-tree .file-link[data-path='/index.html']")
    page.wait_for_selector("#editor-form[data-path='/index.html']")
    page.click("[data-show-panel='editor']")
    page.click("[data-action='show-history']")
    dialog = page.locator("#history-dialog")
    expect(dialog).to_be_visible()
    versions = dialog.locator(".revision-list li")
    expect(versions).to_have_count(2)
    for number in range(2):
        restore = versions.nth(number).locator("button", has_text="Restore")
        expect(restore).to_be_visible()
        assert_fits(390, restore, versions.nth(number).locator("button", has_text="Preview"))
    _shot(page, "history-390")

    versions.nth(1).locator("button", has_text="Preview").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("[data-show-panel='preview']")).to_have_attribute("aria-pressed", "true")
    banner = page.locator("#preview-past .past-banner")
    expect(banner).to_contain_text("with /index.html as it was")
    expect(page.frame_locator("#preview-past-frame").locator("h1")).to_have_text(
        "Home, first draft"
    )
    assert_fits(390, banner.locator("button", has_text="Restore this version"))
    _shot(page, "as-it-was-390")
    assert "second draft" in _index(project)

    banner.locator("button", has_text="Back to the live preview").click()
    expect(page.locator("#preview-past-frame")).to_be_hidden()
    expect(page.frame_locator("#preview-frame").locator("h1")).to_have_text("Home, second draft")


def test_on_a_tablet_the_chat_stays_beside_the_panel_picked(
    page: Page, live_server, browser_user: User
) -> None:
    project = _site(browser_user)
    page.set_viewport_size({"width": 800, "height": 1000})
    _open(page, live_server.url, project)
    expect(page.locator("[data-show-panel='chat']")).to_be_hidden()
    for name, selector in (("preview", "#preview-pane"), ("editor", "#editor-panel")):
        if name != "preview":
            page.click(f"[data-show-panel='{name}']")
        expect(page.locator(selector)).to_be_visible()
        expect(page.locator("#chat-panel")).to_be_visible()
        expect(page.locator(f"[data-show-panel='{name}']")).to_have_attribute(
            "aria-pressed", "true"
        )
        chat, other = _box(page, "#chat-panel"), _box(page, selector)
        assert chat["x"] + chat["width"] <= other["x"], "side by side"
        assert chat["width"] >= 270
        assert other["width"] >= 400
        assert_fits(800, page.locator(selector))
        _shot(page, f"800-{name}")
    expect(page.locator("#preview-pane")).to_be_hidden()
