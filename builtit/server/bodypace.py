"""Whether a request still arriving keeps coming (builtit.server.bodylimit answers 408
when it does not).

Twisted closes a connection only after 60 s without a byte, so one byte every
20 s held a connection, and what it had sent, for ever. The rule instead,
Apache httpd's (mod_reqtimeout, whose defaults the settings take): the head
(request line and headers) must be in within one window of
BUILTIT_BODY_TIMEOUT seconds, and the body must bring at least
BUILTIT_BODY_MIN_RATE bytes a second over each window. A minimum rate rather
than a longest gap between bytes, which a trickle passes; per window rather
than over the whole body, so a long stall cannot be paid for by a fast start;
and no deadline for the whole body, so a slow but moving upload on a poor
connection (20 MiB at 1 Mbit/s takes three minutes) is never cut. At the
defaults a window asks for 10,000 bytes in 20 s (4 kbit/s): any real
connection does that between two stalls.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Phase(enum.Enum):
    HEAD = "head"
    BODY = "body"
    PAUSED = "paused"  # the server stopped reading (a sign-in check): not the client's time
    DONE = "done"  # all in, or answered


@dataclass
class Pace:
    window: float  # seconds
    rate: int  # bytes a second
    started: float  # when the current window began
    phase: Phase = Phase.HEAD
    arrived: int = 0  # body bytes in the current window

    def moved(self, count: int) -> None:
        self.arrived += count

    def body(self, now: float) -> None:
        """The head is in, or reading resumes: a window for the body starts."""
        self.phase, self.started, self.arrived = Phase.BODY, now, 0

    def pause(self) -> None:
        self.phase = Phase.PAUSED

    def done(self) -> None:
        self.phase = Phase.DONE

    def stalled(self, now: float) -> bool:
        """Whether the window that ends by `now` fell short; a window that did
        not is closed and the next begins."""
        elapsed = now - self.started
        if self.phase not in (Phase.HEAD, Phase.BODY) or elapsed < self.window:
            return False
        if self.phase is Phase.HEAD or self.arrived < self.rate * elapsed:
            return True
        self.started, self.arrived = now, 0
        return False
