"""Turns with the offline demo through the real loop, and what they left, for
the demo's tests."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from chat.agent.attachments import Attachment
from chat.agent.events import Done, ToolCallsAnnounced, ToolResultEvent
from chat.agent.loop import TurnRequest, run_turn
from chat.models import Conversation, Message
from demo.transport import DEMO_MODEL, demo_client
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_update


async def turn(
    project: Project,
    conversation: Conversation,
    text: str,
    *,
    attachments: tuple[Attachment, ...] = (),
    plan: bool = False,
) -> list[object]:
    client = demo_client()
    try:
        order = TurnRequest(
            project, conversation, text, DEMO_MODEL, attachments=attachments, plan=plan
        )
        return [event async for event in run_turn(order, client=client)]
    finally:
        await client.aclose()


def done(events: list[object]) -> Done:
    last = events[-1]
    assert isinstance(last, Done)
    return last


@sync_to_async
def answer(events: list[object]) -> str:
    """The turn's answer, as stored on the message that closes it."""
    closing = done(events).message_id
    assert closing is not None
    return Message.objects.get(pk=closing).content


def called(events: list[object]) -> list[tuple[str, str | None]]:
    return [
        (call.name, call.path)
        for event in events
        if isinstance(event, ToolCallsAnnounced)
        for call in event.calls
    ]


def results(events: list[object]) -> list[ToolResultEvent]:
    return [event for event in events if isinstance(event, ToolResultEvent)]


@sync_to_async
def files(project: Project) -> dict[str, str]:
    return dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))


@sync_to_async
def person_writes(project: Project, path: str, content: str) -> None:
    """The owner saves a file, as in the editor."""
    author = Author.person(project.owner)
    if project.files.filter(path=path).exists():
        result = file_update(project=project, path=path, content=content, author=author)
    else:
        result = file_create(project=project, path=path, content=content, author=author)
    assert isinstance(result, FileWrite), result


@sync_to_async
def new_project(owner: User, name: str, content: dict[str, str] | None = None) -> Project:
    """A project holding `content` (path → text), or the starter site."""
    project = project_create(owner=owner, name=name, starter=content is None)
    assert isinstance(project, Project)
    for path, text in (content or {}).items():
        written = file_create(project=project, path=path, content=text, author=Author.person(owner))
        assert isinstance(written, FileWrite), written
    return project


CRUMB = "Build a one-page site for a bakery called Crumb"


async def crumb_site(project: Project, conversation: Conversation) -> None:
    """Crumb, built, turned green and given an about page, as in issue 31."""
    for request in (CRUMB, "make the header dark green", "add an about page"):
        events = await turn(project, conversation, request)
        assert all(result.ok for result in results(events)), request
