"""Prompt-first start: a request on the dashboard makes a project named from it,
opens its workspace, and the workspace's socket sends the request, once, through
the real loop to the fake OpenRouter: not again on a reload, not twice with two
tabs, and into the message box when it cannot go."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.models import Conversation, Message
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply
from projects.locks import lock_acquire, lock_release
from projects.models import Project, ProjectFile, ProjectLock
from projects.starter import STARTER_INSTRUCTIONS
from tests.chat.live.tabs import communicator, events_until, frames_until, socket_path, types

pytestmark = pytest.mark.django_db(transaction=True)

REQUEST = "A landing page for my bakery called Crumb, with a menu and opening hours"
ANSWER = "Crumb has its page."
NEXT = "Next: Add a contact form | Make the header dark green"


def started(client: Client, text: str = REQUEST) -> Conversation:
    response = client.post(reverse("project_start"), {"request": text})
    assert response.status_code == 302
    conversation = Conversation.objects.select_related("project").latest("id")
    workspace = reverse("workspace", kwargs={"project_id": conversation.project_id})
    assert response["Location"] == f"{workspace}?conversation={conversation.pk}"
    return conversation


@sync_to_async
def start(client: Client, text: str = REQUEST) -> Conversation:
    return started(client, text)


@sync_to_async
def refreshed(conversation: Conversation) -> Conversation:
    return Conversation.objects.select_related("project").get(pk=conversation.pk)


@sync_to_async
def stored(conversation: Conversation) -> list[Message]:
    return list(conversation.messages.order_by("sequence"))


def completions(fake: FakeOpenRouter) -> int:
    return sum(1 for request in fake.requests if request.path.endswith("/chat/completions"))


def test_the_request_makes_a_project_named_from_it_with_instructions_and_the_request_waiting(
    user_client: Client,
) -> None:
    conversation = started(user_client)
    project = conversation.project
    assert project.name == "Crumb bakery"
    assert project.description == REQUEST, "the brief reaches the model's system prompt"
    files = dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    assert files == STARTER_INSTRUCTIONS, "instructions, no site: the model builds it"
    assert conversation.opening == REQUEST
    assert conversation.title == REQUEST[:80]
    assert not conversation.messages.exists(), "nothing is sent before the workspace opens"


@pytest.mark.parametrize(
    ("text", "said"),
    [("   ", "Write a message first."), ("x" * 101, "Messages are at most 100 characters")],
)
def test_an_empty_or_too_long_request_is_refused_in_words_and_makes_nothing(
    user_client: Client, settings: SettingsWrapper, text: str, said: str
) -> None:
    settings.BUILTIT_MAX_MESSAGE_CHARS = 100
    response = user_client.post(reverse("project_start"), {"request": text})
    assert response.status_code == 302
    assert response["Location"] == reverse("dashboard")
    assert any(said in str(message) for message in get_messages(response.wsgi_request))
    assert not Project.objects.exists()


def test_starting_needs_a_signed_in_person_and_a_post(client: Client, user_client: Client) -> None:
    assert client.post(reverse("project_start"), {"request": REQUEST}).status_code == 302
    assert user_client.get(reverse("project_start")).status_code == 405
    assert not Project.objects.exists()


def test_starting_checks_csrf_like_the_rest_of_the_dashboard(user: User) -> None:
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(reverse("project_start"), {"request": REQUEST}).status_code == 403
    assert not Project.objects.exists()


def test_the_dashboard_asks_first(user_client: Client, settings: SettingsWrapper) -> None:
    page = user_client.get(reverse("dashboard")).content.decode()
    assert "What do you want to build?" in page
    assert f'maxlength="{settings.BUILTIT_MAX_MESSAGE_CHARS}"' in page
    assert page.index('id="start-request"') < page.index('id="projects-heading"')
    assert "New project" in page, "a named empty project can still be made"


async def test_the_workspace_socket_sends_the_request_once_and_a_reload_follows_it(
    scripted: FakeOpenRouter, user: User, user_client: Client
) -> None:
    conversation = await start(user_client)
    project = conversation.project
    scripted.script(Reply(content=f"{ANSWER}\n\n{NEXT}"))
    path = socket_path(project, query=f"conversation={conversation.pk}")
    first = await communicator(path, user=user)
    assert (await first.connect())[0]
    events = await events_until(first, "done")
    assert types(events)[0] == "turn_started"
    assert events[0]["text"] == REQUEST
    assert events[-1]["status"] == "completed"
    assert events[-1]["suggestions"] == ["Add a contact form", "Make the header dark green"]
    await first.disconnect()

    again = await communicator(path, user=user)  # the page reloaded
    assert (await again.connect())[0]
    assert await again.receive_nothing()
    await again.disconnect()
    assert completions(scripted) == 1
    assert (await refreshed(conversation)).opening == ""
    rows = await stored(conversation)
    assert [(row.role, row.content) for row in rows] == [("user", REQUEST), ("assistant", ANSWER)]


async def test_two_tabs_opened_at_once_start_one_turn_and_both_see_it(
    scripted: FakeOpenRouter, user: User, user_client: Client
) -> None:
    conversation = await start(user_client)
    scripted.script(Reply(content=ANSWER))
    path = socket_path(conversation.project, query=f"conversation={conversation.pk}")
    tabs = [await communicator(path, user=user) for _ in range(2)]
    await asyncio.gather(*(tab.connect() for tab in tabs))
    for tab in tabs:
        done = (await events_until(tab, "done"))[-1]
        assert done["status"] == "completed"
    for tab in tabs:
        assert await tab.receive_nothing()
        await tab.disconnect()
    assert completions(scripted) == 1
    assert [row.role for row in await stored(conversation)] == ["user", "assistant"]


async def test_a_request_that_cannot_go_waits_in_the_message_box(
    scripted: FakeOpenRouter, user: User, user_client: Client
) -> None:
    conversation = await start(user_client)
    # Something else holds the project (an import, say): the turn is refused as busy.
    lock = await sync_to_async(lock_acquire)(
        project=conversation.project, purpose="import", details={}, ttl=60
    )
    assert isinstance(lock, ProjectLock)
    path = socket_path(conversation.project, as_json=False, query=f"conversation={conversation.pk}")
    tab = await communicator(path, user=user)
    assert (await tab.connect())[0]
    frames = "".join(await frames_until(tab, "&quot;draft&quot;: &quot;A landing"))
    assert "already working on this project" in frames
    await tab.disconnect()
    assert completions(scripted) == 0
    assert (await refreshed(conversation)).opening == "", "taken once: the box holds it now"
    await sync_to_async(lock_release)(lock)
