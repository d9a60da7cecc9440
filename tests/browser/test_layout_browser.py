"""The workspace on every screen, in Chromium at a phone, a tablet and
a laptop size: nothing in the top bar overlaps, every panel can be reached (on a
tablet beside the chat, issue 31), the file tree is wide enough to read, and a
wide screen's panels can be resized and hidden, remembered after a reload.
Screenshots of each are kept in test-artifacts/ for a person to look at."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from projects.lifecycle import project_create
from projects.models import Project
from tests.browser.conftest import ARTIFACTS, ChatServer, open_file, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

SIZES = [(360, 740), (390, 844), (768, 1024), (1440, 900)]
PANELS = {
    "chat": "#chat-panel",
    "files": "#files-panel",
    "editor": "#editor-panel",
    "preview": "#preview-pane",
}
TOP_BAR_PARTS = """() => {
  const parts = [...document.querySelectorAll(
    '.topbar .brand, .topbar h1, .topbar details.rename > summary,'
    + ' .topbar .project-title > .button, .topbar .account > *, .topbar .account-menu > summary')];
  const shown = (el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden';
  return parts.filter(shown).map((el) => {
    const r = el.getBoundingClientRect();
    return {text: el.textContent.trim().slice(0, 20),
            left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  });
}"""


def _project(owner: User) -> Project:
    project = project_create(owner=owner, name="A site with a rather long name", starter=True)
    assert isinstance(project, Project)
    return project


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layout-{name}.png"))


def _overlapping(parts: list[dict[str, object]]) -> list[tuple[str, str]]:
    found = []
    for index, one in enumerate(parts):
        for other in parts[index + 1 :]:
            apart = (
                one["right"] <= other["left"] + 0.5  # type: ignore[operator]
                or other["right"] <= one["left"] + 0.5  # type: ignore[operator]
                or one["bottom"] <= other["top"] + 0.5  # type: ignore[operator]
                or other["bottom"] <= one["top"] + 0.5  # type: ignore[operator]
            )
            if not apart:
                found.append((str(one["text"]), str(other["text"])))
    return found


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_panel_is_reachable_and_nothing_overlaps(
    page: Page, chat_server: ChatServer, browser_user: User, width: int, height: int
) -> None:
    project = _project(browser_user)
    page.set_viewport_size({"width": width, "height": height})
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")

    parts = page.evaluate(TOP_BAR_PARTS)
    assert len(parts) >= 3, parts
    assert _overlapping(parts) == []
    assert all(part["right"] <= width for part in parts), parts
    narrow = width < 1000
    expect(page.locator(".panel-tabs")).to_be_visible() if narrow else expect(
        page.locator(".panel-tabs")
    ).to_be_hidden()
    tablet = 768 <= width < 1000
    if narrow:
        expect(page.locator("#composer-input")).to_be_visible()
        for name, selector in PANELS.items():
            if tablet and name == "chat":
                continue  # always shown, beside the panel picked
            page.click(f"[data-show-panel='{name}']")
            panel = page.locator(selector)
            expect(panel).to_be_visible()
            box = panel.bounding_box()
            assert box is not None
            assert box["x"] >= 0
            assert box["x"] + box["width"] <= width + 0.5
            if tablet:
                expect(page.locator("#composer-input")).to_be_visible()
                assert box["width"] >= width * 0.5, "the chat and one other panel"
            else:
                assert box["width"] >= width * 0.9, "one panel at a time fills the screen"
            _shot(page, f"{width}x{height}-{name}")
        page.click("[data-show-panel='files']")
        open_file(page, "/index.html")
        expect(page.locator("#editor-panel")).to_be_visible()  # opening a file shows it
        menu = page.locator(".account-menu > summary")
        menu.click()
        expect(page.locator(".account-menu .menu-items a", has_text="Settings")).to_be_visible()
        expect(page.locator(".account-menu .menu-items a", has_text="Download ZIP")).to_be_visible()
        _shot(page, f"{width}x{height}-menu")
    else:
        for selector in PANELS.values():
            expect(page.locator(selector)).to_be_visible()
        _shot(page, f"{width}x{height}")
    if narrow:
        page.keyboard.press("Escape")
        page.click("body", position={"x": 5, "y": height - 5})
        page.click("[data-show-panel='files']")
    tree = page.locator("#file-tree").bounding_box()
    assert tree is not None
    assert tree["width"] >= 200


def test_wide_panels_resize_and_hide_and_follow_the_person(
    browser, page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    chat = page.locator("#chat-panel")
    before = chat.bounding_box()
    assert before is not None
    handle = page.locator(".resizer[data-resize='chat']").bounding_box()
    assert handle is not None
    page.mouse.move(handle["x"] + 3, handle["y"] + 200)
    page.mouse.down()
    page.mouse.move(handle["x"] + 103, handle["y"] + 200, steps=5)
    with page.expect_response("**/preferences/"):
        page.mouse.up()
    wider = chat.bounding_box()
    assert wider is not None
    assert wider["width"] > before["width"] + 80

    with page.expect_response("**/preferences/"):
        page.click("[data-collapse='files']")
    files = page.locator("#files-panel").bounding_box()
    assert files is not None
    assert files["width"] < 60
    expect(page.locator("#file-tree")).to_be_hidden()

    # Another browser, the same person: the same workspace.
    elsewhere = browser.new_context(viewport={"width": 1440, "height": 900})
    other = elsewhere.new_page()
    sign_in(other, chat_server.url)
    other.goto(f"{chat_server.url}/projects/{project.pk}/")
    other.wait_for_selector("#chat-signal[data-signal]", state="attached")
    again = other.locator("#chat-panel").bounding_box()
    assert again is not None
    assert abs(again["width"] - wider["width"]) < 2, "the width is remembered"
    expect(other.locator("#file-tree")).to_be_hidden()
    expect(other.locator("#composer-input")).to_be_focused()  # the page opens ready to talk
    other.click("[data-collapse='files']")
    expect(other.locator("#file-tree")).to_be_visible()
    elsewhere.close()


def test_the_editor_wraps_lines_on_request_and_esc_leaves_it(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    open_file(page, "/index.html")
    wrap = page.locator("[data-action='toggle-wrap']")
    expect(wrap).to_have_attribute("aria-pressed", "false")
    wrap.click()
    expect(wrap).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("builtitWorkspace.editor().session.getUseWrapMode()") is True
    page.click(".ace_content")
    page.evaluate("() => new Promise((done) => setTimeout(done))")  # Ace's own second focus
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('ace_text-input')")
    page.keyboard.press("Escape")  # out of the text: the editor as a whole, then on
    expect(page.locator("#editor-form .ace_scroller")).to_be_focused()
    page.keyboard.press("Tab")  # on: the bar between the editor and the preview
    expect(page.locator(".splitter")).to_be_focused()


def test_dark_mode_follows_the_switch(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    toggle = page.locator(".account [data-action='cycle-theme']")
    expect(toggle).to_contain_text("auto")
    toggle.click()  # light
    toggle.click()  # dark
    expect(toggle).to_contain_text("dark")
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(15, 17, 21)"
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    _shot(page, "dark")


# Every visible text of ours against the background it is drawn on (WCAG 2
# contrast; 3:1 for large text). The code editor's colours are its theme's and
# the preview is the person's own site, so both are left out.
CONTRAST = """() => {
  const channel = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const parse = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = (el) => {
    for (let node = el; node; node = node.parentElement) {
      const [r, g, b, a = 1] = parse(getComputedStyle(node).backgroundColor);
      if (a > 0.5) return [r, g, b];
    }
    return parse(getComputedStyle(document.documentElement).backgroundColor);
  };
  const low = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.ace_editor, iframe, .visually-hidden, [hidden], .ws')) continue;
    const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!text || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || Number(style.opacity) < 0.5) continue;
    const fore = luminance(parse(style.color)), back = luminance(background(el));
    const ratio = (Math.max(fore, back) + 0.05) / (Math.min(fore, back) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const name = `${el.tagName}.${el.className} "${el.textContent.trim().slice(0, 30)}"`;
    if (ratio < (large ? 3 : 4.5)) low.push(`${name} ${ratio.toFixed(2)}`);
  }
  return low;
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_contrast_is_at_least_4_5_to_1(
    page: Page, chat_server: ChatServer, browser_user: User, theme: str
) -> None:
    project = _project(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    page.evaluate(f"localStorage.setItem('builtit:theme', '{theme}')")
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    assert page.evaluate(CONTRAST) == []
