"""Turns that belong to a project, not to a socket (DESIGN §7).

    started = await turns.start(TurnRequest(project, conversation, "Add a contact page", user=u))
    if isinstance(started, turns.TurnRefused): ...   # another turn is running on this project

`start` takes the project's lock (a database row, so it holds across server
processes) and runs the loop in a task of its own: closing the tab that asked
does not stop it. Its events are numbered and sent, in order, to the project's
group on the channel layer (chat.live.layer), so every open tab of the project,
in any process, sees the same turn.

The lock names the turn's control channel, through which any process can stop
the turn (`stop`), and a tab that opens mid-turn reads what the turn sent so
far (`replay`) before following it.

Events go out as soon as the turn's publisher runs; those that came meanwhile
go together, adjacent text merged. On a busy server (chat.live.load) text also
waits up to BUSY_WINDOW for more to join it, so it pays per message rather than
per piece the model sends; an idle one adds no wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from channels.layers import BaseChannelLayer, get_channel_layer

from chat import services
from chat.agent.compaction import COMPACTION_LOCK
from chat.agent.events import SERVER_STOPPED, Done, Event
from chat.agent.failures import INTERNAL_ERROR
from chat.agent.loop import StopCause, TurnRequest, run_turn
from chat.agent.person_limits import running_turn_limit, too_many_turns_message
from chat.agent.state import payer_id
from chat.live import messages
from chat.live.heartbeat import heartbeat
from chat.live.layer import LiveLayer
from chat.live.load import BUSY_WINDOW, load
from chat.live.numbering import TEXT, Numbered, merged, merged_numbered
from chat.llm import LLMClient
from chat.selectors.running import running_turn, sent_by
from common import threads
from common.refusals import Refusal
from projects.locks import LockHeld, lock_release
from projects.models import ProjectLock

logger = logging.getLogger(__name__)

STOP_WAIT = 10.0  # seconds a shutdown waits for its interrupted turns to record themselves
RELAY_WAIT = 5.0  # seconds a turn's end waits for its last frames to reach Redis


def group_name(project_id: uuid.UUID) -> str:
    return f"project.{project_id.hex}"


@dataclass(frozen=True)
class TurnRefused(Refusal):
    """A turn not started: another is running, or the server is restarting."""


async def start(
    order: TurnRequest,
    *,
    client: LLMClient | None = None,
    observer: Callable[[Event], None] | None = None,
) -> LiveTurn | TurnRefused:
    """Start a turn unless one is running on the project; `observer` sees each event."""
    if not _PROCESS.accepting:
        return TurnRefused(RESTARTING)
    layer = get_channel_layer()
    control = await layer.new_channel() if layer is not None else None
    lock = await threads.run(_acquire, order, control)
    if isinstance(lock, TurnRefused):
        return lock
    if isinstance(lock, LockHeld):
        user_id, name = sent_by(lock.details)
        asking = order.user.pk if order.user is not None else order.project.owner_id
        return TurnRefused(busy_message(lock.purpose, by=name if user_id != asking else ""))
    if not _PROCESS.accepting:  # the shutdown began meanwhile: it would not wait for this one
        await threads.run(lock_release, lock)
        return TurnRefused(RESTARTING)
    turn = LiveTurn(order, lock, layer, control, client, observer)
    turn.begin()
    return turn


async def stop(project_id: uuid.UUID, *, sent_by: int | None = None) -> bool:
    """Ask the project's running turn to stop, wherever it runs; False if none
    runs (with `sent_by`: if none that person sent)."""
    turn = await threads.run(running_turn, project=project_id)
    layer = get_channel_layer()
    if turn is None or turn.channel is None or layer is None:
        return False
    if sent_by is not None and turn.user_id != sent_by:
        return False
    await layer.send(turn.channel, messages.TurnStop(type="turn.stop"))
    return True


async def replay(key: str, after: int) -> list[messages.NumberedEvent] | None:
    """What the turn `key` has sent after its event number `after`, adjacent text
    merged: from the turn itself when it runs here, else from its log (Redis);
    None when neither can say."""
    for turn in _LIVE:
        if turn.key == key:
            return [
                item.to_json()
                for item in merged_numbered([i for i in turn.history if i.seq > after])
            ]
    layer = get_channel_layer()
    return await layer.since(key, after) if isinstance(layer, LiveLayer) else None


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


def busy_message(purpose: str = "", *, by: str = "") -> str:
    """Why a message cannot start a turn now; `by`: the other person whose turn
    runs (a project may be shared), "" when it is the person's own."""
    if purpose == COMPACTION_LOCK:  # no turn runs, so no Stop: it ends by itself
        return (
            "The conversation's earlier turns are being summarised (compacting). Send "
            "again in a moment: your message stays in the box."
        )
    if by:
        return (
            f"{by} is working with the assistant on this project right now: one turn "
            "runs at a time. Send yours when theirs has finished: your message stays "
            "in the box."
        )
    return (
        "The assistant is already working on this project (perhaps from another tab). "
        "Wait for it to finish, or press Stop."
    )


_LIVE: set[LiveTurn] = set()  # strong references: a task nobody holds may vanish


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
    # Text waits for more to join it (_hold_text): only other events wake the publisher.
    _holding: bool = False
    _drive: asyncio.Task[None] | None = None
    _beating: bool = False  # its lock is refreshed (chat.live.heartbeat) until released
    _stopping: bool = False
    _cause: StopCause = "person"  # who stops it, when it is stopped (chat.agent.loop)

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
        self._beating = True
        heartbeat().add(self)
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
            if isinstance(self.layer, LiveLayer):  # other processes' tabs see the end first
                await _drained(self.layer)
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
        if not (self._holding and isinstance(event, TEXT)):
            self._wake.set()

    async def _publish(self) -> None:
        busy = load()
        busy.use()
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                if busy.busy:
                    await self._hold_text()
                batch, self._pending = self._pending, []
                if batch:
                    await self._send(merged(batch))
                if self._ended and not self._pending:
                    return
        finally:
            busy.release()

    async def _hold_text(self) -> None:
        """While only text waits (on a busy server), let more join it for up to
        BUSY_WINDOW; any other event, or the turn's end, sends it at once. The
        text that joins meanwhile does not wake the publisher: on a busy server
        a wake and a timer for every piece were a twentieth of its work."""
        if self._ended or not all(isinstance(event, TEXT) for event in self._pending):
            return
        self._holding = True
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(BUSY_WINDOW):
                    await self._wake.wait()
        finally:
            self._holding = False
        self._wake.clear()

    async def _release(self) -> None:
        if not self._beating:
            return
        self._beating = False
        heartbeat().discard(self)
        await threads.run(lock_release, self.lock)

    async def _send(self, events: list[Event]) -> None:
        if self.done is not None and self.done in events:
            await self._release()  # first: a tab that saw `done` may start the next turn at once
        first = len(self.history) + 1
        numbered = [Numbered(first + index, event) for index, event in enumerate(events)]
        self.history += numbered
        message = messages.turn_events(
            turn=self.key,
            conversation=self.order.conversation.pk,
            events=[item.to_json() for item in numbered],
            first=first,
        )
        if self.layer is not None:
            await self.layer.group_send(group_name(self.order.project.pk), message)

    async def _listen(self) -> None:
        assert self.layer is not None
        assert self.control is not None
        while True:
            # Any process sends its stop here (chat.live.layer takes it there).
            message = await self.layer.receive(self.control)
            if message.get("type") == "turn.stop":
                self.stop()

    async def _stop_listening(self, listener: asyncio.Task[None]) -> None:
        """The turn has ended: so does its listener. Its channel is this process's,
        and a receive cancelled there loses nothing."""
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)

    def lock_lost(self) -> None:
        """A tab found the lock lapsed and recorded the turn as interrupted;
        another turn may start now, so this one must not write on."""
        logger.warning("Turn %s lost its project lock; stopping it", self.key)
        self._beating = False
        self._cause = "taken"
        self.interrupt()


async def _drained(layer: LiveLayer) -> None:
    """Until the turn's last frames, queued by now, reach Redis (or RELAY_WAIT):
    what other turns send meanwhile is not waited for."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(RELAY_WAIT):
            await layer.drain()


def _acquire(order: TurnRequest, control: str | None) -> ProjectLock | LockHeld | TurnRefused:
    taken = services.turn_lock_take(
        project=order.project,
        conversation=order.conversation,
        channel=control,
        limit=running_turn_limit(user_id=payer_id(order)),  # the sender's own limit
        sender=order.user,
    )
    if isinstance(taken, services.TooManyTurns):
        return TurnRefused(too_many_turns_message(taken.running))
    return taken
