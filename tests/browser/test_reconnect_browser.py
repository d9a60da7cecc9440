"""A message sent while the chat socket is reconnecting: the composer
says it is waiting, a second press does not queue it again, and once the
socket is back it is sent exactly once."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, WebSocketRoute, expect

from chat.models import Message
from fakes.script import text
from projects.files.results import FileError
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_update
from tests.browser.conftest import ChatServer, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)


def test_a_message_waits_for_the_connection_and_is_sent_once(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Waiting", starter=True)
    assert isinstance(project, Project)
    sockets: list[WebSocketRoute] = []
    sent: list[str] = []  # what the page sent, on any socket

    def through(route: WebSocketRoute) -> None:
        sockets.append(route)
        server = route.connect_to_server()

        def forward(message: str | bytes) -> None:
            sent.append(message if isinstance(message, str) else message.decode())
            server.send(message)

        route.on_message(forward)

    page.route_web_socket(re.compile(r"/ws/projects/"), through)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    # Long enough to type in while the socket is away.
    page.evaluate("htmx.config.wsReconnectDelay = () => 2500")
    chat_server.fake.script(text("Here I am."))

    sockets[0].close(code=1012, reason="restarting")
    expect(page.locator("#chat-connection")).to_contain_text("Lost the connection")
    page.fill("#composer-input", "Hello once")
    page.locator("#composer-input").press("Enter")
    expect(page.locator("#composer-help")).to_have_text(
        "Waiting to send: your message goes as soon as the connection is back."
    )
    expect(page.locator("#composer-send")).to_be_disabled()
    page.locator("#composer-input").press("Enter")  # impatient: a second press

    turn = page.locator("#chat-log article.turn")
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    expect(turn).to_have_count(1)
    expect(page.locator("#composer-help")).to_contain_text("Enter sends")
    expect(page.locator("#composer-send")).to_be_enabled()
    assert len(sockets) == 2
    assert len([frame for frame in sent if "Hello once" in frame]) == 1
    assert list(
        Message.objects.filter(role=Message.Role.USER).values_list("content", flat=True)
    ) == ["Hello once"]


def test_a_tab_back_after_its_socket_was_down_shows_the_files_as_they_are(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Away", starter=True)
    assert isinstance(project, Project)
    sockets: list[WebSocketRoute] = []
    refused = [False]

    def through(route: WebSocketRoute) -> None:
        if refused[0]:
            route.close(code=1012, reason="still away")
            return
        sockets.append(route)
        route.connect_to_server()

    page.route_web_socket(re.compile(r"/ws/projects/"), through)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    page.wait_for_function("() => builtitWorkspace.text().includes('<')")
    page.evaluate("htmx.config.wsReconnectDelay = () => 500")

    # The socket goes, and while it is away another tab saves the home page and
    # makes a page: no one on this page hears of it.
    refused[0] = True
    sockets[0].close(code=1012, reason="restarting")
    expect(page.locator("#chat-connection")).to_contain_text("Lost the connection")
    person = Author.person(browser_user)
    home = ProjectFile.objects.get(project=project, path="/index.html")
    saved = file_update(
        project=project, path="/index.html", content="<h1>Saved away</h1>\n", author=person
    )
    assert not isinstance(saved, FileError)
    assert home.version != saved.version
    made = file_create(
        project=project, path="/about.html", content="<h1>About</h1>\n", author=person
    )
    assert not isinstance(made, FileError)
    refused[0] = False

    expect(page.locator("#chat-connection")).to_be_hidden()
    expect(page.locator("#file-tree")).to_contain_text("about.html")
    page.wait_for_function("() => builtitWorkspace.text().includes('Saved away')")
    expect(page.locator("#editor-status")).to_contain_text(
        "Updated: this file was saved in another tab"
    )
