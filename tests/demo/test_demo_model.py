"""The offline demo model through the real loop and file tools: it
looks and reads before writing, builds what the request names, edits with
edit_file, adds a linked page, never claims a success that did not happen, and
says plainly what it cannot do."""

from __future__ import annotations

from decimal import Decimal

import pytest
from asgiref.sync import sync_to_async
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent.events import (
    Done,
    ReasoningText,
    ToolCallsAnnounced,
    ToolResultEvent,
    UsageEvent,
)
from chat.agent.loop import TurnRequest, run_turn
from chat.models import Conversation
from demo.transport import DEMO_MODEL, demo_client
from projects.models import Project, ProjectFile
from tests.chat.agent.turns import new_conversation

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def conversation(starter_project: Project) -> Conversation:
    return await new_conversation(starter_project)


async def turn(project: Project, conversation: Conversation, text: str) -> list[object]:
    client = demo_client()
    try:
        order = TurnRequest(project, conversation, text, DEMO_MODEL)
        return [event async for event in run_turn(order, client=client)]
    finally:
        await client.aclose()


def calls(events: list[object]) -> list[tuple[str, str | None]]:
    return [
        (call.name, call.path)
        for event in events
        if isinstance(event, ToolCallsAnnounced)
        for call in event.calls
    ]


def results(events: list[object]) -> list[ToolResultEvent]:
    return [event for event in events if isinstance(event, ToolResultEvent)]


def answer(events: list[object]) -> str:
    done = events[-1]
    assert isinstance(done, Done)
    return "".join(getattr(e, "text", "") for e in events if getattr(e, "type", "") == "content")


@sync_to_async
def files(project: Project) -> dict[str, str]:
    return dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))


async def test_the_three_first_requests_on_a_starter_project(
    starter_project: Project, conversation: Conversation
) -> None:
    built = await turn(
        starter_project,
        conversation,
        "Build a one-page site for a bakery called Crumb with a menu and a contact section",
    )
    assert calls(built)[:3] == [
        ("list_project_files", None),
        ("read_file", "/index.html"),
        ("read_file", "/styles.css"),
    ], "it looks and reads before writing"
    assert all(result.ok for result in results(built))
    assert any(isinstance(e, ReasoningText) for e in built)
    usage = [e for e in built if isinstance(e, UsageEvent)]
    assert usage
    assert [Decimal(e.cost or "nan") for e in usage] == [Decimal(0)] * len(usage), "free"
    page = (await files(starter_project))["/index.html"]
    assert "<h1>Crumb</h1>" in page
    assert 'id="menu"' in page
    assert 'id="contact"' in page
    assert "Done: the site is built." in answer(built)

    green = await turn(starter_project, conversation, "make the header dark green")
    assert ("edit_file", "/styles.css") in calls(green)
    assert all(result.ok for result in results(green))
    assert "--header-bg: #1f5f3a;" in (await files(starter_project))["/styles.css"]
    assert "Done: the colour is changed." in answer(green)

    about = await turn(starter_project, conversation, "add an about page")
    assert ("create_file", "/about.html") in calls(about)
    assert ("edit_file", "/index.html") in calls(about)
    assert all(result.ok for result in results(about))
    now = await files(starter_project)
    assert '<a href="about.html">About</a>' in now["/index.html"]
    assert "Crumb" in now["/about.html"]
    assert "Done: the page is added." in answer(about)


async def test_a_failed_step_is_reported_not_claimed(
    starter_project: Project, conversation: Conversation, settings: SettingsWrapper
) -> None:
    await turn(starter_project, conversation, "Build a site for a bakery called Crumb")
    settings.BUILTIT_MAX_FILES = 3  # the site has three: a fourth is refused
    events = await turn(starter_project, conversation, "add an about page")
    (create,) = [r for r in results(events) if r.name == "create_file"]
    assert not create.ok
    said = answer(events)
    assert "Done" not in said
    assert "**Failed:** created `about.html`" in said
    assert "at most 3 files" in said


async def test_it_knows_what_it_cannot_change_safely(
    project: Project, settings: SettingsWrapper
) -> None:
    conversation = await new_conversation(project)
    events = await turn(project, conversation, "make the header dark green")
    assert [name for name, _ in calls(events)] == ["list_project_files"]
    assert "There is no styles.css to change." in answer(events)


async def test_it_says_what_it_cannot_do(
    starter_project: Project, conversation: Conversation
) -> None:
    events = await turn(starter_project, conversation, "What's the weather in Lisbon?")
    assert calls(events) == []
    assert "I'm the offline demo" in answer(events)
    assert (await files(starter_project))["/index.html"].count("Hello, world") == 1
