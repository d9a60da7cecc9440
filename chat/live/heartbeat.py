"""The locks of this process's running turns, refreshed together (DESIGN §7).

A turn's lock says its server is alive: refreshed several times per lifetime
(BUILTIT_TURN_LOCK_TTL), only a process stalled for most of it looks dead to
the watchdogs. One statement refreshes every turn of the process at once
(`projects.locks.locks_refresh`), rather than a task and a database write per
turn: 200 turns cost one query per beat, not 100 a second. A turn whose lock
is no longer its own (a tab found it lapsed and recorded the turn, and another
turn may start) is told at once, and must not write on.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from typing import Protocol

from django.conf import settings
from django.db import DatabaseError

from common import threads
from projects.locks import locks_refresh
from projects.models import ProjectLock

logger = logging.getLogger(__name__)

HEARTBEATS_PER_TTL = 5  # lock refreshes per BUILTIT_TURN_LOCK_TTL


class Beating(Protocol):
    lock: ProjectLock

    def lock_lost(self) -> None: ...


class Heartbeat:
    def __init__(self, *, ttl: Callable[[], float]) -> None:
        self._ttl = ttl
        self._turns: set[Beating] = set()
        self._task: asyncio.Task[None] | None = None

    def add(self, turn: Beating) -> None:
        self._turns.add(turn)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def discard(self, turn: Beating) -> None:
        self._turns.discard(turn)

    async def _run(self) -> None:
        while self._turns:
            await asyncio.sleep(self._ttl() / HEARTBEATS_PER_TTL)
            try:
                await self.beat()
            except Exception:  # a bug: every turn's lock would lapse if it ended the beat
                logger.exception("The turns' heartbeat failed; it beats on")

    async def beat(self) -> None:
        """Refresh every lock once; tell the turns whose lock is gone."""
        turns = list(self._turns)
        if not turns:
            return
        try:
            held = await threads.run(locks_refresh, [turn.lock for turn in turns], ttl=self._ttl())
        except DatabaseError as error:  # a blip: the next beat tries again, well within the TTL
            logger.warning("Could not refresh the turns' locks: %s", error)
            return
        for turn in turns:
            if turn.lock.holder not in held and turn in self._turns:
                self._turns.discard(turn)
                turn.lock_lost()


_BEATS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Heartbeat] = (
    weakref.WeakKeyDictionary()
)


def heartbeat() -> Heartbeat:
    """The running event loop's (daphne runs one loop; each test has its own)."""
    loop = asyncio.get_running_loop()
    found = _BEATS.get(loop)
    if found is None:
        found = _BEATS[loop] = Heartbeat(ttl=lambda: settings.BUILTIT_TURN_LOCK_TTL)
    return found
