"""A queue for one reader at a time, about 300 bytes while empty.

`asyncio.Queue` is three deques and an Event, about 3 KB even while empty; every
open socket held two (daphne's queue of what the socket sends to the
application, and its channel on the in-memory channel layer), 6 KB of the
50 KB an idle chat socket cost (bench/ws_fanout.py --idle, tracemalloc).
What is kept is a list, and futures only while someone waits. Items come out in
the order they went in; a reader cancelled while waiting takes nothing.
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


class SmallQueue(Generic[T]):
    __slots__ = ("_queue", "capacity", "waiters")

    def __init__(self, capacity: int = 0) -> None:
        self._queue: list[T] = []  # short: its reader keeps up
        self.capacity = capacity  # 0: unbounded
        self.waiters: list[asyncio.Future[None]] = []

    def empty(self) -> bool:
        return not self._queue

    def put_nowait(self, item: T) -> None:
        if 0 < self.capacity <= len(self._queue):
            raise asyncio.QueueFull
        self._queue.append(item)
        self._wake()

    def get_nowait(self) -> T:
        if not self._queue:
            raise asyncio.QueueEmpty
        return self._queue.pop(0)

    async def get(self) -> T:
        while not self._queue:
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                waiter.cancel()
                if waiter in self.waiters:
                    self.waiters.remove(waiter)
                if self._queue:  # woken, yet cancelled: the item is another's
                    self._wake()
                raise
        return self._queue.pop(0)

    def _wake(self) -> None:
        while self.waiters:
            waiter = self.waiters.pop(0)
            if not waiter.done():
                waiter.set_result(None)
                return
