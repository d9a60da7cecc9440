"""A reply the fake OpenRouter keeps back until the test releases it."""

from __future__ import annotations

import threading
from collections import deque

from tests.fakes.script import HttpError, RecordedRequest, Scripted

# How long a held reply waits for `release()` before the fake gives up on it.
HOLD_TIMEOUT = 20.0


class Held:
    """A responder for the fake that answers only once released: a turn waits on
    its model request for as long as the test needs, with no clock involved."""

    def __init__(self, *replies: Scripted) -> None:
        self.replies = deque(replies)
        self.released = threading.Event()

    def __call__(self, request: RecordedRequest) -> Scripted:
        if not self.released.wait(HOLD_TIMEOUT) or not self.replies:
            return HttpError(500, "held reply never released")
        return self.replies.popleft()

    def release(self) -> None:
        self.released.set()
