"""What a tab shows of its project's turns: the one it follows, drawn as its
events arrive, and a catch-up from what is stored (DESIGN §7). A plain class:
the consumer hands it messages and it hands back frames through a `Screen`,
so its rules are tested without a socket.

Events are numbered per turn; the tab keeps the last it showed and skips
anything not after it, so the replay a tab reads as it (re)connects and the
same events reaching it live show once. A turn whose beginning the tab never
saw is not drawn from its middle: when it ends, the tab shows what is stored.
Each turn's end shows once: from its `done`, from the watchdog (chat.live.watchdog),
or, when the next turn's events come first, from its stored record.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings

from chat.agent.events import (
    SERVER_STOPPED,
    Done,
    Event,
    FilesChanged,
    TurnStarted,
    from_json,
    to_json,
)
from chat.live import messages, snapshot
from chat.live.framing import json_frames
from chat.live.numbering import merged_json
from chat.models import Conversation
from chat.records.turn import ClosedTurn
from chat.render import panel, streaming
from chat.render.fragments import TurnDrawing
from chat.selectors.running import RunningTurn, running_turn
from chat.selectors.turns import turn_closed, turn_closed_at
from common import threads
from projects.models import Project
from projects.web.workspace import tree_html

# What a tab is told of a turn whose server stopped before it finished, when no
# record of its end reached the tab (a script's socket reads them as events).
LOST: tuple[Event, ...] = (SERVER_STOPPED, Done("server_stopped", "interrupted", 0, None))
# A turn's end when it stopped before it stored any (chat.live.turns LiveTurn._run).
STOPPED_EARLY = Done("stopped", "stopped", 0, None)


class Screen(Protocol):
    """Where a tab's frames go (the consumer, or a test's list)."""

    async def send_html(self, html: str) -> None: ...
    async def send_text(self, text: str) -> None: ...
    def signal(self, *, files: list[str] | None = None) -> str: ...
    def redraw_after(self, seconds: float) -> None:
        """Call the follower's `redraw` in `seconds`, in turn with the tab's messages."""

    def notice_done(self) -> str:
        """The chat's notice cleared, if this socket put one there that a turn's
        end makes stale ("busy"): never another's (a summary's result)."""


class Replay(Protocol):
    async def __call__(self, key: str, after: int) -> list[messages.NumberedEvent] | None: ...


class Watch(Protocol):
    def __call__(self, key: str | None) -> None: ...


@dataclass(frozen=True)
class Owed:
    """The turn whose end a tab is owed (it watches it), and how to find that
    end where it is stored: by the person's message that began it, or by what
    its lock said when the tab caught up with it."""

    key: str
    request: int | None = None
    running: RunningTurn | None = None


class TurnFollower:
    def __init__(
        self,
        *,
        project: Project,
        conversation: Conversation | None,
        as_json: bool,
        screen: Screen,
        replay: Replay,
        watch: Watch,
    ) -> None:
        self.project = project
        self.conversation = conversation
        self.as_json = as_json
        self._screen = screen
        self._replay = replay
        self._watch = watch
        self.turn_key: str | None = None  # the turn this tab follows
        self.turn_request: int | None = None  # the id of the person's message that began it
        self.last_seq = 0
        self.drawing: TurnDrawing | None = None
        self.own = False  # whether the followed turn is in this tab's conversation
        self.holed = False  # events of the followed turn were lost on their way
        self.owed: Owed | None = None  # the turn this tab watches, its end not shown yet
        # Turns whose end this tab showed: their frames that come late (from
        # another process, behind the next turn's) are old news.
        self._over: deque[str] = deque(maxlen=8)

    # --- live ---------------------------------------------------------------------------

    async def follow(self, message: messages.TurnEvents) -> bool:
        """Show the fresh events of `message`; True when they ended the turn."""
        key, items = message["turn"], message["events"]
        if not await self._news(key):
            return False
        ended = any(item["event"].get("type") == "done" for item in items)
        if key != self.turn_key and not self._begin(message):
            self._watching(key, ended=ended)
            # The middle of a turn this tab never saw begin: once it ends, redraw.
            if not self.as_json and ended:
                await self.catch_up()
            return ended
        self._watching(key, ended=ended)
        first = message.get("first", items[0]["seq"] if items else 0)
        if first > self.last_seq + 1:
            items = await self._with_missing(key, items)
        fresh = merged_json([item for item in items if item["seq"] > self.last_seq])
        if not fresh:
            return False
        self.last_seq = fresh[-1]["seq"]
        if self.as_json:
            for item in fresh:
                for frame in json_frames(item["event"], settings.BUILTIT_MAX_FRAME_BYTES):
                    await self._screen.send_text(frame)
        else:
            await self._screen.send_html(await self._html([from_json(i["event"]) for i in fresh]))
            self._redraw_soon()
            if ended and self.holed:
                await self.catch_up()  # what the tab missed, as stored
        return ended

    async def _news(self, key: str) -> bool:
        """Whether events of the turn `key` are news: not of a turn whose end
        this tab showed. A turn it was owed the end of that they replace ended
        first (`_replaced`)."""
        if key in self._over:
            return False
        if self.owed is not None and self.owed.key != key:
            await self._replaced(self.owed)
            if not self.as_json and (self.owed is None or self.owed.key != key):
                # The page's redraw found `key` not running: it ended before its
                # events reached here, and the redraw showed it as stored.
                self._over.append(key)
        return key not in self._over

    def _begin(self, message: messages.TurnEvents) -> bool:
        """Follow the turn `message` begins; False if it is not its beginning."""
        items = message["events"]
        if not items or items[0]["seq"] != 1:
            return False
        self.turn_key, self.last_seq, self.drawing, self.holed = message["turn"], 0, None, False
        started = items[0]["event"].get("message_id")
        self.turn_request = started if isinstance(started, int) else None
        self.own = message["conversation"] == (self.conversation and self.conversation.pk)
        return True

    def _watching(self, key: str, *, ended: bool) -> None:
        """The turn `key` sent events: this tab is owed its end until they end it."""
        if ended:
            self._owe(None)
            self._over.append(key)
            return
        running = self.owed.running if self.owed is not None and self.owed.key == key else None
        request = self.turn_request if key == self.turn_key else None
        self._owe(Owed(key, request, running))

    def _watch_running(self, running: RunningTurn | None) -> None:
        """The project's running turn, as its lock says, is the one to watch."""
        if running is None:
            self._owe(None)
        elif self.owed is not None and self.owed.key == running.key:
            self._owe(Owed(running.key, self.owed.request, running))
        else:
            self._owe(Owed(running.key, running=running))

    def _owe(self, owed: Owed | None) -> None:
        self.owed = owed
        self._watch(None if owed is None else owed.key)

    async def _replaced(self, owed: Owed) -> None:
        """Another turn sends while this tab is owed the end of `owed`: that one
        ended without its end reaching here. Its server died and the new turn,
        taking the lapsed lock over, recorded it as interrupted (no watchdog had
        looked yet); or its `done`, from another process, comes behind the new
        turn's events. Either way its end is stored by now (a turn stores it
        before it releases its lock; a dead server's turn is recorded before its
        lock is taken over), so it is shown from there, before the new turn,
        and whatever of it still comes is dropped (`_over`)."""
        self._ending(owed.key)
        if not self.as_json:
            await self.catch_up()  # the log as stored, then the new turn from its start
            return
        # With no stored end: a turn this script saw begin stopped before it
        # could store one, its `done` (this one) behind the new turn's events;
        # else the lock was no turn of a conversation (a summary's): nothing is owed.
        seen_begin = owed.request is not None
        await self._tell_stored(owed, otherwise=(STOPPED_EARLY,) if seen_begin else ())

    async def _tell_stored(self, owed: Owed, *, otherwise: tuple[Event, ...]) -> None:
        """A script's end of the turn `owed`, from its stored record, or `otherwise`."""
        closed = await threads.run(_closed_of, owed)
        await self._send_end(otherwise if closed is None else _told(closed))

    async def _send_end(self, events: tuple[Event, ...]) -> None:
        for event in events:
            await self._screen.send_text(json.dumps(to_json(event), ensure_ascii=False))

    async def _with_missing(
        self, key: str, items: list[messages.NumberedEvent]
    ) -> list[messages.NumberedEvent]:
        """A batch never came (Redis failed it on its way): the turn's log from
        the last event shown, which covers `items` too."""
        found = await self._replay(key, self.last_seq)
        if found is None:
            self.holed = True  # shown as stored once the turn ends
            return items
        if not found:
            return items
        return found + [item for item in items if item["seq"] > found[-1]["seq"]]

    def _redraw_soon(self) -> None:
        """Words came as plain text at the answer's end: drawn as Markdown soon,
        even if the model pauses now (the next piece would otherwise draw them)."""
        if self.drawing is not None and self.drawing.waiting:
            self._screen.redraw_after(streaming.REDRAW_AFTER)

    async def redraw(self) -> None:
        """The streaming answer drawn as it stands, if it shows undrawn words."""
        if self.drawing is None or not self.drawing.waiting:
            return
        html = self.drawing.flush()
        if html:
            await self._screen.send_html(html)
        # Drawn since this was asked for, and words came after: not due yet.
        self._redraw_soon()

    async def resync(self) -> None:
        """Live frames may have been lost (the relay's subscription broke): read
        what the followed turn sent after the last one shown or, following none,
        the project's running turn from its start (its beginning may be among
        what was lost)."""
        key = self.turn_key
        if key is None:
            running = await threads.run(running_turn, project=self.project)
            if running is not None:
                self._watch_running(running)
                await self._from_start(running)
            return
        items = await self._replay(key, self.last_seq)
        if items:
            conversation = self.conversation.pk if self.own and self.conversation else 0
            await self.follow(_events(key, conversation, items, after=self.last_seq))

    async def _html(self, events: list[Event]) -> str:
        parts: list[str] = []
        changed: list[str] = []
        for event in events:
            if isinstance(event, TurnStarted):
                elsewhere = "" if self.own else await threads.run(panel.title_of, event)
                parts.append(panel.status_html(True, elsewhere))
                if self.own:
                    self.drawing = TurnDrawing(event)
                    parts.append(self.drawing.start())
            elif self.drawing is not None:
                parts.append(self.drawing.show(event))
            if isinstance(event, FilesChanged):
                changed.extend(event.paths)
            if isinstance(event, Done):
                # Idle again: a "busy" notice from a refused send no longer holds.
                parts.append(panel.status_html(False) + self._screen.notice_done())
                if self.own and self.conversation is not None:
                    parts.append(await threads.run(panel.conversation_html, self.conversation))
        parts.append(await self._after_batch(changed))
        return "".join(parts)

    async def _after_batch(self, changed: list[str]) -> str:
        """What a batch of events changed, drawn once for the batch: the streaming
        answer, the turn's changes, the file tree."""
        parts: list[str] = []
        drawing = self.drawing
        if drawing is not None:
            parts.append(drawing.flush())
            if changed or drawing.finished:
                turn_id = drawing.turn_id
                parts.append(await self.changes_html(turn_id, running=not drawing.finished))
        if changed:
            parts.append(await threads.run(tree_html, self.project))
            parts.append(self._screen.signal(files=changed))
        return "".join(parts)

    async def changes_html(self, turn_id: int | None, *, running: bool = False) -> str:
        if turn_id is None or self.conversation is None:
            return ""
        return await threads.run(
            panel.turn_changes_html, turn_id, conversation=self.conversation, running=running
        )

    # --- catching up --------------------------------------------------------------------

    async def catch_up(self, state: snapshot.Snapshot | None = None) -> None:
        """What is stored (`state`, when the caller read it already), then the
        running turn from its start, then live."""
        if state is None:
            state = await threads.run(snapshot.snapshot, self.project, self.conversation)
        if not self.as_json:
            await self._screen.send_html(snapshot.snapshot_html(state) + self._screen.signal())
        running = state.running
        self._watch_running(running)
        if running is None or (self.as_json and running.key == self.turn_key):
            return
        # The log was drawn again without the running turn: it is drawn from its start.
        await self._from_start(running)

    async def _from_start(self, running: RunningTurn) -> None:
        """The running turn from its first event, then live."""
        self.turn_key, self.drawing, self.last_seq = None, None, 0
        items = await self._replay(running.key, 0)
        if items:
            await self.follow(_events(running.key, running.conversation_id or 0, items, after=0))

    async def lost(self, key: str) -> None:
        """The turn's server stopped and the turn was recorded: as interrupted,
        or as it stored its end itself before it died with its lock held (a
        script is told what is stored, as a page shows it)."""
        owed = self._ending(key)
        if owed is None:
            return
        if self.as_json:
            await self._tell_stored(owed, otherwise=LOST)
            return
        await self.catch_up()

    async def ended_unseen(self, key: str) -> None:
        """A turn that ended without its `done` reaching this tab (the frame was
        lost, or its server died as it sent it)."""
        owed = self._ending(key)
        if owed is None:
            return
        if not self.as_json:
            await self.catch_up()
            return
        closed = await threads.run(_closed_of, owed)
        if closed is not None:
            await self._send_end((Done.recorded(closed),))

    def _ending(self, key: str) -> Owed | None:
        """The turn `key`, if this tab is owed its end: from now on it is not.
        None when its end was shown already (another turn's events came first,
        and `_replaced` showed it): never twice."""
        owed = self.owed
        if owed is None or owed.key != key:
            return None
        self._owe(None)
        self._over.append(key)
        if self.turn_key == key:
            self.turn_key, self.drawing = None, None
        return owed


def _events(
    key: str, conversation: int, items: list[messages.NumberedEvent], *, after: int
) -> messages.TurnEvents:
    """A replay, as a message: it covers every event after `after`."""
    return messages.turn_events(turn=key, conversation=conversation, events=items, first=after + 1)


def _closed_of(owed: Owed) -> ClosedTurn | None:
    if owed.request is not None:
        return turn_closed(request_id=owed.request)
    running = owed.running
    if running is None or running.conversation_id is None:
        return None
    return turn_closed_at(
        conversation_id=running.conversation_id, first_sequence=running.first_sequence
    )


def _told(closed: ClosedTurn) -> tuple[Event, ...]:
    """A script's end of a turn, from its stored record: as the watchdog's
    `turn.lost` tells it (the reason, then `done`) when its server stopped."""
    done, error = Done.recorded(closed), closed.record.error
    return (SERVER_STOPPED, done) if error and error.code == SERVER_STOPPED.code else (done,)
