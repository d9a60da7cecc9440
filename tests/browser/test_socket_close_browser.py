"""A socket the server closes for good says why in the page, in real Chromium:
daphne drops a close frame's reason, so the page
must carry the words itself. Signing out in one tab, or moving the project to
the trash, leaves the other tab saying so, not a generic "not connected"; so
does a tab past the chat sockets one address may hold."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from projects.lifecycle import project_create
from projects.models import Project
from tests.browser.conftest import ChatServer, assert_fits, sign_in
from tests.servers import server_start, shared_settings

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)


def _workspace(page: Page, server: ChatServer, project: Project) -> None:
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")


def _project(owner: User) -> Project:
    project = project_create(owner=owner, name="Closing site", starter=True)
    assert isinstance(project, Project)
    return project


def test_signing_out_in_one_tab_tells_the_other(
    context, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    first, second = context.new_page(), context.new_page()
    sign_in(first, chat_server.url)
    _workspace(second, chat_server, project)

    first.click("button:has-text('Sign out')")

    expect(second.locator("#chat-connection")).to_have_text(
        "Your session ended (signed out, or the password changed). "
        "Reload the page to sign in again."
    )


def test_signing_out_everywhere_tells_the_open_tab_and_lands_on_sign_in(
    context, chat_server: ChatServer, browser_user: User
) -> None:
    """Issue 26, finding 8a."""
    project = _project(browser_user)
    first, second = context.new_page(), context.new_page()
    sign_in(first, chat_server.url)
    _workspace(second, chat_server, project)

    first.goto(f"{chat_server.url}/settings/")
    first.click("button:has-text('Sign out everywhere')")

    expect(second.locator("#chat-connection")).to_have_text(
        "You signed out everywhere: every session and access token of yours has ended. "
        "Reload the page to sign in again."
    )
    expect(first.locator(".message.success")).to_contain_text("You are signed out everywhere")
    expect(first.locator("h1")).to_have_text("Sign in")


def test_moving_the_project_to_the_trash_tells_its_open_tab(
    context, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    first, second = context.new_page(), context.new_page()
    sign_in(first, chat_server.url)
    _workspace(second, chat_server, project)

    first.goto(f"{chat_server.url}/projects/{project.pk}/delete/")
    first.click("button:has-text('Move to the trash')")

    expect(second.locator("#chat-connection")).to_have_text(
        "This project was moved to the trash. Restore it from the Trash to go on."
    )


@pytest.fixture(scope="module")
def one_socket_server(django_db_setup: None) -> Iterator[str]:
    """The app where one address may hold a single chat socket."""
    server = server_start(shared_settings(BUILTIT_MAX_SOCKETS_PER_ADDRESS=1))
    try:
        yield server.url
    finally:
        server.stop()


def test_a_socket_past_the_addresss_bound_says_why_at_every_width(
    context, one_socket_server: str, browser_user: User
) -> None:
    project = _project(browser_user)
    first, second = context.new_page(), context.new_page()
    sign_in(first, one_socket_server)
    first.goto(f"{one_socket_server}/projects/{project.pk}/")
    first.wait_for_selector("#chat-signal[data-signal]", state="attached")

    second.set_viewport_size({"width": 1440, "height": 900})
    second.goto(f"{one_socket_server}/projects/{project.pk}/")
    said = second.locator("#chat-connection")
    expect(said).to_have_text(
        "Too many Built-It tabs are open from your internet address (on this device, or "
        "on others that share it). Close some of them, then reload this page."
    )
    expect(first.locator("#chat-connection")).to_be_hidden()  # the first tab holds its place
    second.set_viewport_size({"width": 390, "height": 844})
    expect(said).to_be_visible()
    assert_fits(390, said)
