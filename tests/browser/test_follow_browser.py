"""The view stays where the person put it: a change made elsewhere (by
the assistant, or by the person in another tab) reaches the open editor, the
tree and the preview in place, without switching panels or losing unsaved
text; a chat shown again is where it was left."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, Route, WebSocketRoute, expect
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.llm.config import OPENROUTER_URL
from fakes.script import ToolCallScript, text, tool_calls
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from tests.browser.conftest import ChatServer, Held, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)


def _project(owner: User) -> Project:
    project = project_create(owner=owner, name="Follow site", starter=True)
    assert isinstance(project, Project)
    return project


def _open(page: Page, server: ChatServer, project: Project, path: str = "/index.html") -> None:
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    page.wait_for_selector(f"#editor-form[data-path='{path}'] .ace_content", state="attached")


def _edit(search: str, replace: str) -> ToolCallScript:
    return ToolCallScript(
        "edit_file", {"path": "index.html", "edits": [{"search": search, "replace": replace}]}
    )


def _turn_finished(page: Page) -> None:
    footer = page.locator("#chat-log article.turn").last.locator(".turn-footer")
    expect(footer).to_have_class(re.compile(r"\bcompleted\b"))


def test_on_a_phone_a_turn_that_edits_the_open_file_leaves_the_chat_shown(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    """On a slow connection the editor's reload for one change is still on its way
    when the next change comes: the second reload is a follow too, and neither
    takes the person from the chat to the code."""
    project = _project(browser_user)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    expect(page.locator("#chat-panel")).to_be_visible()
    held: list[Route] = []
    holding = [True]

    def hold(route: Route) -> None:
        if holding[0]:
            held.append(route)
        else:
            route.continue_()

    page.route(re.compile(r"/files/open/"), hold)
    second = Held(tool_calls(_edit("Fresh bread", "Warm bread")))
    chat_server.fake.script(
        tool_calls(_edit("Hello, world", "Fresh bread")), second, text("Warm bread it is.")
    )
    page.fill("#composer-input", "Call it warm bread")
    page.keyboard.press("Enter")

    second.wait_until_asked()
    for _ in range(100):  # the first change's reload, kept waiting
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the editor never asked for the changed file"
    second.release()
    _turn_finished(page)
    holding[0] = False
    for route in held:
        route.continue_()

    page.wait_for_function("() => builtitWorkspace.text().includes('Warm bread')")
    expect(page.locator("#chat-panel")).to_be_visible()
    expect(page.locator("#editor-panel")).to_be_hidden()
    expect(page.locator("[data-show-panel='chat']")).to_have_attribute("aria-pressed", "true")
    status = page.locator("#editor-status")
    expect(status).to_contain_text("Updated: the assistant changed this file")


def test_a_save_in_one_tab_shows_in_the_others_and_keeps_their_unsaved_text(
    context, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    mine, other = context.new_page(), context.new_page()
    sign_in(mine, chat_server.url)
    for page in (mine, other):
        _open(page, chat_server, project)

    mine.evaluate("() => { const e = builtitWorkspace.editor(); e.find('Hello, world'); }")
    mine.focus("#editor-form .ace_text-input")
    mine.keyboard.type("Saved in one tab")
    mine.keyboard.press("Control+s")
    expect(mine.locator("#editor-status .status.ok")).to_contain_text("Saved")

    other.wait_for_function("() => builtitWorkspace.text().includes('Saved in one tab')")
    expect(other.locator("#editor-status")).to_contain_text("saved in another tab")
    assert other.evaluate("builtitWorkspace.isDirty()") is False
    preview = other.frame_locator("#preview-frame").locator("h1")
    expect(preview).to_have_text("Saved in one tab")
    # The tab that saved is not told its own save came from elsewhere.
    expect(mine.locator("#editor-status")).to_contain_text("Saved · version 2")

    # Unsaved edits in the other tab are kept, with a way to load the saved file.
    other.click(".ace_content")
    other.keyboard.press("Control+End")
    other.keyboard.type("<!-- still mine -->")
    mine.evaluate("() => { const e = builtitWorkspace.editor(); e.find('Saved in one tab'); }")
    mine.keyboard.type("Saved twice")
    mine.keyboard.press("Control+s")
    expect(mine.locator("#editor-status")).to_contain_text("Saved · version 3")
    notice = other.locator("#editor-status [role=alert]")
    expect(notice).to_contain_text("saved in another tab")
    assert "<!-- still mine -->" in other.evaluate("builtitWorkspace.text()")
    other.locator("#editor-status button", has_text="Load the saved version").click()
    other.locator("dialog.ask-dialog[open] button[value=ok]").click()
    other.wait_for_function("() => builtitWorkspace.text().includes('Saved twice')")
    stored = ProjectFile.objects.get(project=project, path="/index.html").content
    assert other.evaluate("builtitWorkspace.text()") == stored

    # A new file made in one tab appears in the other's tree.
    mine.fill("#new-file-path", "notes.txt")
    mine.click("form.new-file button")
    expect(other.locator("#file-tree .file-link[data-path='/notes.txt']")).to_have_count(1)
    expect(other.locator("#editor-form")).to_have_attribute("data-path", "/index.html")


def test_a_chat_shown_again_is_where_it_was_left(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    lines = "\n\n".join(f"Line {number} of a long answer." for number in range(1, 61))
    chat_server.fake.script(text(lines))
    page.fill("#composer-input", "Tell me a long story")
    page.keyboard.press("Enter")
    _turn_finished(page)
    at_bottom = (
        "() => { const b = document.getElementById('chat-log');"
        " return b.scrollHeight > 2 * b.clientHeight"
        " && b.scrollHeight - b.scrollTop - b.clientHeight < 80; }"
    )
    page.wait_for_function(at_bottom)

    # Another panel, kept over a reload (or a turn that came meanwhile), then the chat again.
    page.click("[data-show-panel='files']")
    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    expect(page.locator("#chat-log")).to_be_hidden()
    page.click("[data-show-panel='chat']")
    expect(page.locator("#chat-log")).to_be_visible()
    page.wait_for_function(at_bottom)

    # On a wide screen, the chat hidden (remembered), then shown again.
    page.set_viewport_size({"width": 1440, "height": 900})
    with page.expect_response("**/preferences/"):
        page.click("[data-collapse='chat']")
    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    expect(page.locator("#chat-log")).to_be_hidden()
    page.click("[data-collapse='chat']")
    expect(page.locator("#chat-log")).to_be_visible()
    page.wait_for_function(at_bottom)


def test_the_no_model_notice_can_be_closed_for_good(
    page: Page, live_server, settings: SettingsWrapper, browser_user: User
) -> None:
    settings.OPENROUTER_BASE_URL = OPENROUTER_URL  # a provider that needs a key, and none
    settings.OPENROUTER_API_KEY = ""
    project = _project(browser_user)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    notice = page.locator("#model-setup")
    expect(notice).to_contain_text("No model connected")
    with page.expect_response("**/preferences/"):
        notice.get_by_role("button", name="Close the notice about connecting a model").click()
    expect(notice).to_have_count(0)
    expect(page.locator("#composer-input")).to_be_focused()
    page.reload()
    expect(page.locator("#composer-input")).to_be_visible()
    expect(notice).to_have_count(0)


@pytest.mark.parametrize("width", [1440, 390])
def test_a_first_turn_on_an_empty_editor_opens_the_home_page_in_place(
    page: Page, chat_server: ChatServer, browser_user: User, width: int
) -> None:
    """A project started from the dashboard has no page yet: once the assistant
    makes index.html the editor shows it (no "Select a file" left), and on a
    phone the chat stays shown."""
    project = project_create(owner=browser_user, name="Empty site", instructions=True)
    assert isinstance(project, Project)
    page.set_viewport_size({"width": width, "height": 844 if width < 500 else 900})
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    expect(page.locator("#editor-form")).to_have_count(0)
    home = ToolCallScript("create_file", {"path": "index.html", "content": "<h1>Petal</h1>\n"})
    chat_server.fake.script(tool_calls(home), text("Made the home page."))
    page.fill("#composer-input", "A page for my flower shop")
    page.keyboard.press("Enter")
    _turn_finished(page)

    expect(page.locator("#editor-form")).to_have_attribute("data-path", "/index.html")
    page.wait_for_function("() => builtitWorkspace.text().includes('<h1>Petal</h1>')")
    expect(page.locator(".editor-empty")).to_have_count(0)
    if width >= 500:
        # The person did not open the page: the focus stays in the message box,
        # where they may already be typing (or have put a next step).
        expect(page.locator("#composer-input")).to_be_focused()
    if width < 500:
        expect(page.locator("#chat-panel")).to_be_visible()
        expect(page.locator("#editor-panel")).to_be_hidden()


def test_updated_is_said_only_of_a_file_the_last_turn_changed(
    context, chat_server: ChatServer, browser_user: User
) -> None:
    """In the tab that sent and in another: the open file says it was updated
    after the turn that changed it, and no longer once a turn changed only
    another file."""
    project = _project(browser_user)
    mine, other = context.new_page(), context.new_page()
    sign_in(mine, chat_server.url)
    for page in (mine, other):
        _open(page, chat_server, project)
    chat_server.fake.script(tool_calls(_edit("Hello, world", "Fresh bread")), text("Renamed."))
    mine.fill("#composer-input", "Call it fresh bread")
    mine.keyboard.press("Enter")
    for page in (mine, other):
        _turn_finished(page)
        expect(page.locator("#editor-status")).to_have_text(
            "Updated: the assistant changed this file."
        )

    styles = ToolCallScript(
        "update_file", {"path": "styles.css", "content": "h1 { color: teal; }\n"}
    )
    chat_server.fake.script(tool_calls(styles), text("Teal it is."))
    mine.fill("#composer-input", "Make the heading teal")
    mine.keyboard.press("Enter")
    for page in (mine, other):
        expect(
            page.locator("#chat-log .bubble-text", has_text="Make the heading teal")
        ).to_be_visible()
        _turn_finished(page)
        expect(page.frame_locator("#preview-frame").locator("h1")).to_have_css(
            "color", "rgb(0, 128, 128)"
        )
        expect(page.locator("#editor-status")).to_have_text("")


def test_a_save_made_while_a_tab_connects_shows_in_it_once_connected(
    context, chat_server: ChatServer, browser_user: User
) -> None:
    """Another tab saves the home page and makes a page after this one was
    drawn, before its socket joined the project's group, so no message
    reached it: once joined, the tab shows both, as a save in another tab."""
    project = _project(browser_user)
    mine, late = context.new_page(), context.new_page()
    sign_in(mine, chat_server.url)
    _open(mine, chat_server, project)
    # The late tab's socket opens, but reaches the server only when the test
    # lets it, with what the page sent meanwhile: as a server slow to join it.
    held: list[tuple[WebSocketRoute, list[str | bytes]]] = []

    def hold(route: WebSocketRoute) -> None:
        sent: list[str | bytes] = []
        route.on_message(lambda frame: sent.append(frame))  # noqa: PLW0108 (Playwright takes no builtin)
        held.append((route, sent))

    late.route_web_socket(re.compile(r"/ws/projects/"), hold)
    late.goto(f"{chat_server.url}/projects/{project.pk}/")
    late.wait_for_function("() => (builtitWorkspace.text() || '').includes('Hello, world')")

    mine.evaluate("() => { const e = builtitWorkspace.editor(); e.find('Hello, world'); }")
    mine.focus("#editor-form .ace_text-input")
    mine.keyboard.type("Saved meanwhile")
    mine.keyboard.press("Control+s")
    expect(mine.locator("#editor-status .status.ok")).to_contain_text("Saved")
    mine.fill("#new-file-path", "notes.txt")
    mine.click("form.new-file button")
    expect(mine.locator("#file-tree .file-link[data-path='/notes.txt']")).to_have_count(1)

    ((route, sent),) = held
    server = route.connect_to_server()
    for frame in sent:
        server.send(frame)
    route.on_message(lambda frame: server.send(frame))  # noqa: PLW0108
    late.wait_for_selector("#chat-signal[data-signal]", state="attached")
    expect(late.locator("#file-tree .file-link[data-path='/notes.txt']")).to_have_count(1)
    late.wait_for_function("() => builtitWorkspace.text().includes('Saved meanwhile')")
    expect(late.locator("#editor-status")).to_contain_text("saved in another tab")
    expect(late.frame_locator("#preview-frame").locator("h1")).to_have_text("Saved meanwhile")
