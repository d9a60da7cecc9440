"""A channel's messages (chat.live.layer): what the layer puts on it, handed to
its reader (a tab's consumer, a turn's listener) one at a time, in order. It is
also daphne's queue of what a socket sends to its application
(builtit.server.reaping): `put_nowait` and `get`, as `asyncio.Queue`'s, at
about 300 bytes while empty where an `asyncio.Queue` (three deques and an
Event) is 3 KB, and every open socket holds one.

Frames wait only under load: a turn's events that arrive while the tab is busy
(drawing the last frame, or the server behind) join the message waiting, so the
tab draws and sends them once; when the tab is idle, each goes at once. Nothing
waits on a clock. Their text is merged by the tab (chat.live.following), once it
has dropped what it had already shown: merged here, a run could begin in what a
replay showed and end after it, and be shown twice.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

Message = dict[str, Any]


class Inbox:
    __slots__ = ("_merging", "_readers", "_waiting", "since")

    def __init__(self) -> None:
        self._waiting: list[Message] = []
        self._merging = False  # the last waiting message's events list is ours to extend
        self._readers: list[asyncio.Future[None]] = []  # each reader waiting now
        self.since = 0.0  # when the oldest waiting message came (time.monotonic())

    def feed(self, message: Mapping[str, Any], *, capacity: int = 0) -> bool:
        """Whether `message` is in: merged into the one waiting, or added unless
        `capacity` messages (0: no bound) already wait."""
        last = self._waiting[-1] if self._waiting else None
        if (
            last is not None
            and message.get("type") == "turn.events"
            and last.get("type") == "turn.events"
            and last["turn"] == message["turn"]
        ):
            if not self._merging:  # the first message's list is shared with other tabs
                last["events"] = list(last["events"])
                self._merging = True
            last["events"].extend(message["events"])
            return True
        if capacity and len(self._waiting) >= capacity:
            return False
        if not self._waiting:
            self.since = time.monotonic()
        self._waiting.append(dict(message))  # the layer hands every member the same message
        self._merging = False
        self._wake()
        return True

    def __len__(self) -> int:
        return len(self._waiting)

    @property
    def waited_on(self) -> bool:
        """Whether a reader waits on it now."""
        return bool(self._readers)

    def drop(self) -> None:
        """Forget what waits (it expired unread)."""
        self._waiting.clear()
        self._merging = False

    async def receive(self) -> Message:
        while not self._waiting:
            reader = asyncio.get_running_loop().create_future()
            self._readers.append(reader)
            try:
                await reader
            except asyncio.CancelledError:
                self._readers.remove(reader)
                if reader.done() and not reader.cancelled() and self._waiting:
                    self._wake()  # woken, then cancelled: the next reader takes it
                raise
            self._readers.remove(reader)
        message = self._waiting.pop(0)
        if not self._waiting:
            self._merging = False
        return message

    def put_nowait(self, message: Mapping[str, Any]) -> None:
        """As `asyncio.Queue.put_nowait`, unbounded (daphne's use)."""
        self.feed(message)

    async def get(self) -> Message:
        """As `asyncio.Queue.get` (daphne's use)."""
        return await self.receive()

    def _wake(self) -> None:
        for reader in self._readers:
            if not reader.done():
                reader.set_result(None)
                return
