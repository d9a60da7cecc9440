"""A reply the fake OpenRouter keeps back until the test releases it."""

from __future__ import annotations

import threading
from collections import deque

from fakes.script import HttpError, RecordedRequest, Reply, Scripted, ToolCallScript

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


PAGE = "<!doctype html><title>Bakery</title><h1>Fresh bread</h1>"


class WriteThenHold:
    """The model writes /index.html (PAGE) at once; its next answer waits for `held`:
    a turn with a file written and recorded, still running at a known step."""

    def __init__(self, held: Held) -> None:
        self.held = held
        self.asked = 0

    def __call__(self, request: RecordedRequest) -> Scripted:
        self.asked += 1
        if self.asked == 1:
            page = ToolCallScript("create_file", {"path": "/index.html", "content": PAGE})
            return Reply(content="Writing the page.", tool_calls=[page])
        return self.held(request)
