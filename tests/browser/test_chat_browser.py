"""The chat panel in real Chromium, over a real websocket to daphne, with the model
played by the fake OpenRouter (fakes/openrouter.py): what a person sees while the
assistant works, from several tabs, with the keyboard, and when things fail."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Locator, Page, expect

from chat.models import Conversation
from fakes.script import HttpError, Pause, Reply, Stream, ToolCallScript, text, tool_calls
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from tests.browser.conftest import ChatServer, Held, open_file, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

# As long as the `context` fixture gives actions: turns take a few seconds on a slow machine.
expect.set_options(timeout=10_000)

# Every state each tool card is shown in, in order, whatever frame carried it.
WATCH_CARDS = """() => {
  window.cardStates = {};
  const seen = (card) => {
    (window.cardStates[card.id] ||= []).push(card.dataset.state);
  };
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof Element)) continue;
        if (node.matches("li.tool-card")) seen(node);
        node.querySelectorAll("li.tool-card").forEach(seen);
      }
    }
  }).observe(document.getElementById("chat-panel"), { childList: true, subtree: true });
}"""


def _starter(owner: User) -> Project:
    project = project_create(owner=owner, name="Chat site", starter=True)
    assert isinstance(project, Project)
    return project


def _open(page: Page, server: ChatServer, project: Project, query: str = "") -> None:
    page.goto(f"{server.url}/projects/{project.pk}/{query}")
    _connected(page)


def _connected(page: Page) -> None:
    """The socket is open: the server's first frame (the snapshot) has been read."""
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")


def _send(page: Page, message: str) -> None:
    page.click("#composer-input")
    page.keyboard.type(message)
    page.keyboard.press("Enter")


def _last_turn(page: Page) -> Locator:
    return page.locator("#chat-log article.turn").last


def _turn(page: Page, message: str) -> Locator:
    """The (latest) turn that began with `message`: not an earlier one while it is on its way."""
    bubble = page.locator(".bubble-text", has_text=re.compile(f"^{re.escape(message)}$"))
    return page.locator("#chat-log article.turn").filter(has=bubble).last


def _finished(turn: Locator, outcome: str = "completed") -> None:
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(rf"\b{outcome}\b"))


def _idle(page: Page) -> None:
    expect(page.locator("#chat-status")).not_to_have_attribute("data-busy", "true")
    expect(page.locator("#stop-form")).to_have_count(0)


def _slow(start: str, rest: str) -> Stream:
    """An answer that begins, then goes quiet for a long while (unless stopped) and ends."""
    begun = Reply(content=start, content_pieces=1, finish_reason=None, usage=None, done=False)
    ending = Reply(content=rest, content_pieces=1, keepalive=False)
    return Stream([*begun.to_stream().events, Pause(25), *ending.to_stream().events])


def _type_in_editor(page: Page, typed: str) -> None:
    page.click(".ace_content")
    page.keyboard.press("Control+End")
    page.keyboard.type(typed)


def test_ask_for_a_site_and_watch_it_being_built(page, chat_server, browser_user) -> None:
    sign_in(page, chat_server.url)
    page.fill("aside.create input[name=name]", "Bakery")
    page.check("input[name=start][value=blank]")
    page.click("text=Create project")
    page.wait_for_url(re.compile(r"/projects/[0-9a-f-]+/$"))
    _connected(page)
    page.evaluate(WATCH_CARDS)

    _send(page, "A bakery in Lisbon called Crumb")
    turn = _last_turn(page)
    expect(turn.locator(".bubble-text")).to_have_text("A bakery in Lisbon called Crumb")
    _finished(turn)

    # The demo looks at the project first (a quiet card, folded), then writes.
    cards = turn.locator("li.tool-card:has(.tool-path)")
    expect(cards).to_have_count(3)
    expect(cards.locator(".tool-path")).to_have_text(["/index.html", "/styles.css", "/script.js"])
    for card in cards.all():
        assert card.get_attribute("data-state") == "done"
        shown = page.evaluate("(id) => window.cardStates[id]", card.get_attribute("id"))
        assert shown[-2:] == ["running", "done"], shown
    # The final answer is Markdown, rendered: its list of files is a list.
    expect(turn.locator(".answer").last).to_contain_text("Done: the site is built.")
    expect(turn.locator(".answer li code").first).to_have_text("index.html")
    expect(turn.locator(".answer.streaming")).to_have_count(0)
    _idle(page)
    assert page.input_value("#composer-input") == ""

    expect(page.frame_locator("#preview-frame").locator("h1")).to_have_text("Crumb")
    for name in ("index.html", "styles.css", "script.js"):
        expect(page.locator("#file-tree .file-link", has_text=name)).to_have_count(1)
    open_file(page, "/index.html")
    assert "<h1>Crumb</h1>" in page.evaluate("builtitWorkspace.text()")


def test_stop_ends_a_slow_turn_and_the_composer_works_again(
    page, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    chat_server.fake.script(_slow("Thinking hard about ", "the whole thing."))

    _send(page, "Take your time")
    turn = _last_turn(page)
    expect(turn.locator(".answer")).to_have_text("Thinking hard about")
    expect(page.locator("#chat-status")).to_have_attribute("data-busy", "true")
    page.click("#stop-form button")

    _finished(turn, "stopped")
    expect(turn.locator(".turn-footer")).to_contain_text("Stopped")
    # Marked as plainly as a failed turn, not in small grey.
    stopped = turn.locator(".turn-footer .outcome")
    expect(stopped).to_have_css("font-weight", "600")
    assert stopped.evaluate("e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)"
    _idle(page)
    # What arrived before the stop stays.
    expect(turn.locator(".answer")).to_have_text("Thinking hard about")

    chat_server.fake.script(text("Back at your service."))
    _send(page, "Are you still there?")
    turn = _turn(page, "Are you still there?")
    _finished(turn)
    expect(turn.locator(".answer")).to_have_text("Back at your service.")
    expect(page.locator("#chat-log article.turn")).to_have_count(2)


def test_escape_stops_the_turn_from_the_composer_not_from_the_editor(
    page, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    stops: list[str] = []
    page.on(
        "websocket",
        lambda socket: socket.on(
            "framesent", lambda frame: stops.append(frame) if '"stop"' in frame else None
        ),
    )
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    page.wait_for_selector(".ace_content")
    chat_server.fake.script(_slow("Working ", "on it."))

    _send(page, "Something slow")
    turn = _last_turn(page)
    expect(turn.locator(".answer")).to_have_text("Working")
    # Esc stops once the page shows the turn can be stopped: the status with its
    # Stop comes in a frame of its own, which on a busy machine may come after
    # the first text (a press before it stops nothing, as it should).
    expect(page.locator("#stop-form")).to_be_attached()
    # Esc in the editor belongs to the editor (it closes Ace's search box).
    page.click(".ace_content")
    page.keyboard.press("Escape")
    page.focus("#composer-input")
    page.keyboard.press("Escape")

    # First the page's part (the stop sent), then the server's (the turn stopped):
    # a failure says which of the two did not happen.
    for _ in range(100):
        if stops:
            break
        page.wait_for_timeout(100)
    assert stops, "Esc in the message box sent no stop"
    try:
        _finished(turn, "stopped")
    except AssertionError as error:  # what the server answered, if anything
        notice = page.locator("#chat-notice").inner_text()
        raise AssertionError(f"{error}\nThe stop was sent; the notice says: {notice!r}") from None
    _idle(page)
    assert len(stops) == 1, stops
    chat_server.fake.script(text("Done quickly."))
    _send(page, "Something quick")
    _finished(_turn(page, "Something quick"))
    expect(_turn(page, "Something quick").locator(".answer")).to_have_text("Done quickly.")


def test_another_tab_follows_the_turn_live_and_a_late_tab_catches_up(
    context, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    first, second = context.new_page(), context.new_page()
    sign_in(first, chat_server.url)
    _open(first, chat_server, project)
    _open(second, chat_server, project)
    second.evaluate("() => { window.sameDocument = true; }")
    second.fill("#composer-input", "a draft of my own")
    answer = Held(text("Your about page is ready."))
    about = {"path": "about.html", "content": "<h1>About us</h1>\n"}
    chat_server.fake.script(
        tool_calls(ToolCallScript("create_file", about), content="Adding the page."), answer
    )

    _send(first, "Add an about page")
    answer.wait_until_asked()  # the turn is running: the card is done, the answer held back
    for page in (first, second):
        turn = _last_turn(page)
        expect(turn.locator(".bubble-text")).to_have_text("Add an about page")
        expect(turn.locator("li.tool-card .tool-path")).to_have_text("about.html")
        expect(turn.locator("li.tool-card")).to_have_attribute("data-state", "done")
        expect(page.locator("#chat-status")).to_have_attribute("data-busy", "true")
        expect(page.locator("#file-tree .file-link", has_text="about.html")).to_have_count(1)

    late = context.new_page()
    _open(late, chat_server, project)
    late_turn = _last_turn(late)
    expect(late_turn.locator(".bubble-text")).to_have_text("Add an about page")
    expect(late_turn.locator(".answer").first).to_have_text("Adding the page.")
    expect(late_turn.locator("li.tool-card")).to_have_attribute("data-state", "done")
    expect(late.locator("#chat-status")).to_have_attribute("data-busy", "true")

    answer.release()
    for page in (first, second, late):
        turn = _last_turn(page)
        _finished(turn)
        expect(turn.locator(".answer").last).to_have_text("Your about page is ready.")
        expect(page.locator("#chat-log article.turn")).to_have_count(1)
        _idle(page)
    assert second.evaluate("window.sameDocument") is True
    # Only the tab that sent the message has its composer emptied.
    assert second.input_value("#composer-input") == "a draft of my own"
    assert first.input_value("#composer-input") == ""


def test_composer_keyboard_and_accessibility(page, chat_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    log = page.locator("#chat-log")
    expect(log).to_have_attribute("role", "log")
    expect(log).to_have_attribute("aria-live", "polite")

    page.click("#composer-input")
    page.keyboard.type("First line")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("second line")
    assert page.input_value("#composer-input") == "First line\nsecond line"
    expect(page.locator("#chat-log article.turn")).to_have_count(0)

    chat_server.fake.script(text("Two lines received."))
    page.keyboard.press("Enter")
    turn = _last_turn(page)
    _finished(turn)
    assert turn.locator(".bubble-text").inner_text() == "First line\nsecond line"
    expect(page.locator("#chat-log article.turn")).to_have_count(1)
    (request,) = chat_server.fake.completions
    assert request.json["messages"][-1]["content"] == "First line\nsecond line"

    # Reached with the keyboard, the composer shows where the focus is.
    page.focus("#conversation-select")
    for _ in range(30):
        if page.evaluate("document.activeElement.id") == "composer-input":
            break
        page.keyboard.press("Tab")
    composer = page.locator("#composer-input")
    expect(composer).to_be_focused()
    assert composer.evaluate("(e) => e.matches(':focus-visible')")
    style = composer.evaluate(
        "(e) => { const s = getComputedStyle(e); return [s.boxShadow, s.outlineStyle]; }"
    )
    assert style[0] != "none" or style[1] != "none", style


def test_stop_pressed_from_the_keyboard_leaves_the_focus_in_the_message_box(
    page, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    chat_server.fake.script(Stream([*text("Working on it").to_stream().events[:2], Pause(25)]))
    _send(page, "Take your time")
    stop = page.locator("#stop-form button")
    expect(stop).to_be_visible()
    stop.focus()
    page.keyboard.press("Enter")

    _finished(_last_turn(page), "stopped")
    expect(stop).to_have_count(0)
    expect(page.locator("#composer-input")).to_be_focused()


def test_no_api_key_explains_and_links_to_settings(page, chat_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    # OpenRouter answers a request without a key with 401.
    chat_server.fake.script(HttpError(401))

    _send(page, "Make it blue")
    turn = _last_turn(page)
    _finished(turn, "failed")
    error = turn.locator(".turn-error")
    expect(error).to_contain_text("No API key")
    expect(error.locator("form.retry-form")).to_have_count(0)  # a key must come first
    error.locator("a", has_text="Settings").click()

    page.wait_for_url(f"{chat_server.url}/settings/")
    page.fill("#api-key", "sk-or-v1-browser-test-key")
    page.click("text=Save key")
    expect(page.locator(".messages")).to_contain_text("ending in …-key")

    _open(page, chat_server, project)
    expect(_last_turn(page).locator(".turn-error")).to_contain_text("No API key")
    chat_server.fake.script(text("It is blue now."))
    _send(page, "Make it blue")
    expect(page.locator("#chat-log article.turn")).to_have_count(2)
    turn = _last_turn(page)
    _finished(turn)
    expect(turn.locator(".answer")).to_have_text("It is blue now.")
    keyless, keyed = chat_server.fake.completions
    assert "authorization" not in keyless.headers
    assert keyed.headers["authorization"] == "Bearer sk-or-v1-browser-test-key"


def test_try_again_after_a_passing_failure_sends_the_message_again(
    page, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    chat_server.fake.script(HttpError(503), text("Second time lucky."))

    _send(page, "Add a footer")
    failed = page.locator("#chat-log article.turn").first
    _finished(failed, "failed")
    expect(failed.locator(".turn-error")).to_contain_text("unavailable")
    _idle(page)
    page.fill("#composer-input", "a draft for later")
    failed.get_by_role("button", name="Try again").click()

    expect(page.locator("#chat-log article.turn")).to_have_count(2)
    retried = page.locator("#chat-log article.turn").nth(1)
    expect(retried.locator(".bubble-text")).to_have_text("Add a footer")
    _finished(retried)
    expect(retried.locator(".answer")).to_have_text("Second time lucky.")
    first, second = chat_server.fake.completions
    assert first.json["messages"][-1] == second.json["messages"][-1]
    # Trying again is not sending the composer's text: the draft stays.
    assert page.input_value("#composer-input") == "a draft for later"


def test_saving_in_the_editor_waits_while_the_assistant_works(
    page, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    page.wait_for_selector(".ace_content")
    answer = Held(text("Nothing to change."))
    chat_server.fake.script(answer)

    _send(page, "Look at the page")
    answer.wait_until_asked()
    expect(page.locator("#chat-status")).to_have_attribute("data-busy", "true")
    _type_in_editor(page, "<!-- mine -->")
    page.keyboard.press("Control+s")
    refusal = page.locator("#editor-status .status.error")
    expect(refusal).to_contain_text("saving is paused")
    assert page.evaluate("builtitWorkspace.text()").endswith("<!-- mine -->")
    stored = ProjectFile.objects.get(project=project, path="/index.html").content
    assert "<!-- mine -->" not in stored

    answer.release()
    _finished(_last_turn(page))
    page.click(".ace_content")
    page.keyboard.press("Control+s")
    expect(page.locator("#editor-status .status.ok")).to_be_visible()
    stored = ProjectFile.objects.get(project=project, path="/index.html").content
    assert stored.endswith("<!-- mine -->")


def test_the_chosen_model_is_used_and_remembered(page, chat_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    chat_server.fake.script(text("Hello from Claude."))

    page.fill("#model-input", "anthropic/claude-sonnet-4")
    _send(page, "Which model are you?")
    _finished(_last_turn(page))
    (request,) = chat_server.fake.completions
    assert request.json["model"] == "anthropic/claude-sonnet-4"

    page.reload()
    _connected(page)
    expect(page.locator("#model-input")).to_have_value("anthropic/claude-sonnet-4")


def test_new_conversation_starts_empty_and_the_picker_goes_back(
    page, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    chat_server.fake.script(text("First answer."))
    _send(page, "The first conversation")
    _finished(_last_turn(page))
    first = Conversation.objects.get(project=project)

    page.click("#chat-panel button:has-text('New')")
    page.wait_for_url(re.compile(r"\?conversation=\d+$"))
    _connected(page)
    expect(page.locator("#chat-log .chat-empty")).to_be_visible()
    expect(page.locator("#chat-log article.turn")).to_have_count(0)
    expect(page.locator("#conversation-select option")).to_have_count(2)

    page.select_option("#conversation-select", str(first.pk))
    page.wait_for_url(re.compile(rf"\?conversation={first.pk}$"))
    _connected(page)
    turn = _last_turn(page)
    expect(turn.locator(".bubble-text")).to_have_text("The first conversation")
    expect(turn.locator(".answer")).to_have_text("First answer.")
    expect(page.locator("#chat-log .chat-empty")).to_be_hidden()


def test_a_turn_in_another_conversation_shows_as_busy_but_stays_out_of_this_log(
    context, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    here, there = context.new_page(), context.new_page()
    sign_in(here, chat_server.url)
    _open(there, chat_server, project)
    chat_server.fake.script(text("Hello."))
    _send(there, "Say hello")
    _finished(_turn(there, "Say hello"))
    _open(here, chat_server, project)
    here.click("#chat-panel button:has-text('New')")
    here.wait_for_url(re.compile(r"\?conversation=\d+$"))
    _connected(here)
    assert Conversation.objects.filter(project=project).count() == 2
    answer = Held(text("Done over there."))
    chat_server.fake.script(answer)

    _send(there, "Work in the other conversation")
    answer.wait_until_asked()
    expect(here.locator("#chat-status")).to_have_attribute("data-busy", "true")
    expect(here.locator("#chat-status")).to_contain_text("another conversation")
    answer.release()
    _finished(_turn(there, "Work in the other conversation"))
    _idle(here)
    expect(here.locator("#chat-log article.turn")).to_have_count(0)
    expect(here.locator("#chat-log .chat-empty")).to_be_visible()


def test_sending_while_the_assistant_works_is_refused_and_keeps_the_text(
    page, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    answer = Held(text("First things first."))
    chat_server.fake.script(answer)
    _send(page, "First request")
    answer.wait_until_asked()

    _send(page, "Second request")
    expect(page.locator("#chat-notice")).to_contain_text("already working")
    assert page.input_value("#composer-input") == "Second request"
    answer.release()
    _finished(_last_turn(page))
    expect(page.locator("#chat-log article.turn")).to_have_count(1)
    assert len(chat_server.fake.completions) == 1


def test_the_busy_notice_goes_once_the_turn_ends(page, chat_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    answer = Held(text("First things first."))
    chat_server.fake.script(answer)
    _send(page, "First request")
    answer.wait_until_asked()
    _send(page, "Second request")
    expect(page.locator("#chat-notice")).to_contain_text("already working")

    answer.release()
    _finished(_last_turn(page))
    _idle(page)
    expect(page.locator("#chat-notice")).to_have_text("", timeout=3_000)


def test_streamed_text_keeps_its_spaces(page, chat_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    pieces = [
        Reply(content=piece, content_pieces=1, finish_reason=None, usage=None, done=False)
        for piece in ("one ", "two ", "three")
    ]
    # Each piece in a frame of its own: pieces waiting together are merged into one.
    events = [event for piece in pieces for event in [*piece.to_stream().events, Pause(0.3)]]
    chat_server.fake.script(Stream([*events, Pause(25), *text(" four.").to_stream().events]))

    _send(page, "Count to four")
    streaming = _last_turn(page).locator(".answer.streaming")
    expect(streaming).to_contain_text("three")
    try:
        assert streaming.text_content() == "one two three"
    finally:
        page.click("#stop-form button")
        _finished(_last_turn(page), "stopped")


def test_an_answer_is_drawn_as_markdown_as_it_streams_and_does_not_jump_when_done(
    page, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    pieces = [
        Reply(content=piece, content_pieces=1, finish_reason=None, usage=None, done=False)
        for piece in (
            "Your page has **fresh ",
            "bread** now.\n\nIt holds:\n- a menu\n",
            "- a contact form\n\n```css\nh1 { color: teal; }\n",
            "```\n\nAnd <script>window.owned = 1</script> a last line",
        )
    ]
    events = [event for piece in pieces for event in [*piece.to_stream().events, Pause(0.3)]]
    chat_server.fake.script(Stream([*events, Pause(25), *text(".").to_stream().events]))

    _send(page, "What did you change?")
    streaming = _last_turn(page).locator(".answer.streaming")
    expect(streaming.locator("p").last).to_have_text(re.compile("a last line$"))
    # Before the answer ends: bold, a list and a code block with its Copy button.
    expect(streaming.locator("strong")).to_have_text("fresh bread")
    expect(streaming.locator("li")).to_have_text(["a menu", "a contact form"])
    expect(streaming.locator(".code-block button")).to_have_text("Copy")
    assert page.evaluate("window.owned") is None
    drawn = streaming.bounding_box()
    assert drawn is not None
    assert drawn["height"] > 150  # the code block is laid out, not one line of text

    page.click("#stop-form button")
    _finished(_last_turn(page), "stopped")
    finished = _last_turn(page).locator(".answer")
    expect(finished).not_to_have_class(re.compile("streaming"))
    # The finished answer takes the drawing's place at its very size: nothing moves
    # (where it sits in the window may differ, as the log scrolls when the turn ends).
    box = finished.bounding_box()
    assert box is not None
    assert (box["width"], box["height"]) == (drawn["width"], drawn["height"])


def test_your_own_message_scrolls_into_view(page, chat_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    chat_server.fake.script(text("\n\n".join(f"Paragraph {n}." for n in range(60))))
    _send(page, "Write a lot")
    _finished(_turn(page, "Write a lot"))
    log = page.locator("#chat-log")
    assert log.evaluate("(e) => e.scrollHeight > 2 * e.clientHeight")
    # Following the answer as it grows.
    expect(_turn(page, "Write a lot").locator(".turn-footer")).to_be_in_viewport()

    # Scrolled back up to read, a person who sends a message is taken to it.
    log.evaluate("(e) => { e.scrollTop = 0; }")
    chat_server.fake.script(text("Short."))
    _send(page, "And now?")
    turn = _turn(page, "And now?")
    _finished(turn)
    expect(turn.locator(".bubble-text")).to_be_in_viewport()


def test_a_finished_turn_looks_the_same_after_a_reload(page, chat_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    page.fill("#model-input", "openrouter/auto")
    # OpenRouter's router answers with the model it chose.
    chat_server.fake.script(text("Routed.", model="anthropic/claude-sonnet-4"))
    _send(page, "Who answers?")
    turn = _turn(page, "Who answers?")
    _finished(turn)
    expect(turn.locator(".turn-footer .model")).to_have_text("anthropic/claude-sonnet-4")
    live = _squeezed(turn.inner_html())

    page.reload()
    _connected(page)
    assert _squeezed(_turn(page, "Who answers?").inner_html()) == live


def _squeezed(html: str) -> str:
    return re.sub(r">\s+<", "><", " ".join(html.split()))


def test_a_code_block_in_an_answer_copies_from_the_keyboard(
    page, chat_server, browser_user
) -> None:
    project = _starter(browser_user)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    chat_server.fake.script(text("Add this:\n\n```css\nh1 { color: teal; }\n```\n\nThat is all."))

    _send(page, "How do I make the heading teal?")
    turn = _turn(page, "How do I make the heading teal?")
    _finished(turn)
    copy = turn.locator(".answer .code-block button")
    expect(copy).to_have_text("Copy")
    copy.focus()
    page.keyboard.press("Enter")

    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "h1 { color: teal; }\n"
