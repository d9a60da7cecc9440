"""A turn whose server stopped: killed, it never says so, but its lock
lapses. Every tab showing the turn finds out within the lock's lifetime and a
fifth, the turn is recorded as interrupted (once, with what it had stored
kept), and the project takes a new turn."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from chat import services
from chat.live.watchdog import watchdog
from chat.models import Conversation, Message
from chat.selectors.running import TURN_LOCK
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply
from projects.models import Project, ProjectLock
from tests.chat.live.tabs import events_until, frames_until, next_event, opened, send

pytestmark = pytest.mark.django_db(transaction=True)

TTL = 0.6  # seconds: the watchdog looks every fifth of it


@sync_to_async
def a_turn_whose_server_died(project: Project) -> Conversation:
    """What a killed process leaves: the person's message, a tool round's reply,
    and its lock, still held (until `lapsed`) and never refreshed again."""
    conversation = services.conversation_create(project=project)
    asked = services.message_user_create(
        conversation=conversation, sequence=1, text="Build it", model="m"
    )
    services.message_create(
        conversation=conversation, sequence=2, role=Message.Role.ASSISTANT, content="Working on it."
    )
    ProjectLock.objects.create(
        project=project,
        holder="killed-process-turn",
        purpose=TURN_LOCK,
        details={
            "conversation": conversation.pk,
            "first_sequence": asked.sequence,
            "channel": None,
        },
        acquired_at=timezone.now(),
        expires_at=timezone.now() + timedelta(minutes=5),
    )
    return conversation


@sync_to_async
def lapsed() -> None:
    """The dead server's lock lapses now, as it would a TTL after its last refresh."""
    ProjectLock.objects.update(expires_at=timezone.now())


async def caught_up(script: WebsocketCommunicator) -> None:
    """Until the script's socket has done its connect, its catch-up included: it
    answers frames one at a time, after the connect (`opened` returns once the
    socket is accepted, before the catch-up)."""
    await send(script, action="dance")
    assert (await next_event(script))["code"] == "bad_frame"


@sync_to_async
def closing_messages(conversation: Conversation) -> list[Message]:
    return list(Message.objects.filter(conversation=conversation, metadata__has_key="turn"))


@dataclass(frozen=True)
class Watched:
    conversation: Conversation
    page: WebsocketCommunicator
    script: WebsocketCommunicator
    first: str  # the page's first frames


@asynccontextmanager
async def a_dead_turn_watched(project: Project, user: User) -> AsyncIterator[Watched]:
    """A turn whose server died (its lock not lapsed yet), shown by a page and a
    script of its conversation, each once its connect and catch-up are done."""
    conversation = await a_turn_whose_server_died(project)
    query = f"conversation={conversation.pk}"
    async with (
        opened(project, user, as_json=False, query=query) as page,
        opened(project, user, as_json=True, query=query) as script,
    ):
        first = "".join(await frames_until(page, 'id="chat-signal"'))
        await caught_up(script)
        yield Watched(conversation, page, script, first)


async def test_every_tab_is_told_the_turn_is_recorded_and_the_project_freed(
    scripted: FakeOpenRouter, project: Project, user: User, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_TURN_LOCK_TTL = TTL
    async with a_dead_turn_watched(project, user) as watched:
        conversation, page, script = watched.conversation, watched.page, watched.script
        assert 'data-busy="true"' in watched.first, "the turn shows as running at first"
        # Both tabs show the turn: only now does its lock lapse. A lock that
        # lapsed while a tab was still connecting would be a turn that tab never
        # saw running (the connect reads only a live lock), with no `done` owed.
        assert watchdog().watching_count() == 2, "each tab watches the running turn"
        await lapsed()
        told = await events_until(script, "done")
        assert told[-2]["code"] == "server_stopped"
        assert told[-1]["status"] == "interrupted"
        redrawn = "".join(await frames_until(page, "Interrupted"))
        assert "The server running this turn stopped before it finished" in redrawn
        assert "Working on it." in redrawn, "what it had done is kept"

        closing = await closing_messages(conversation)
        assert len(closing) == 1, "recorded once, whichever tab found out"
        assert closing[0].metadata["turn"]["status"] == "interrupted"
        assert not await sync_to_async(ProjectLock.objects.exists)()

        # A real turn next, with a lock that lives long enough for this busy machine.
        settings.BUILTIT_TURN_LOCK_TTL = 10.0
        scripted.script(Reply(content="Back at it."))
        await send(script, message="Go on")
        again = await events_until(script, "done")
        assert again[-1]["status"] == "completed", again


async def test_a_dead_servers_turn_no_tab_saw_is_recorded_when_a_tab_connects(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    """No tab was open when its server died: the first socket to connect records
    it as interrupted, and a script, which never saw it run, is owed no `done`
    for it: the first it hears is its own next turn's."""
    conversation = await a_turn_whose_server_died(project)
    await sync_to_async(ProjectLock.objects.update)(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    scripted.script(Reply(content="Back at it."))
    async with opened(project, user, query=f"conversation={conversation.pk}") as script:
        await caught_up(script)
        recorded = [message.metadata["turn"] for message in await closing_messages(conversation)]
        assert [record["status"] for record in recorded] == ["interrupted"]
        await send(script, message="Go on")
        again = await events_until(script, "done")
    assert again[-1]["status"] == "completed"
    records = [message.metadata["turn"] for message in await closing_messages(conversation)]
    assert [record["status"] for record in records] == ["interrupted", "completed"]
    assert records[0]["error"]["code"] == "server_stopped"


async def test_a_turn_started_with_no_socket_records_the_dead_servers_turn_first(
    project: Project, user: User
) -> None:
    """`manage.py chat` opens no socket: its turn, taking the lapsed lock over,
    records the dead server's turn as interrupted first, as a tab would have."""
    conversation = await a_turn_whose_server_died(project)
    await lapsed()
    taken = await sync_to_async(services.turn_lock_take)(
        project=project, conversation=conversation, channel=None, limit=None, sender=user
    )
    assert isinstance(taken, ProjectLock)
    (record,) = [message.metadata["turn"] for message in await closing_messages(conversation)]
    assert record["status"] == "interrupted"
    assert record["error"]["code"] == "server_stopped"


async def test_a_script_whose_done_was_lost_on_the_way_gets_the_recorded_one(
    scripted: FakeOpenRouter,
    project: Project,
    user: User,
    settings: SettingsWrapper,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The message carrying `done` never reached the tab (Redis failed it on the
    way from another process): the watchdog sees the lock released, looks once
    more, then the tab sends the `done` from the stored record instead of
    leaving the script waiting."""
    settings.BUILTIT_TURN_LOCK_TTL = 3.0  # the watchdog looks every 0.6 s
    here = get_channel_layer()
    deliver = here.deliver

    def losing_done(target: Any, message: Any) -> None:
        if message["type"] == "turn.events" and any(
            item["event"]["type"] == "done" for item in message["events"]
        ):
            return
        deliver(target, message)

    monkeypatch.setattr(here, "deliver", losing_done)
    scripted.script(Reply(content="All done."))
    async with opened(project, user) as script:
        await send(script, message="Hello")
        events = await events_until(script, "done")
    assert events[-1]["status"] == "completed"
    assert events[-1]["message_id"] is not None
    assert "".join(e["text"] for e in events if e["type"] == "content") == "All done."


async def test_a_tab_opened_after_the_lock_lapsed_shows_the_turn_interrupted(
    scripted: FakeOpenRouter, project: Project, user: User, settings: SettingsWrapper
) -> None:
    """A tab opened once the dead server's lock lapsed, before any watchdog
    recorded the turn (none looks for a long while here), shows it interrupted
    at once and takes the next message; the tabs that watched it are told too."""
    settings.BUILTIT_TURN_LOCK_TTL = 300.0  # the watchdog's first look is a minute away
    async with a_dead_turn_watched(project, user) as watched:
        conversation, watching, script = watched.conversation, watched.page, watched.script
        await lapsed()
        query = f"conversation={conversation.pk}"
        async with opened(project, user, as_json=False, query=query) as late:
            first = "".join(await frames_until(late, 'id="chat-signal"'))
            assert "Interrupted" in first
            assert "The server running this turn stopped before it finished" in first, "as recorded"
            assert "Working on it." in first
            assert 'data-busy="true"' not in first, "the project is free"

            redrawn = "".join(await frames_until(watching, "Interrupted"))
            assert "The server running this turn stopped before it finished" in redrawn
            told = await events_until(script, "done")
            assert told[-1]["status"] == "interrupted"

            scripted.script(Reply(content="Back at it."))
            await send(late, message="Go on")
            assert "Back at it." in "".join(await frames_until(late, "Back at it."))
            again = await events_until(script, "done")
            assert again[-1]["status"] == "completed", again
    records = [message.metadata["turn"] for message in await closing_messages(conversation)]
    assert [record["status"] for record in records] == ["interrupted", "completed"]


async def test_a_message_sent_once_the_lock_lapsed_tells_the_watching_tabs_first(
    scripted: FakeOpenRouter, project: Project, user: User, settings: SettingsWrapper
) -> None:
    """A message sent once the dead server's lock lapsed, before any watchdog
    looked (none looks for a long while here): its turn records the dead one as
    interrupted and starts. The tabs that watched the dead turn show it
    interrupted, with the reason, and a script hears its `done` before the new
    turn's events, once."""
    settings.BUILTIT_TURN_LOCK_TTL = 300.0  # the watchdog's first look is a minute away
    async with a_dead_turn_watched(project, user) as watched:
        conversation, page, script = watched.conversation, watched.page, watched.script
        await lapsed()
        scripted.script(Reply(content="Back at it."))
        await send(page, message="Go on")

        told = await events_until(script, "done")
        assert [event["type"] for event in told] == ["error", "done"], "nothing of the new turn"
        assert told[0]["code"] == "server_stopped"
        assert told[1]["status"] == "interrupted"
        again = await events_until(script, "done")
        assert again[0]["type"] == "turn_started"
        assert again[-1]["status"] == "completed", again
        assert "".join(e["text"] for e in again if e["type"] == "content") == "Back at it."

        redrawn = "".join(await frames_until(page, "Back at it."))
        assert "Interrupted" in redrawn
        assert "The server running this turn stopped before it finished" in redrawn
        assert "Working on it." in redrawn, "what it had done is kept"
        assert await script.receive_nothing(), "one `done` for each turn"
    records = [message.metadata["turn"] for message in await closing_messages(conversation)]
    assert [record["status"] for record in records] == ["interrupted", "completed"]


async def test_a_done_that_comes_behind_the_next_turn_is_told_once_as_it_was(
    scripted: FakeOpenRouter,
    project: Project,
    user: User,
    settings: SettingsWrapper,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A turn finished, but its `done`, from another process, reaches the tab
    behind the next turn's events: the script hears it completed (as stored),
    before the next turn, and the late one adds nothing."""
    settings.BUILTIT_TURN_LOCK_TTL = 300.0  # no watchdog looks meanwhile
    here = get_channel_layer()
    deliver = here.deliver
    held: list[tuple[Any, Any]] = []

    def holding_the_first_done(target: Any, message: Any) -> None:
        ending = message["type"] == "turn.events" and any(
            item["event"]["type"] == "done" for item in message["events"]
        )
        if ending and not held:
            held.append((target, message))
            return
        deliver(target, message)

    monkeypatch.setattr(here, "deliver", holding_the_first_done)
    scripted.script(Reply(content="First."), Reply(content="Second."))
    async with opened(project, user) as script:
        await send(script, message="Hello")
        while not held:  # the first turn has ended
            await asyncio.sleep(0.01)
        await send(script, message="Again")
        first = await events_until(script, "done")
        assert first[-1]["status"] == "completed", first
        assert [event["type"] for event in first].count("turn_started") == 1, "before the next"
        second = await events_until(script, "done")
        assert second[0]["type"] == "turn_started"
        assert "".join(e["text"] for e in second if e["type"] == "content") == "Second."
        assert second[-1]["status"] == "completed"
        for target, message in held:
            deliver(target, message)
        assert await script.receive_nothing(), "one `done` for each turn"
