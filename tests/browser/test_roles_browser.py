"""A viewer's workspace in Chromium: the files, the chat and the preview to
look at, the editor read-only, no control that would change the project, and
the message box replaced by a line saying who can make them an editor."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connections
from playwright.sync_api import expect

from chat.models import Conversation, Message
from fakes.script import text
from projects.services import Author, file_create
from projects.sharing import ShareRefused, hand_over_offer_make
from tests.browser.conftest import ChatServer, Held, People, SharedProject

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)


def _a_turn_in(shared: SharedProject) -> None:
    conversation = Conversation.objects.create(project=shared.project)
    Message.objects.create(
        conversation=conversation, sequence=1, role="user", content="Add an about page"
    )
    reply = Message.objects.create(
        conversation=conversation, sequence=2, role="assistant", content="Added it."
    )
    file_create(
        project=shared.project,
        path="/about.html",
        content="<p>About</p>",
        author=Author.assistant(shared.owner, message_id=reply.pk),
    )


@pytest.mark.parametrize("width", [1440, 390])
def test_a_viewer_sees_the_project_read_only(
    people: People,
    chat_server: ChatServer,
    shared_project: SharedProject,
    width: int,
    tmp_path: Path,
) -> None:
    _a_turn_in(shared_project)
    page = people.open(chat_server.url, "vera", shared_project.project, width=width)

    note = page.locator("#chat-viewer-line")
    expect(note).to_have_text("You can look at this project; Ada can make you an editor.")
    expect(note).to_be_visible()
    expect(page.locator("#composer-input")).to_be_hidden()
    expect(page.locator(".role-badge").first).to_have_text("Viewer")
    expect(page.locator("#chat-log")).to_contain_text("Add an about page")
    # The turn's Undo and Restore are there for an editor, not for a viewer.
    expect(page.locator("#chat-log button", has_text="Undo this turn")).to_be_hidden()
    expect(page.locator("#chat-log button", has_text="View all changes")).to_be_attached()
    page.screenshot(path=str(tmp_path / f"viewer-chat-{width}.png"), full_page=False)

    if width < 768:
        page.click("[data-show-panel=files]")
    expect(page.locator("form.new-file")).to_be_hidden()
    expect(page.locator("[data-action=upload-files]")).to_be_hidden()
    expect(page.locator("#file-tree")).to_contain_text("about.html")
    if width < 768:
        page.click("[data-show-panel=editor]")
    expect(page.locator(".editor-path")).to_have_text("/index.html")
    expect(page.locator("#editor-form button[type=submit]")).to_be_hidden()
    expect(page.locator("[data-action=delete-file]")).to_be_hidden()
    expect(page.locator("[data-action=show-history]")).to_be_visible()
    page.wait_for_function("window.builtitWorkspace && window.builtitWorkspace.editor()")
    assert page.evaluate("builtitWorkspace.editor().getReadOnly()") is True
    page.screenshot(path=str(tmp_path / f"viewer-editor-{width}.png"), full_page=False)
    if width < 768:
        page.click("[data-show-panel=chat]")
    page.emulate_media(color_scheme="dark")
    expect(note).to_be_visible()
    page.screenshot(path=str(tmp_path / f"viewer-chat-dark-{width}.png"), full_page=False)
    assert people.errors == []


def test_a_viewer_reads_no_invitation_to_chat_and_no_stop(
    people: People, chat_server: ChatServer, shared_project: SharedProject
) -> None:
    """An empty conversation tells a viewer no one has chatted in it, with no
    ideas to start with and no notice about connecting a model (they cannot
    send); a turn someone else runs shows them no Stop."""
    vera = people.open(chat_server.url, "vera", shared_project.project, width=390)
    # No conversation at all: one line says so (opening it started none).
    said = vera.get_by_text(re.compile("^No one has chatted"))
    expect(said).to_have_count(2)  # the page's and the empty log's, one shown
    expect(vera.locator("#chat-none")).to_be_visible()
    expect(said.filter(visible=True)).to_have_count(1)

    Conversation.objects.create(project=shared_project.project)
    vera.reload()
    empty = vera.locator(".chat-empty")
    expect(empty.get_by_text("No one has chatted in this conversation yet")).to_be_visible()
    expect(empty.get_by_text("Describe the site you want")).to_be_hidden()
    expect(empty.locator(".suggestions")).to_be_hidden()
    expect(vera.locator("#model-setup")).to_be_hidden()

    erin = people.open(chat_server.url, "erin", shared_project.project, width=1440)
    expect(erin.locator(".chat-empty").get_by_text("No one has chatted")).to_be_hidden()
    expect(erin.locator(".chat-empty .suggestions")).to_be_visible()
    held = Held(text("Working on it."))
    chat_server.fake.script(held)
    erin.click("#composer-input")
    erin.keyboard.type("Add a menu page")
    erin.keyboard.press("Enter")
    held.wait_until_asked()
    expect(vera.locator("#chat-status")).to_have_attribute("data-busy", "true")
    expect(erin.locator("#stop-form button")).to_be_visible()
    expect(vera.locator("#stop-form button")).to_be_hidden()
    held.release()
    expect(vera.locator("#chat-status")).not_to_have_attribute("data-busy", "true")
    assert people.errors == []


def test_the_owner_who_hands_the_project_over_sees_an_editors_page_at_once(
    people: People, chat_server: ChatServer, shared_project: SharedProject
) -> None:
    """Erin accepts Ada's offer while Ada has the project open: Ada's page
    shows her an editor's badge and no owner's Rename, without a reload."""
    ada = people.open(chat_server.url, "ada", shared_project.project, width=1440)
    expect(ada.locator("details.rename[data-needs=settings]")).to_be_visible()
    expect(ada.locator(".role-badge")).to_have_count(0)

    def offer() -> None:
        try:
            offered = hand_over_offer_make(
                project=shared_project.project, by=shared_project.owner, username="erin"
            )
            assert not isinstance(offered, ShareRefused), offered
        finally:
            connections.close_all()

    # In a thread: a service may tell open sockets through async_to_sync.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(offer).result()
    # Erin accepts on her dashboard, through the server that serves Ada's
    # socket: on SQLite this test's own process reaches no socket there.
    erin = people.signed_in(chat_server.url, "erin", width=768)
    erin.locator(".hand-over-offer").get_by_role("button", name="Accept").click()
    erin.wait_for_url(f"**/projects/{shared_project.project.pk}/")
    expect(ada.locator(".role-badge")).to_have_text("Editor")
    expect(ada.locator("details.rename[data-needs=settings]")).to_be_hidden()
    expect(ada.locator("#composer-input")).to_be_visible()
    assert people.errors == []
