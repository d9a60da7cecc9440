"""Turns that belong to a project, not to a socket (DESIGN §7).

    started = await turns.start(TurnRequest(project, conversation, "Add a contact page", user=u))
    if isinstance(started, turns.Busy): ...   # another turn is running on this project

`start` takes the project's lock (a database row, so it holds across server
processes) and runs the loop in a task of its own: closing the tab that asked
does not stop it. Its events are numbered and sent, in order, to the project's
channel-layer group, so every open tab of the project sees the same turn.

The lock names the turn's control channel. Through it any process can stop the
turn (`stop`) or ask for what it has sent so far (`ask_replay`), which is how a
tab opened mid-turn catches up before following it live.

Streamed text goes out in frames at most FRAME_INTERVAL apart per turn, adjacent
pieces merged: no one reads faster, and a busy server pays per message, not per
piece the model sends. The first text after a quiet spell goes at once, and any
other event (a tool call, done) takes the text waiting before it along at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from channels.layers import BaseChannelLayer, get_channel_layer
from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from chat import services
from chat.agent import records, threads
from chat.agent.events import ContentText, Done, Event, ReasoningText, to_json
from chat.agent.failures import INTERNAL_ERROR, SERVER_STOPPED
from chat.agent.loop import StopCause, TurnRequest, run_turn
from chat.agent.person_limits import running_turn_limit, too_many_turns_message
from chat.changes import turn_revisions
from chat.live import messages
from chat.llm import LLMClient, Usage
from chat.llm.deltas import joined_runs, joined_text
from chat.models import Conversation, Message
from common.jsontypes import as_object
from projects.locks import LockHeld, lock_acquire, lock_current, lock_refresh, lock_release
from projects.models import Project, ProjectLock

logger = logging.getLogger(__name__)

LOCK_PURPOSE = "assistant"
LISTENER_GRACE = 10.0  # seconds a turn's listener has to hear that the turn ended
HEARTBEATS_PER_TTL = 5  # lock refreshes per BUILTIT_TURN_LOCK_TTL
STOP_WAIT = 10.0  # seconds a shutdown waits for its interrupted turns to record themselves
FRAME_INTERVAL = 0.03  # seconds: a turn's streamed text is sent at most this often
_TEXT = (ContentText, ReasoningText)


def group_name(project_id: uuid.UUID) -> str:
    return f"project.{project_id.hex}"


@dataclass(frozen=True)
class Busy:
    message: str


@dataclass(frozen=True)
class RunningTurn:
    """What a lock says about the turn holding it."""

    key: str
    conversation_id: int | None
    first_sequence: int  # the turn's messages have this sequence or later
    channel: str | None


def running_turn(project: Project | uuid.UUID) -> RunningTurn | None:
    """The turn running on a project now, if any (synchronous: call it in a thread)."""
    lock = lock_current(project)
    return None if lock is None else _described(lock)


async def start(
    order: TurnRequest,
    *,
    client: LLMClient | None = None,
    observer: Callable[[Event], None] | None = None,
) -> LiveTurn | Busy:
    """Start a turn unless one is running on the project; `observer` sees each event."""
    if not _PROCESS.accepting:
        return Busy(RESTARTING)
    layer = get_channel_layer()
    control = await layer.new_channel() if layer is not None else None
    lock = await threads.run(_acquire, order, control)
    if isinstance(lock, Busy):
        return lock
    if isinstance(lock, LockHeld):
        return Busy(busy_message())
    if not _PROCESS.accepting:  # the shutdown began meanwhile: it would not wait for this one
        await threads.run(lock_release, lock)
        return Busy(RESTARTING)
    turn = LiveTurn(order, lock, layer, control, client, observer)
    turn.begin()
    return turn


async def stop(project_id: uuid.UUID) -> bool:
    """Ask the project's running turn to stop, wherever it runs; False if none runs."""
    turn = await threads.run(running_turn, project_id)
    layer = get_channel_layer()
    if turn is None or turn.channel is None or layer is None:
        return False
    await layer.send(turn.channel, messages.TurnStop(type="turn.stop"))
    return True


async def ask_replay(turn: RunningTurn, reply_to: str) -> bool:
    """Ask a running turn to send `reply_to` every event so far (as REPLAYED)."""
    layer = get_channel_layer()
    if turn.channel is None or layer is None:
        return False
    await layer.send(turn.channel, messages.TurnReplay(type="turn.replay", reply_to=reply_to))
    return True


async def wait_all() -> None:
    """Wait for every turn this process runs (tests, and a clean shutdown)."""
    while _LIVE:
        await asyncio.wait([turn.task for turn in list(_LIVE) if turn.task is not None])


# --- a clean shutdown (chat.live.draining) ----------------------------------------------

RESTARTING = "This server is restarting, so it takes no new turns. Send again in a moment."


@dataclass
class _Process:
    accepting: bool = True  # until its shutdown begins


_PROCESS = _Process()


def accepting() -> bool:
    """Whether this process starts new turns (not once its shutdown began)."""
    return _PROCESS.accepting


def refuse_new() -> None:
    _PROCESS.accepting = False


def running_here() -> set[uuid.UUID]:
    """The projects whose turn runs in this process."""
    return {turn.order.project.pk for turn in _LIVE}


async def finish_all(*, grace: float) -> int:
    """Let this process's turns finish for up to `grace` seconds, then stop the
    rest as interrupted by the server (each records what it did and tells every
    tab, as a stop does). Returns how many had to be interrupted."""
    running = [turn.task for turn in list(_LIVE) if turn.task is not None]
    if running:
        await asyncio.wait(running, timeout=grace)
    late = [turn for turn in list(_LIVE) if turn.task is not None and not turn.task.done()]
    for turn in late:
        turn.interrupt()
    if late:
        # A write under way completes first (up to a tool's timeout): past this
        # the process exits anyway, and the tabs' watchdogs record what is left.
        await asyncio.wait([turn.task for turn in late if turn.task is not None], timeout=STOP_WAIT)
    return len(late)


def busy_message() -> str:
    return (
        "The assistant is already working on this project (perhaps from another tab). "
        "Wait for it to finish, or press Stop."
    )


_LIVE: set[LiveTurn] = set()  # strong references: a task nobody holds may vanish


@dataclass(frozen=True, slots=True)
class Numbered:
    seq: int
    event: Event

    def to_json(self) -> messages.NumberedEvent:
        return {"seq": self.seq, "event": to_json(self.event)}


@dataclass(eq=False)  # kept in a set, by identity
class LiveTurn:
    order: TurnRequest
    lock: ProjectLock
    layer: BaseChannelLayer | None
    control: str | None
    client: LLMClient | None
    observer: Callable[[Event], None] | None
    task: asyncio.Task[None] | None = None
    done: Done | None = None
    # Events already sent to the group, for tabs that catch up.
    history: list[Numbered] = field(default_factory=list)
    _pending: list[Event] = field(default_factory=list)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _ended: bool = False
    _drive: asyncio.Task[None] | None = None
    _heartbeat_task: asyncio.Task[None] | None = None
    _stopping: bool = False
    _cause: StopCause = "person"  # who stops it, when it is stopped (chat.agent.loop)
    _framed: float = float("-inf")  # loop time text last went out
    _holding: bool = False  # text waits for its frame: more text need not wake the publisher

    @property
    def key(self) -> str:
        return self.lock.holder

    @property
    def group(self) -> str:
        return group_name(self.order.project.pk)

    def begin(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"turn {self.key}")
        _LIVE.add(self)
        self.task.add_done_callback(lambda _: _LIVE.discard(self))

    def stop(self) -> None:
        """Cancel the turn's loop, once: a second cancel (Stop pressed twice, or a
        shutdown's interrupt during a person's stop) would cut short the stop's
        own recording, and the turn would end with no record."""
        if self._drive is not None and not self._stopping:
            self._stopping = True
            self._drive.cancel()

    def interrupt(self) -> None:
        """Stop the turn as interrupted by the server: recorded so, with what it did kept."""
        if self._cause != "taken":
            self._cause = "server"
        self.stop()

    async def _run(self) -> None:
        self._heartbeat_task = asyncio.create_task(self._heartbeat())
        listener = asyncio.create_task(self._listen()) if self.control is not None else None
        publisher = asyncio.create_task(self._publish())
        self._drive = asyncio.create_task(self._follow())
        try:
            await asyncio.wait({self._drive})
        except asyncio.CancelledError:  # the server is shutting down: stop the turn too
            self.interrupt()
            await asyncio.wait({self._drive})
        finally:
            if self.done is None:  # stopped before the loop could record anything
                self._emit(Done("stopped", "stopped", 0, None))
            self._ended = True
            self._wake.set()
            await asyncio.wait({publisher}, timeout=5)
            await self._release()
            if listener is not None:
                await self._stop_listening(listener)

    async def _follow(self) -> None:
        try:
            async for event in run_turn(
                self.order,
                client=self.client,
                on_stopped=self._stopped,
                stopped_by=lambda: self._cause,
            ):
                self._emit(event)
        except asyncio.CancelledError:
            raise
        except Exception:  # the loop reports its own failures; this is a bug
            logger.exception("Turn %s failed outside the loop", self.key)
            self._emit(INTERNAL_ERROR)
            self._emit(Done("error", "failed", 0, None))

    def _stopped(self, done: Done) -> None:
        if done.status == "interrupted":  # the tabs say why, as for a crash
            self._emit(SERVER_STOPPED)
        self._emit(done)

    def _emit(self, event: Event) -> None:
        if self.done is not None:
            return
        if isinstance(event, Done):
            self.done = event
        if self.observer is not None:
            self.observer(event)
        self._pending.append(event)
        if not (self._holding and isinstance(event, _TEXT)):
            self._wake.set()

    async def _publish(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self._hold_text()
            batch, self._pending = self._pending, []
            if batch:
                await self._send(merged(batch))
            if self._ended and not self._pending:
                return

    async def _release(self) -> None:
        if self._heartbeat_task is None:
            return
        self._heartbeat_task.cancel()
        self._heartbeat_task = None
        await threads.run(lock_release, self.lock)

    async def _hold_text(self) -> None:
        """While only text waits, wait for its frame; any other event, or the
        turn's end, sends it at once (so nothing is held behind text)."""
        loop = asyncio.get_running_loop()
        self._holding = True
        try:
            while not self._ended and all(isinstance(event, _TEXT) for event in self._pending):
                due = self._framed + FRAME_INTERVAL - loop.time()
                if due <= 0:
                    return
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(due):
                        await self._wake.wait()
                self._wake.clear()
        finally:
            self._holding = False

    async def _send(self, events: list[Event]) -> None:
        if self.done is not None and self.done in events:
            await self._release()  # first: a tab that saw `done` may start the next turn at once
        if any(isinstance(event, _TEXT) for event in events):
            self._framed = asyncio.get_running_loop().time()
        first = len(self.history) + 1
        numbered = [Numbered(first + index, event) for index, event in enumerate(events)]
        self.history += numbered
        if self.layer is None:
            return
        try:
            await self.layer.group_send(self.group, self._message("turn.events", numbered))
        except Exception:  # a full or unreachable layer must not end the turn
            logger.exception("Could not send turn %s events to %s", self.key, self.group)

    def _message(
        self, kind: Literal["turn.events", "turn.replayed"], events: list[Numbered]
    ) -> messages.TurnEvents:
        return messages.turn_events(
            kind,
            turn=self.key,
            conversation=self.order.conversation.pk,
            events=[item.to_json() for item in events],
        )

    async def _listen(self) -> None:
        assert self.layer is not None
        assert self.control is not None
        while True:
            # Only this process sends here (stop, ask_replay, the turn's own end).
            message = await self.layer.receive(self.control)
            if message.get("type") == "turn.ended":
                return
            if message.get("type") == "turn.stop":
                self.stop()
            elif message.get("type") == "turn.replay" and isinstance(message.get("reply_to"), str):
                replay = self._message("turn.replayed", compacted(self.history))
                try:
                    await self.layer.send(message["reply_to"], replay)
                except Exception:
                    logger.exception("Could not send turn %s replay", self.key)

    async def _stop_listening(self, listener: asyncio.Task[None]) -> None:
        """End `_listen` with a message rather than a cancel. On Redis every
        receive of this process shares one queue, and a receive cancelled while
        Redis hands it a message loses that message (channels_redis #366): here,
        as the turn ends, that was often a tab's `done`."""
        assert self.layer is not None
        assert self.control is not None
        try:
            await self.layer.send(self.control, messages.TurnEnded(type="turn.ended"))
        except Exception:
            logger.exception("Could not tell turn %s's listener to stop", self.key)
        # Redis ends a blocking read within brpop_timeout (5 s): if the note has
        # not arrived by then, it never will, and a cancel loses nothing more.
        await asyncio.wait({listener}, timeout=LISTENER_GRACE if _PROCESS.accepting else 1.0)
        listener.cancel()

    async def _heartbeat(self) -> None:
        """Refresh the lock several times per lifetime, so that only a process
        stalled for most of BUILTIT_TURN_LOCK_TTL looks dead to the tabs' watchdogs."""
        ttl = settings.BUILTIT_TURN_LOCK_TTL
        while True:
            await asyncio.sleep(ttl / HEARTBEATS_PER_TTL)
            try:
                held = await threads.run(lock_refresh, self.lock, ttl=ttl)
            except DatabaseError:  # a blip: the next beat tries again, well within the TTL
                logger.warning("Could not refresh turn %s's lock", self.key, exc_info=True)
                continue
            if not held:
                # A tab found the lock lapsed and recorded the turn as interrupted;
                # another turn may start now, so this one must not write on.
                logger.warning("Turn %s lost its project lock; stopping it", self.key)
                self._cause = "taken"
                self.interrupt()
                return


def merged(events: list[Event]) -> list[Event]:
    """Adjacent text pieces of one kind as one event; everything else as it was."""
    return joined_text(events, (ContentText, ReasoningText))


def compacted(history: list[Numbered]) -> list[Numbered]:
    """`merged`, for numbered events: a merged one keeps the last number."""
    return joined_runs(history, _numbered_joined)


def _numbered_joined(last: Numbered, item: Numbered) -> Numbered | None:
    joined = merged([last.event, item.event])
    return Numbered(item.seq, joined[0]) if len(joined) == 1 else None


TurnState = Literal["running", "lapsed", "ended"]


def turn_state(project_id: uuid.UUID, key: str) -> TurnState:
    """What the lock says of the turn `key`: its server still refreshes it; it
    lapsed (the server stopped: nobody else removes a lock); or it is gone (the
    turn ended and released it, its `done` on its way, or another tab already
    found it lapsed and said so)."""
    lock = ProjectLock.objects.filter(project_id=project_id, holder=key).first()
    if lock is None:
        return "ended"
    return "running" if lock.expires_at > timezone.now() else "lapsed"


def turn_recorded(request_id: int) -> Done | None:
    """The `done` of the turn that began with message `request_id`, from its stored
    closing record (for a tab whose live `done` never came); None while it has none."""
    request = Message.objects.filter(pk=request_id, role=Message.Role.USER).first()
    if request is None:
        return None
    closing = (
        Message.objects.filter(
            conversation_id=request.conversation_id,
            sequence__gt=request.sequence,
            metadata__has_key="turn",
        )
        .order_by("sequence")
        .first()
    )
    if closing is None:
        return None
    return records.turn_done(as_object(closing.metadata.get("turn")), closing.pk)


@transaction.atomic
def turn_abandon(project_id: uuid.UUID, key: str) -> bool:
    """The turn `key` whose server stopped refreshing its lock (it crashed, or was
    killed): the lapsed lock goes and the turn is recorded as interrupted, with what
    it had stored kept. True for the one caller that did it (any tab may try)."""
    lock = (
        ProjectLock.objects.select_for_update()
        .filter(project_id=project_id, holder=key, expires_at__lte=timezone.now())
        .first()
    )
    if lock is None:
        return False
    turn = _described(lock)
    lock.delete()
    conversation = Conversation.objects.filter(pk=turn.conversation_id or 0).first()
    if conversation is None:
        return True
    in_turn = conversation.messages.filter(sequence__gte=turn.first_sequence)
    if in_turn.filter(metadata__has_key="turn").exists():
        return True  # it closed after all
    services.message_create(
        conversation=conversation,
        sequence=services.next_sequence(conversation),
        role=Message.Role.ASSISTANT,
        metadata={"turn": _interrupted_record(in_turn)},
    )
    return True


def _interrupted_record(in_turn: QuerySet[Message]) -> dict[str, Any]:
    """The closing record of a turn its server never closed, from what it stored:
    its replies' usage and the files its calls changed."""
    replies = list(in_turn.filter(role=Message.Role.ASSISTANT).values_list("metadata", flat=True))
    usage = sum(
        (Usage.from_wire(as_object(as_object(metadata).get("usage"))) for metadata in replies),
        Usage(),
    )
    request = in_turn.filter(role=Message.Role.USER).order_by("sequence").first()
    last = in_turn.order_by("sequence").last()
    changed = turn_revisions(request).values_list("path", flat=True) if request else []
    # Until the last thing it stored: when it stopped after that is not known.
    seconds = (last.created_at - request.created_at).total_seconds() if request and last else 0
    return records.turn_metadata(
        status="interrupted",
        finish_reason="server_stopped",
        iterations=len(replies),
        usage=usage,
        files_changed=list(dict.fromkeys(changed)),
        tool_timings=[],
        seconds=seconds,
        error=SERVER_STOPPED,
    )


@transaction.atomic
def _acquire(order: TurnRequest, control: str | None) -> ProjectLock | LockHeld | Busy:
    owner_id = order.project.owner_id
    # One start at a time per person (the row lock on PostgreSQL; SQLite's
    # IMMEDIATE transactions already run one at a time), so that two turns
    # starting together cannot both pass the count of running ones.
    User.objects.select_for_update().filter(pk=owner_id).first()
    limit = running_turn_limit(user_id=owner_id)
    if limit is not None:
        running = (
            ProjectLock.objects.filter(
                project__owner_id=owner_id, purpose=LOCK_PURPOSE, expires_at__gt=timezone.now()
            )
            .exclude(project=order.project)
            .count()
        )
        if running >= limit:
            return Busy(too_many_turns_message(running))
    for lapsed in ProjectLock.objects.filter(
        project=order.project, purpose=LOCK_PURPOSE, expires_at__lte=timezone.now()
    ):
        # Its server died and no tab was there to see it: record it before the
        # lock is taken over, as a watching tab would have.
        turn_abandon(order.project.pk, lapsed.holder)
    details = {
        "conversation": order.conversation.pk,
        "first_sequence": services.next_sequence(order.conversation),
        "channel": control,
    }
    ttl = settings.BUILTIT_TURN_LOCK_TTL
    return lock_acquire(project=order.project, purpose=LOCK_PURPOSE, details=details, ttl=ttl)


def _described(lock: ProjectLock) -> RunningTurn:
    details = lock.details if isinstance(lock.details, dict) else {}
    conversation = details.get("conversation")
    first = details.get("first_sequence")
    channel = details.get("channel")
    return RunningTurn(
        key=lock.holder,
        conversation_id=conversation if isinstance(conversation, int) else None,
        first_sequence=first if isinstance(first, int) else 0,
        channel=channel if isinstance(channel, str) else None,
    )
