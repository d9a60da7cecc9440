"""The preview talks back, in Chromium: a page's errors and failed
loads show as problems with their files and lines, "Fix with the assistant"
puts them in the message box for the person to send, the address box follows
pushState, a picked element goes with the next message, and a page flooding
the workspace with messages neither breaks it nor gets anything done. What
the model gets is what the person chose and sees: one pick per
press of Pick, none without it; an element as its chip shows it; a problem as
the panel lists it."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Frame, Page, expect

from chat.models import Message
from fakes.script import text
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_create
from tests.browser.conftest import ChatServer, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

PAGE = """<!doctype html>
<html lang="en">
<head><title>Broken</title><link rel="stylesheet" href="missing.css"></head>
<body>
  <h1 id="title">Hello</h1>
  <p class="lead" data-note="ATTRIBUTE-SECRET">Some
     text<span style="display:none">HIDDEN-CHILD-SECRET</span></p>
  <script src="app.js"></script>
</body>
</html>
"""
SCRIPT = "// the page's script\nundefinedFunction();\n"


def _project(owner: User) -> Project:
    project = project_create(owner=owner, name="Bridge", starter=False)
    assert isinstance(project, Project)
    author = Author.person(owner)
    for path, content in (("/index.html", PAGE), ("/app.js", SCRIPT)):
        written = file_create(project=project, path=path, content=content, author=author)
        assert isinstance(written, FileWrite)
    return project


def _open(page: Page, server: ChatServer, project: Project) -> Frame:
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    frame = page.frame_locator("#preview-frame")
    expect(frame.locator("#title")).to_have_text("Hello")
    found = next(f for f in page.frames if "/preview/" in f.url)
    return found


def _chip_words(page: Page, chips: str) -> list[str]:
    """What each chip says (without its remove button)."""
    return list(
        page.eval_on_selector_all(chips, "items => items.map((i) => i.firstChild.textContent)")
    )


def _last_user_content(server: ChatServer) -> str:
    (request,) = server.fake.completions[-1:]
    messages = request.json["messages"]
    return str(next(m["content"] for m in reversed(messages) if m["role"] == "user"))


def test_problems_are_listed_and_fixed_with_the_assistant(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    clean = project_create(owner=browser_user, name="Clean", starter=True)
    assert isinstance(clean, Project)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{clean.pk}/")
    expect(page.frame_locator("#preview-frame").locator("h1")).to_have_text("Hello, world")
    expect(page.locator("#preview-problems")).to_be_hidden()  # no problems, no badge
    project = _project(browser_user)
    _open(page, chat_server, project)

    badge = page.locator("#preview-problems")
    expect(badge).to_be_visible()
    expect(badge.locator(".problems-count")).to_have_text("2")
    badge.click()
    items = page.locator("#problems-panel .problems-list li")
    expect(items).to_have_count(2)
    expect(page.locator("#problems-panel")).to_contain_text("missing.css (asked for by index.html)")
    expect(page.locator("#problems-panel")).to_contain_text("undefinedFunction is not defined")
    expect(page.locator("#problems-panel button", has_text="app.js:2")).to_have_count(1)

    page.locator("#problems-panel button", has_text="app.js:2").click()
    expect(page.locator("#editor-form")).to_have_attribute("data-path", "/app.js")
    page.wait_for_function(
        "() => builtitWorkspace.editor() && builtitWorkspace.editor().getCursorPosition().row === 1"
    )

    chat_server.fake.script(text("Fixed: undefinedFunction is now defined."))
    page.locator("[data-action='fix-problems']").click()
    # As under the site check: the box is filled, ready to send or change; the person sends.
    box = page.locator("#composer-input")
    expect(box).to_have_value("Fix the problems the preview shows.")
    expect(box).to_be_focused()
    assert box.evaluate("(b) => [b.selectionStart, b.selectionEnd]") == [35, 35], "at the end"
    expect(page.locator("#composer-chips li")).to_have_count(2)
    expect(page.locator("#chat-log article.turn")).to_have_count(0)
    assert not Message.objects.exists(), "nothing is sent before the person sends it"
    page.keyboard.press("Enter")
    turn = page.locator("#chat-log article.turn").last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    expect(turn.locator(".bubble-chips li")).to_have_count(2)
    expect(turn.locator(".bubble-chips")).to_contain_text("Error in app.js:2")
    asked = _last_user_content(chat_server)
    assert asked.startswith("Fix the problems the preview shows.")
    assert "Context from the live preview" in asked
    # Each problem as the panel listed it, and nothing else: no stack.
    assert sorted(asked.splitlines()[3:]) == [
        "- Error at /app.js:2:1: Uncaught ReferenceError: undefinedFunction is not defined",
        # At the <link> that asked for it, not in a file that is not there.
        "- Failed to load at /index.html:3: /missing.css (asked for by index.html)",
    ]
    assert "at http" not in asked
    stored = Message.objects.get(role=Message.Role.USER)
    assert stored.content == "Fix the problems the preview shows.", "the words stay the person's"
    assert len(stored.metadata["attachments"]) == 2


def test_the_address_box_follows_push_state(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    frame = _open(page, chat_server, project)
    frame.evaluate("history.pushState({}, '', 'menu/today?day=1#top')")
    expect(page.locator("#preview-address")).to_have_value("menu/today?day=1#top")


def test_a_picked_element_goes_with_the_message(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    expect(page.locator("#pick-hint")).to_be_hidden()
    page.locator("[data-action='pick-element']").click()
    expect(page.locator("[data-action='pick-element']")).to_have_attribute("aria-pressed", "true")
    # Pick mode says what to do and how to leave it.
    expect(page.locator("#pick-hint")).to_be_visible()
    expect(page.locator("#pick-hint")).to_contain_text("Click an element in the preview")
    expect(page.locator("#pick-hint")).to_contain_text("Esc to cancel")
    frame = page.frame_locator("#preview-frame")
    # The page has heard it (its bridge, a script of its own, may still be loading).
    expect(frame.locator("html")).to_have_css("cursor", "crosshair")
    frame.locator("p.lead").hover()
    frame.locator("p.lead").click()
    chip = page.locator("#composer-chips li")
    expect(chip).to_have_count(1)
    # What it is, the text it shows (not its hidden child), where, on which page.
    assert _chip_words(page, "#composer-chips li") == ["<p> “Some text” in index.html"]
    expect(chip).to_have_attribute("title", "Selector: body > p")  # the selector, on asking
    expect(page.locator("[data-action='pick-element']")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#pick-hint")).to_be_hidden()
    # The click chose; it did not reach the page.
    chat_server.fake.script(text("Made it bigger."))
    page.fill("#composer-input", "make this bigger")
    page.click("#composer-send")
    expect(page.locator("#chat-log .turn-footer").last).to_have_class(re.compile(r"\bcompleted\b"))
    asked = _last_user_content(chat_server)
    assert asked.splitlines()[-1] == (
        '- The person picked an element on /index.html: <p>, selector "body > p", '
        'its text "Some text"'
    )
    for hidden in ("ATTRIBUTE-SECRET", "HIDDEN-CHILD-SECRET", "lead", "data-note", "<span"):
        assert hidden not in asked
    expect(chip).to_have_count(0)
    assert _chip_words(page, "#chat-log .bubble-chips li") == ["<p> “Some text” in index.html"], (
        "the transcript's chip is the composer's"
    )


POST_PICKS = """(count) => {
  for (let i = 1; i <= count; i++) {
    const picked = {selector: '#title', tag: 'h1', text: 'Pick ' + i, page: location.pathname};
    parent.postMessage({builtitPreview: {picked}}, '*');
  }
}"""


def _posted(page: Page, frame: Frame, script: str, arg: object) -> None:
    """The page runs `script`; returns once the workspace has dropped at least one
    of its messages (messages are handled in order, so all of them by then)."""
    before = page.evaluate("builtitBridge.dropped()")
    frame.evaluate(script, arg)
    page.wait_for_function("(before) => builtitBridge.dropped() > before", arg=before)


def test_a_page_attaches_nothing_by_itself_and_one_pick_per_press(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    frame = _open(page, chat_server, project)
    pick = page.locator("[data-action='pick-element']")
    chips = page.locator("#composer-chips li")

    _posted(page, frame, POST_PICKS, 1)  # no one pressed Pick
    assert page.evaluate("builtitChat.attachments()") == []
    expect(chips).to_have_count(0)

    pick.click()
    expect(pick).to_have_attribute("aria-pressed", "true")
    frame.evaluate("document.querySelector('#title').click()")  # the page clicks, not the person
    expect(chips).to_have_count(0)
    expect(pick).to_have_attribute("aria-pressed", "true")
    _posted(page, frame, POST_PICKS, 2)  # Pick is on: the page sends two picks
    assert _chip_words(page, "#composer-chips li") == ["<h1> “Pick 1” in index.html"]
    expect(pick).to_have_attribute("aria-pressed", "false")
    _posted(page, frame, POST_PICKS, 1)  # and more once it is off
    expect(chips).to_have_count(1)

    chat_server.fake.script(text("Looked."))
    page.fill("#composer-input", "what is this?")
    page.click("#composer-send")
    expect(page.locator("#chat-log .turn-footer").last).to_have_class(re.compile(r"\bcompleted\b"))
    asked = _last_user_content(chat_server)
    assert asked.splitlines()[-1] == (
        '- The person picked an element on /index.html: <h1>, selector "#title", its text "Pick 1"'
    )
    assert "Pick 2" not in asked, "only the first pick of the press"


def test_the_picker_from_the_keyboard_and_across_a_reload(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    frame = _open(page, chat_server, project)
    pick = page.locator("[data-action='pick-element']")
    pick.focus()
    page.keyboard.press("Enter")
    expect(pick).to_have_attribute("aria-pressed", "true")
    page.wait_for_function("() => document.activeElement.id === 'preview-frame'")
    page.keyboard.press("Escape")  # in the page, which has the keyboard now
    expect(pick).to_have_attribute("aria-pressed", "false")
    expect(pick).to_be_focused()
    page.keyboard.press("Space")
    expect(pick).to_have_attribute("aria-pressed", "true")

    # The page in the frame reloads (the assistant changed a file): Pick stays on.
    frame.evaluate(
        "document.documentElement.dataset.old = 'yes'; setTimeout(() => location.reload())"
    )
    reloaded = page.frame_locator("#preview-frame")
    expect(reloaded.locator("html:not([data-old])")).to_have_css("cursor", "crosshair")
    reloaded.locator("#title").hover()
    reloaded.locator("#title").click()
    assert _chip_words(page, "#composer-chips li") == ["<h1> “Hello” in index.html"]
    expect(pick).to_have_attribute("aria-pressed", "false")


def test_a_hostile_page_only_ever_reports(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    frame = _open(page, chat_server, project)
    before = list(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    frame.evaluate("""() => {
      const huge = 'x'.repeat(100000);
      for (let i = 0; i < 20000; i++) {
        const flood = {kind: 'error', message: 'flood ' + i};
        parent.postMessage({builtitPreview: {problem: flood}}, '*');
        parent.postMessage('junk ' + i, '*');
        if (i % 100 === 0) {
          parent.postMessage({builtitPreview: {picked: {selector: huge, tag: '<img>'}}}, '*');
        }
      }
      parent.postMessage({message: 'start a turn', action: 'stop'}, '*');
      let cookie = 'no error';
      try { cookie = document.cookie; } catch (e) { cookie = 'blocked'; }
      let reached = 'no';
      try { reached = String(parent.document.title); } catch (e) { reached = 'blocked'; }
      window.results = {cookie, reached};
    }""")
    assert frame.evaluate("window.results") == {"cookie": "blocked", "reached": "blocked"}
    # Chromium itself takes about 6 s of the workspace's main thread to hand it
    # 40,200 messages from another process (150 µs each, with or without our
    # listeners): wait for the last one, on a busy machine too, before the
    # workspace is asked for anything.
    page.wait_for_function("() => builtitBridge.dropped() >= 20200", timeout=120_000)
    # The workspace answers and works: typing, its own state, a turn only on a click.
    page.fill("#composer-input", "still here")
    expect(page.locator("#composer-input")).to_have_value("still here")
    expect(page.locator("#preview-problems .problems-count")).to_have_text("50")
    assert page.evaluate("builtitBridge.problems().length") == 50
    expect(page.locator(".problems-dropped")).to_contain_text("ignored: not understood, or not")
    assert page.evaluate("builtitChat.attachments().length") == 0
    assert not Message.objects.exists(), "nothing a page sends starts a turn"
    assert (
        list(ProjectFile.objects.filter(project=project).values_list("path", "content")) == before
    )


def test_fixing_is_bounded_and_never_starts_by_itself(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    expect(page.locator("#preview-problems .problems-count")).to_have_text("2")
    fix = page.locator("[data-action='fix-problems']")
    for attempt in range(1, 4):
        chat_server.fake.script(text(f"Tried {attempt}."))
        if not page.locator("#problems-panel").is_visible():
            page.locator("#preview-problems").click()
        fix.click()
        page.keyboard.press("Enter")  # the box has the focus, filled
        turns = page.locator("#chat-log article.turn")
        expect(turns).to_have_count(attempt)
        expect(turns.last.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    page.locator("#preview-problems").click()
    expect(fix).to_be_disabled()
    offer = page.locator(".problems-offer")
    expect(offer).to_contain_text("tried to fix problems 3 times in a row")
    assert Message.objects.filter(role=Message.Role.USER).count() == 3, "only clicks start turns"

    chat_server.fake.script(text("Looking."))
    page.fill("#composer-input", "the button should say hello")
    page.click("#composer-send")
    expect(page.locator("#chat-log article.turn")).to_have_count(4)
    expect(page.locator("#chat-log .turn-footer").last).to_have_class(re.compile(r"\bcompleted\b"))
    if not page.locator("#problems-panel").is_visible():
        page.locator("#preview-problems").click()
    expect(fix).to_be_enabled()


def test_on_a_phone_a_picked_element_shows_in_the_chat(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    page.click("[data-show-panel='preview']")
    page.locator("[data-action='pick-element']").click()
    # The page has heard it (its bridge, a script of its own, may still be loading).
    expect(page.frame_locator("#preview-frame").locator("html")).to_have_css("cursor", "crosshair")
    page.frame_locator("#preview-frame").locator("#title").click()
    expect(page.locator("#chat-panel")).to_be_visible()
    expect(page.locator("#composer-chips li")).to_contain_text("“Hello” in index.html")
