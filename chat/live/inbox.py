"""A tab's messages from its own process (the hub's turn frames, the watchdog's
findings), handed to its consumer one at a time, as a channel layer would.

Frames wait only under load: a turn's events that arrive while the tab is busy
(drawing the last frame, or the server behind) join the message waiting, so the
tab draws and sends them once; when the tab is idle, each goes at once. Nothing
waits on a clock. Their text is merged by the tab (chat.live.following), once it
has dropped what it had already shown: merged here, a run could begin in what a
replay showed and end after it, and be shown twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

Message = dict[str, Any]


class Inbox:
    __slots__ = ("_merging", "_reader", "_waiting")

    def __init__(self) -> None:
        self._waiting: list[Message] = []
        self._merging = False  # the last waiting message's events list is ours to extend
        self._reader: asyncio.Future[None] | None = None  # only while its reader waits

    def feed(self, message: Mapping[str, Any]) -> None:
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
            return
        self._waiting.append(dict(message))  # the hub hands every tab the same message
        self._merging = False
        if self._reader is not None and not self._reader.done():
            self._reader.set_result(None)

    def __len__(self) -> int:
        return len(self._waiting)

    async def receive(self) -> Message:
        while not self._waiting:
            self._reader = asyncio.get_running_loop().create_future()
            try:
                await self._reader
            finally:
                self._reader = None
        message = self._waiting.pop(0)
        if not self._waiting:
            self._merging = False
        return message
