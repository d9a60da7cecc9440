"""Whether this process is busy: the share of a core it used lately.

Frames wait only under load. An idle server sends each piece of a
turn's text the moment it comes (a person sees the answer as fast as the model
writes it); a busy one pays per frame for every tab, so there a turn's text
waits up to BUSY_WINDOW for more to join it (chat.live.turns). "Busy" is the
process's CPU time over the last SAMPLE seconds of wall time, read by one
small task while turns run (ten looks a second), not by a clock per piece.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable

SAMPLE = 0.1  # seconds between looks
BUSY_SHARE = 0.6  # of a core: above it, text waits for its frame
BUSY_WINDOW = 0.015  # seconds text may wait for more to join it, while busy


class Load:
    def __init__(
        self,
        *,
        cpu: Callable[[], float] = time.process_time,
        wall: Callable[[], float] = time.monotonic,
    ) -> None:
        self._cpu = cpu
        self._wall = wall
        self.busy = False
        self._users = 0
        self._task: asyncio.Task[None] | None = None

    def use(self) -> None:
        """A turn began: watch the load while any runs."""
        self._users += 1
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._watch())

    def release(self) -> None:
        """A turn ended."""
        self._users = max(0, self._users - 1)

    async def _watch(self) -> None:
        cpu, wall = self._cpu(), self._wall()
        while self._users:
            await asyncio.sleep(SAMPLE)
            cpu, wall = self.look(cpu, wall)
        self.busy = False

    def look(self, cpu: float, wall: float) -> tuple[float, float]:
        """Whether the process was busy since (`cpu`, `wall`); now's readings."""
        now_cpu, now_wall = self._cpu(), self._wall()
        spent = now_wall - wall
        self.busy = spent > 0 and (now_cpu - cpu) / spent > BUSY_SHARE
        return now_cpu, now_wall


_LOADS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Load] = weakref.WeakKeyDictionary()


def load() -> Load:
    """The running event loop's (daphne runs one loop; each test has its own)."""
    loop = asyncio.get_running_loop()
    found = _LOADS.get(loop)
    if found is None:
        found = _LOADS[loop] = Load()
    return found
