"""Every way a turn can go wrong (DESIGN §6), against the fake OpenRouter.

Bad tool calls become error results the model can read and the turn goes on;
provider failures end the turn with one readable error; a broken stream is
asked for again once; stopping closes the stream and records the turn as
stopped; the person's edits are never overwritten unseen; repeating, failing
and spending are all bounded. Each test checks what a person would notice:
the events, the stored messages and the files.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from pytest_django.fixtures import SettingsWrapper

from chat.events import (
    ContentText,
    Done,
    ErrorEvent,
    Event,
    ToolResultEvent,
    to_json,
)
from chat.failures import NO_KEY
from chat.limits import TurnLimits
from chat.llm import LLMClient
from chat.loop import MAX_FAILED_ROUNDS, TurnRequest, run_turn
from chat.models import Conversation, Message
from chat.tools import Arguments, Tool, ToolContext, ToolOutcome, file_tools
from chat.tools.files import WriteArgs, create_file
from projects.models import FileRevision, Project, ProjectFile
from projects.services import Author, file_update
from tests.fakes.openrouter import FakeOpenRouter
from tests.fakes.script import (
    DEFAULT_USAGE,
    Drop,
    HttpError,
    Reply,
    Scripted,
    Stall,
    Stream,
    ToolCallScript,
    in_stream_error,
    text,
    tool_calls,
)
from tests.loop_support import (
    HANG,
    LIMITS,
    fake_client,
    kinds,
    limits,
    new_conversation,
    turn_events,
)

pytestmark = pytest.mark.django_db(transaction=True)

READ_INDEX = ToolCallScript("read_file", {"path": "/index.html"})
SECRET = "psycopg.OperationalError: password=hunter2 at /srv/builtit/chat/tools.py line 42"


# --- helpers -------------------------------------------------------------------------


def call(name: str, arguments: str | dict[str, Any] | None = None) -> Reply:
    return tool_calls(ToolCallScript(name, arguments))


def costing(amount: float, reply: Reply | None = None) -> Reply:
    """`reply` (a read of /index.html by default), reported as costing `amount`."""
    usage = {**DEFAULT_USAGE, "cost": amount}
    if reply is None:
        return tool_calls(READ_INDEX, usage=usage)
    return Reply(content=reply.content, tool_calls=reply.tool_calls, usage=usage)


def partial_answer(shown: str) -> Stream:
    """The start of an answer, `shown`, with no finish reason yet."""
    return text(shown, content_pieces=1, finish_reason=None, usage=None, done=False).to_stream()


def bodies(fake: FakeOpenRouter) -> list[dict[str, Any]]:
    return [request.json for request in fake.requests]


def results(events: list[Event]) -> list[ToolResultEvent]:
    return [event for event in events if isinstance(event, ToolResultEvent)]


def errors(events: list[Event]) -> list[ErrorEvent]:
    return [event for event in events if isinstance(event, ErrorEvent)]


def done(events: list[Event]) -> Done:
    last = events[-1]
    assert isinstance(last, Done)
    return last


def shown_text(events: list[Event]) -> str:
    return "".join(event.text for event in events if isinstance(event, ContentText))


@sync_to_async
def stored(conversation_id: int) -> list[Message]:
    return list(Message.objects.filter(conversation_id=conversation_id).order_by("sequence"))


@sync_to_async
def closing_message(events: list[Event]) -> Message:
    return Message.objects.get(pk=done(events).message_id)


@sync_to_async
def last_message(conversation: Conversation) -> Message:
    last = Message.objects.filter(conversation=conversation).order_by("sequence").last()
    assert last is not None
    return last


@sync_to_async
def file_content(project: Project, path: str) -> str | None:
    row = ProjectFile.objects.filter(project=project, path=path).first()
    return None if row is None else row.content


@sync_to_async
def revisions(project: Project, path: str) -> list[FileRevision]:
    return list(FileRevision.objects.filter(project=project, path=path).order_by("id"))


@sync_to_async
def seed_spending(project: Project, amount: Decimal) -> None:
    earlier = Conversation.objects.create(project=project, title="Earlier")
    Message.objects.create(
        conversation=earlier, sequence=1, role=Message.Role.ASSISTANT, content="ok", cost=amount
    )


@sync_to_async
def person_edits(project: Project, user: User, path: str, old: str, new: str) -> None:
    current = ProjectFile.objects.get(project=project, path=path).content
    assert old in current
    written = file_update(
        project=project, path=path, content=current.replace(old, new), author=Author.person(user)
    )
    assert written.__class__.__name__ == "FileWrite", written


async def events_reacting(
    client: LLMClient,
    project: Project,
    text: str,
    react: Callable[[Event], Awaitable[None]],
) -> list[Event]:
    """Every event of a turn; `react` runs on each while the loop waits for it."""
    conversation = await new_conversation(project)

    async def collect() -> list[Event]:
        events: list[Event] = []
        turn = run_turn(TurnRequest(project, conversation, text), client=client, limits=LIMITS)
        async for event in turn:
            events.append(event)
            await react(event)
        return events

    return await asyncio.wait_for(collect(), HANG)


def start_turn(
    client: LLMClient,
    project: Project,
    conversation: Conversation,
    text: str,
    *,
    tools: Any = None,
) -> tuple[asyncio.Task[None], asyncio.Queue[Event]]:
    """The turn as a task, as the websocket consumer runs it; its events go to the queue."""
    queue: asyncio.Queue[Event] = asyncio.Queue()

    async def consume() -> None:
        request = TurnRequest(project, conversation, text)
        async for event in run_turn(request, client=client, tools=tools, limits=LIMITS):
            queue.put_nowait(event)

    return asyncio.create_task(consume()), queue


async def events_until(queue: asyncio.Queue[Event], kind: str) -> list[Event]:
    seen: list[Event] = []
    while not seen or seen[-1].type != kind:
        seen.append(await asyncio.wait_for(queue.get(), HANG))
    return seen


async def cancelled(task: asyncio.Task[None]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, HANG)


class NoArgs(Arguments):
    pass


def exploding_tool() -> Tool[NoArgs]:
    def explode(args: NoArgs, context: ToolContext) -> ToolOutcome:
        raise RuntimeError(SECRET)

    return Tool("explode", "Always breaks.", NoArgs, explode, writes=False)


def hanging_tool(release: threading.Event) -> Tool[NoArgs]:
    def hang(args: NoArgs, context: ToolContext) -> ToolOutcome:
        release.wait(2)
        return ToolOutcome(True, {"success": True}, "Finished, too late")

    return Tool("hang", "Takes too long.", NoArgs, hang, writes=False, timeout=0.2)


def slow_writer(started: threading.Event, release: threading.Event) -> Tool[WriteArgs]:
    def write(args: WriteArgs, context: ToolContext) -> ToolOutcome:
        started.set()
        release.wait(HANG)
        return create_file(args, context)

    return Tool("slow_create", "Creates a file, slowly.", WriteArgs, write, writes=True)


# --- bad tool calls: error results, and the turn goes on -----------------------------


async def test_unknown_tool_is_an_error_result_listing_the_tools(
    fake_openrouter: FakeOpenRouter, starter_project: Project
) -> None:
    fake_openrouter.script(call("make_coffee", {"strength": 11}), text("I cannot make coffee."))

    async with fake_client(fake_openrouter) as client:
        events = await turn_events(client, starter_project, "Make me a coffee")

    (result,) = results(events)
    assert not result.ok
    assert result.result["code"] == "unknown_tool"
    assert result.result["available_tools"] == file_tools().names()
    assert "make_coffee" in str(result.result["error"])
    assert "read_file" in str(result.result["error"])
    assert done(events).status == "completed"
    assert done(events).finish_reason == "stop"
    told = bodies(fake_openrouter)[1]["messages"][-1]
    assert told["role"] == "tool"
    assert json.loads(told["content"])["code"] == "unknown_tool"
    closing = await closing_message(events)
    assert closing.content == "I cannot make coffee."
    assert closing.metadata["turn"]["tool_timings"][0]["ok"] is False


