"""Turns whose server may have stopped: one look for the whole process, not a
task per tab (DESIGN §7).

A killed server never says its turn ended, but its lock lapses. As often as a
turn refreshes its lock, the watchdog asks the database about each turn its
tabs show (one query per turn, however many tabs show it) and tells those tabs
through their inboxes:
- lapsed: the turn is recorded as interrupted (`abandon`: one caller among every
  process does it) and the tabs hear `turn.lost`; other processes' tabs hear it
  from the caller that recorded it (`announce`);
  a tab that connects once the lock lapsed records it itself, and announces it
  the same way (chat.live.consumers `_opened`): it watched nothing, and would
  draw the turn unended; a message sent before any look records it too
  (chat.services.turn_lock_take) and tells no one: the watching tabs show
  its end as stored once the new turn's events reach them
  (chat.live.following `TurnFollower._replaced`);
- gone twice in a row without the tabs having seen its `done` (a turn releases
  its lock just before it sends `done`, so once is normal): `turn.unseen`, and
  each tab shows what is stored.
A tab stops being watched once it has seen the turn's `done`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from channels.layers import get_channel_layer
from django.conf import settings

from chat import services
from chat.live import messages, turns
from chat.live.heartbeat import HEARTBEATS_PER_TTL
from chat.selectors.running import TurnState, turn_state
from common import threads

logger = logging.getLogger(__name__)


class Inboxed(Protocol):
    def feed(self, message: Mapping[str, Any]) -> None: ...


Check = Callable[[uuid.UUID, str], Awaitable[TurnState]]
Abandon = Callable[[uuid.UUID, str], Awaitable[bool]]
Announce = Callable[[uuid.UUID, str], Awaitable[None]]


class Watchdog:
    def __init__(
        self, *, interval: Callable[[], float], check: Check, abandon: Abandon, announce: Announce
    ) -> None:
        self._interval = interval
        self._check = check
        self._abandon = abandon
        self._announce = announce
        self._watched: dict[Inboxed, tuple[uuid.UUID, str]] = {}
        self._gone_once: set[str] = set()  # turns whose lock was gone at the last look
        self._task: asyncio.Task[None] | None = None

    def watch(self, tab: Inboxed, *, project_id: uuid.UUID, key: str | None) -> None:
        """Watch `key` for `tab` (None: nothing to watch)."""
        if key is None:
            self._watched.pop(tab, None)
            return
        self._watched[tab] = (project_id, key)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def watching_count(self) -> int:
        return len(self._watched)

    def watching(self, tab: Inboxed) -> str | None:
        found = self._watched.get(tab)
        return found[1] if found is not None else None

    async def _run(self) -> None:
        while self._watched:
            await asyncio.sleep(self._interval())
            try:
                await self.look()
            except Exception:  # a database blip: the next look tries again
                logger.warning("The turn watchdog's look failed", exc_info=True)

    async def look(self) -> None:
        """One look at every watched turn."""
        turns: dict[tuple[uuid.UUID, str], list[Inboxed]] = {}
        for tab, watched in self._watched.items():
            turns.setdefault(watched, []).append(tab)
        self._gone_once &= {key for _, key in turns}
        for (project_id, key), tabs in turns.items():
            state = await self._check(project_id, key)
            if state == "running":
                self._gone_once.discard(key)
                continue
            if state == "ended" and key not in self._gone_once:
                self._gone_once.add(key)  # its `done` is on its way: look again next time
                continue
            self._gone_once.discard(key)
            still = [tab for tab in tabs if self._watched.get(tab) == (project_id, key)]
            for tab in still:
                del self._watched[tab]
            if state == "ended":
                for tab in still:
                    tab.feed({"type": "turn.unseen", "turn": key})
                continue
            recorded = await self._abandon(project_id, key)
            for tab in still:
                tab.feed({"type": "turn.lost", "turn": key})
            if recorded:
                await self._announce(project_id, key)


_DOGS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Watchdog] = weakref.WeakKeyDictionary()


def watchdog() -> Watchdog:
    """The running event loop's watchdog (daphne runs one loop; each test has its own)."""
    loop = asyncio.get_running_loop()
    found = _DOGS.get(loop)
    if found is None:
        found = _DOGS[loop] = Watchdog(
            interval=lambda: settings.BUILTIT_TURN_LOCK_TTL / HEARTBEATS_PER_TTL,
            check=_check,
            abandon=_abandon,
            announce=announce_lost,
        )
    return found


async def _check(project_id: uuid.UUID, key: str) -> TurnState:
    return await threads.run(turn_state, project_id=project_id, key=key)


async def _abandon(project_id: uuid.UUID, key: str) -> bool:
    return await threads.run(services.turn_abandon, project_id=project_id, key=key)


async def announce_lost(project_id: uuid.UUID, key: str) -> None:
    """The turn `key` was just recorded as interrupted: every process's tabs
    that show it are told (`turn.lost`)."""
    layer = get_channel_layer()
    if layer is not None:
        lost = messages.TurnLost(type="turn.lost", turn=key)
        await layer.group_send(turns.group_name(project_id), lost)
