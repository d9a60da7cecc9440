"""A bounded map kept by a process for its threads: least recently used first
out, past a count of entries or a total weight (bytes)."""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Kept(Generic[K, V]):
    """Least recently used first out, past `count` entries or `limit` in weight."""

    def __init__(
        self, *, count: int, limit: int = sys.maxsize, weight: Callable[[V], int] | None = None
    ) -> None:
        self.count = count
        self.limit = limit
        self._weight: Callable[[V], int] = weight or (lambda value: 0)
        self._lock = threading.Lock()
        self._items: OrderedDict[K, V] = OrderedDict()
        self._total = 0

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> None:
        weight = self._weight(value)
        # One value past a quarter of the room would push out too much of the rest.
        if weight > self.limit // 4:
            self.drop(key)
            return
        with self._lock:
            self._pop(key)
            self._items[key] = value
            self._total += weight
            while len(self._items) > self.count or self._total > self.limit:
                self._pop(next(iter(self._items)))

    def drop(self, key: K) -> None:
        with self._lock:
            self._pop(key)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._total = 0

    def __len__(self) -> int:
        return len(self._items)

    @property
    def total(self) -> int:
        return self._total

    def _pop(self, key: K) -> None:
        if key in self._items:
            self._total -= self._weight(self._items.pop(key))
