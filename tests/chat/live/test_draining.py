"""A clean shutdown of one process: on SIGTERM it takes no new turn,
sends tabs with nothing running here to reconnect elsewhere, lets its running
turns finish within the grace period and stops the rest as interrupted, with
what they did kept, telling every tab. (Daphne's SIGTERM reaching this code,
with real processes, is in tests/scale/.)"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User

from chat import services
from chat.agent.loop import TurnRequest, _Turn
from chat.live import draining, turns
from chat.live.closing import Close
from chat.models import Message
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile, ProjectLock
from tests.chat.live.tabs import communicator, events_until, next_event, opened, send, socket_path
from tests.fakes.held import PAGE, Held, WriteThenHold

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def a_fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's process starts out taking turns (a drain is for good)."""
    monkeypatch.setattr(turns, "_PROCESS", turns._Process())


@pytest.fixture
def other_project(user: User) -> Project:
    result = project_create(owner=user, name="Another site")
    assert isinstance(result, Project)
    return result


async def closed_with(socket: WebsocketCommunicator) -> tuple[list[dict[str, Any]], int]:
    """The JSON events a socket gets until it is closed, and the close code."""
    events: list[dict[str, Any]] = []
    while True:
        output = await socket.receive_output(timeout=15)
        if output["type"] == "websocket.close":
            return events, output.get("code", 1000)
        events.append(json.loads(output["text"]))


@sync_to_async
def closing_record(project: Project) -> dict[str, Any]:
    closing = Message.objects.get(conversation__project=project, metadata__has_key="turn")
    record: dict[str, Any] = closing.metadata["turn"]
    return record


@sync_to_async
def page_of(project: Project) -> str:
    return ProjectFile.objects.get(project=project, path="/index.html").content


@sync_to_async
def locked() -> bool:
    return ProjectLock.objects.exists()


async def test_a_turn_past_its_grace_is_interrupted_with_what_it_did_kept(
    scripted: FakeOpenRouter, project: Project, other_project: Project, user: User
) -> None:
    held = Held(Reply(content="Done."))
    scripted.responder = WriteThenHold(held)
    async with opened(other_project, user) as elsewhere, opened(project, user) as watcher:
        await send(watcher, message="Build the bakery's page")
        await events_until(watcher, "files_changed")

        drain = asyncio.ensure_future(draining.drain(grace=0.3))
        # A tab with nothing running here reconnects elsewhere at once...
        assert await closed_with(elsewhere) == ([], Close.SERVICE_RESTART)
        # ...one watching a turn here sees it end first.
        events, code = await closed_with(watcher)
        drained = await drain
        held.release()

    assert code == Close.SERVICE_RESTART
    assert [event["type"] for event in events][-2:] == ["error", "done"]
    assert events[-2]["code"] == "server_stopped"
    assert events[-1]["status"] == "interrupted"
    assert events[-1]["finish_reason"] == "server_stopped"
    assert drained == draining.Drained(finished=0, interrupted=1)

    record = await closing_record(project)
    assert record["status"] == "interrupted"
    assert record["error"]["code"] == "server_stopped"
    assert record["files_changed"] == ["/index.html"]
    assert await page_of(project) == PAGE, "the write it made is kept"
    assert not await locked()


async def html_until_closed(socket: WebsocketCommunicator) -> tuple[str, int]:
    """The HTML frames a page's socket gets until it is closed, and the close code."""
    frames: list[str] = []
    while True:
        output = await socket.receive_output(timeout=15)
        if output["type"] == "websocket.close":
            return "".join(frames), output.get("code", 1000)
        frames.append(output["text"])


async def test_a_turn_that_ends_within_the_grace_is_recorded_as_completed(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    held = Held(Reply(content="Done."))
    scripted.responder = WriteThenHold(held)
    async with (
        opened(project, user) as watcher,
        opened(project, user, as_json=False) as page,
    ):
        await send(page, message="Build the bakery's page")
        await events_until(watcher, "files_changed")
        drain = asyncio.ensure_future(draining.drain(grace=30))
        await asyncio.sleep(0)  # the drain has begun: no new turn from here on
        held.release()
        events, code = await closed_with(watcher)
        shown, page_code = await html_until_closed(page)
        drained = await drain

    assert code == page_code == Close.SERVICE_RESTART
    # The page that sent it saw the turn end (its footer) before it was closed.
    assert 'class="turn-footer completed' in shown
    assert events[-1]["type"] == "done"
    assert events[-1]["status"] == "completed"
    assert drained == draining.Drained(finished=1, interrupted=0)
    assert (await closing_record(project))["status"] == "completed"


async def test_once_draining_no_turn_starts_and_new_tabs_are_sent_elsewhere(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    async with opened(project, user) as tab:
        drained = await draining.drain(grace=1)
        _, code = await closed_with(tab)
    assert drained == draining.Drained(finished=0, interrupted=0)
    assert code == Close.SERVICE_RESTART

    late = await communicator(socket_path(project), user=user)
    connected, _ = await late.connect()
    assert connected
    assert (await late.receive_output(timeout=5))["code"] == Close.SERVICE_RESTART

    conversation = await sync_to_async(services.conversation_create)(project=project)
    started = await turns.start(TurnRequest(project, conversation, "Hello", user=user))
    assert started == turns.TurnRefused(turns.RESTARTING)
    assert scripted.requests == [], "nothing was asked of the model"


async def test_a_busy_notice_reaches_a_tab_that_sends_while_the_drain_runs(
    scripted: FakeOpenRouter, project: Project, other_project: Project, user: User
) -> None:
    """A tab kept open for its running turn cannot start another one meanwhile."""
    held = Held(Reply(content="Done."))
    scripted.responder = WriteThenHold(held)
    async with opened(project, user) as watcher:
        await send(watcher, message="Build the bakery's page")
        await events_until(watcher, "files_changed")
        drain = asyncio.ensure_future(draining.drain(grace=30))
        await asyncio.sleep(0)
        await send(watcher, message="And a contact page")
        refusal = await next_event(watcher)
        while refusal["type"] != "error":
            refusal = await next_event(watcher)
        held.release()
        await closed_with(watcher)
        await drain
    assert refusal["code"] == "busy"
    assert refusal["message"] == turns.RESTARTING


async def test_an_interrupt_during_a_persons_stop_leaves_the_stop_recorded(
    scripted: FakeOpenRouter, project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stop pressed, and the shutdown's interrupt arriving while the stop is being
    recorded: a second cancel cut the recording short, and the turn ended on a
    `done` that pointed at no record."""
    held = Held(Reply(content="Done."))
    scripted.responder = WriteThenHold(held)
    changed = asyncio.Event()
    conversation = await sync_to_async(services.conversation_create)(project=project)
    live = await turns.start(
        TurnRequest(project, conversation, "Build the bakery's page", user=user),
        observer=lambda event: changed.set() if event.type == "files_changed" else None,
    )
    assert isinstance(live, turns.LiveTurn)
    await asyncio.wait_for(changed.wait(), 15)
    # The stop's recording waits until the interrupt has come.
    recording, interrupted = threading.Event(), threading.Event()
    store_closing = _Turn._store_closing

    def held_store(turn: _Turn, *args: Any) -> Any:
        recording.set()
        interrupted.wait(15)
        return store_closing(turn, *args)

    monkeypatch.setattr(_Turn, "_store_closing", held_store)
    live.stop()
    assert await asyncio.to_thread(recording.wait, 15)
    live.interrupt()
    interrupted.set()
    assert live.task is not None
    await asyncio.wait_for(asyncio.shield(live.task), 15)
    held.release()

    assert live.done is not None
    assert live.done.message_id is not None, "the done points at its record"
    assert (await closing_record(project))["status"] == live.done.status
    assert not await locked()
