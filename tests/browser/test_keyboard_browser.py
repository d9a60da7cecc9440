"""The workspace with the keyboard alone: the code editor never traps
Tab, Esc leaves it until the person goes back in, every control can be reached
in order, and no key pressed outside the editor changes a file."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from fakes.script import text
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_update
from tests.browser.conftest import ChatServer, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

# What has the focus, in words a failing assertion can show.
FOCUSED = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return "body";
  if (e.closest(".ace_editor")) return "editor:" + e.className.split(" ")[0];
  const name = e.getAttribute("aria-label") || e.textContent.trim().slice(0, 30);
  return e.matches("input, textarea, select") || !name ? "#" + e.id : name;
}"""

BROKEN_SCRIPT = "<script>notDefinedAnywhere();</script>\n</body>"


def _project(owner: User, *, broken: bool = False) -> Project:
    project = project_create(owner=owner, name="Keyboard site", starter=True)
    assert isinstance(project, Project)
    if broken:
        index = ProjectFile.objects.get(project=project, path="/index.html").content
        file_update(
            project=project,
            path="/index.html",
            content=index.replace("</body>", BROKEN_SCRIPT),
            author=Author.person(owner),
        )
    return project


def _open(page: Page, server: ChatServer, project: Project) -> str:
    """The workspace at 1440 by 900 with index.html in the editor; its text."""
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, server.url)
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    page.wait_for_selector("#editor-form[data-path='/index.html'] .ace_content")
    return str(page.evaluate("builtitWorkspace.text()"))


def _click_into_editor(page: Page) -> None:
    """A click in the text, and Ace's own second focus after it (a timer of its
    mousedown), which keys pressed as fast as a script presses them can overtake."""
    page.click(".ace_content")
    expect(page.locator("#editor-form .ace_text-input")).to_be_focused()
    page.evaluate("() => new Promise((done) => setTimeout(done))")


def _focused(page: Page) -> str:
    return str(page.evaluate(FOCUSED))


def _unchanged(page: Page, text: str) -> None:
    assert page.evaluate("builtitWorkspace.text()") == text
    assert page.evaluate("builtitWorkspace.isDirty()") is False


def test_esc_leaves_the_editor_and_tab_goes_on_to_the_preview(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    text = _open(page, chat_server, _project(browser_user))
    _click_into_editor(page)
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    # The control after the editor: the bar between it and the preview, then
    # the preview's address.
    expect(page.locator(".splitter")).to_be_focused()
    _unchanged(page, text)

    # Back over the editor (one stop, not its text), to the control before it.
    page.keyboard.press("Shift+Tab")
    assert _focused(page).startswith("editor:"), _focused(page)
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#editor-form button[type=submit]")).to_be_focused()
    # And forward again: the editor does not take Tab back by itself.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator(".splitter")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#preview-address")).to_be_focused()
    _unchanged(page, text)


def test_enter_on_the_editor_goes_in_and_esc_comes_out_again(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    text = _open(page, chat_server, _project(browser_user))
    page.focus("#editor-form button[type=submit]")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # goes in: adds no line
    _unchanged(page, text)
    page.keyboard.press("Tab")  # inside, Tab indents
    assert page.evaluate("builtitWorkspace.text()") != text
    assert page.evaluate("builtitWorkspace.isDirty()") is True
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")  # saves from the editor as a whole too
    expect(page.locator("#editor-status .status.ok")).to_contain_text("Saved")
    page.keyboard.press("Tab")
    expect(page.locator(".splitter")).to_be_focused()


def test_tab_reaches_every_control_in_order_and_changes_no_file(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user, broken=True)
    text = _open(page, chat_server, project)
    expect(page.locator("#preview-problems")).to_be_visible()
    expect(page.locator("#composer-input")).to_be_focused()

    wanted = ["Reload", "Pick", "problems", "Open ↗", "New link"]
    seen: list[str] = []
    for _ in range(150):
        page.keyboard.press("Tab")
        seen.append(_focused(page))
        if seen[-1] == "New link":
            break
    found = [
        next((index for index, name in enumerate(seen) if want in name), -1) for want in wanted
    ]
    assert -1 not in found, seen
    assert found == sorted(found), seen
    assert seen.index("#preview-address") < found[0], seen
    assert sum(name.startswith("editor:") for name in seen) == 1, seen
    _unchanged(page, text)
    assert ProjectFile.objects.get(project=project, path="/index.html").version == 2


def test_switches_say_their_state(page: Page, chat_server: ChatServer, browser_user: User) -> None:
    _open(page, chat_server, _project(browser_user))
    wrap = page.locator("[data-action='toggle-wrap']")
    off = wrap.evaluate("(e) => getComputedStyle(e).backgroundColor")
    expect(wrap).to_have_attribute("title", "Wrap long lines: off")
    wrap.click()
    expect(wrap).to_have_attribute("aria-pressed", "true")
    expect(wrap).to_have_attribute("title", "Wrap long lines: on")
    assert wrap.evaluate("(e) => getComputedStyle(e).backgroundColor") != off

    toggle = page.locator("[data-collapse='chat']")
    expect(toggle).to_have_attribute("title", "Hide the chat (more room for code and preview)")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(toggle).to_have_attribute("title", "Show the chat")
    expect(toggle).to_have_accessible_name("Show the chat")
    toggle.click()
    expect(toggle).to_have_accessible_name("Hide the chat")


# The focus ring's colour, laid over the panel behind it, against that panel
# (WCAG 2's 3:1 for what shows where the focus is).
RING_CONTRAST = """(e) => {
  const parse = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const channel = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const [r, g, b, a = 1] = parse(getComputedStyle(e).boxShadow);
  const back = parse(getComputedStyle(e.closest('.panel')).backgroundColor);
  const ring = [r, g, b].map((c, i) => a * c + (1 - a) * back[i]);
  const [hi, lo] = [luminance(ring), luminance(back)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_focus_ring_on_fields_stands_out(
    page: Page, chat_server: ChatServer, browser_user: User, theme: str
) -> None:
    _open(page, chat_server, _project(browser_user))
    page.evaluate(f"localStorage.setItem('builtit:theme', '{theme}')")
    page.reload()
    field = page.locator("#model-input")
    page.focus("#model-input")
    expect(field).to_be_focused()
    assert field.evaluate(RING_CONTRAST) >= 3


def test_a_skip_link_passes_every_turns_controls_to_the_message_box(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    _open(page, chat_server, project)
    for number in range(3):  # turns whose cards, diffs and chips are all Tab stops
        chat_server.fake.script(text(f"Done {number}."))
        page.fill("#composer-input", f"Change number {number}")
        page.press("#composer-input", "Enter")
        expect(page.locator("#chat-log article.turn .turn-footer.completed")).to_have_count(
            number + 1
        )
    page.focus("#conversation-select")

    stops = []
    for _ in range(10):
        page.keyboard.press("Tab")
        stops.append(_focused(page))
        if stops[-1] == "Skip to the message box":
            break
    assert stops[-1] == "Skip to the message box", stops
    page.keyboard.press("Enter")
    expect(page.locator("#composer-input")).to_be_focused()
