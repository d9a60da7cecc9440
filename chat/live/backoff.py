"""How long the channel layer waits before it tries Redis again (chat.live.layer)."""

from __future__ import annotations


class Backoff:
    """Waits that double from `first` up to `most`, and start again from `first`
    once a try succeeds: a failure after Redis answered is a new outage, and is
    tried again soon."""

    def __init__(self, *, first: float, most: float) -> None:
        self.first = first
        self.most = most
        self._next = first

    def next(self) -> float:
        wait = self._next
        self._next = min(wait * 2, self.most)
        return wait

    def reset(self) -> None:
        self._next = self.first
