"""How full the model's context was at a turn's first request, as stored on the
turn's closing record (the context gauge)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from common.jsontypes import JSONObject, JSONValue, as_int, as_object

# A turn's first request, by part, in the order the gauge shows them.
ContextPart = Literal[
    "system", "instructions", "files", "history", "message", "attachments", "tools"
]
CONTEXT_PARTS: tuple[ContextPart, ...] = get_args(ContextPart)
CONTEXT_WARNING = 0.8  # of the model's context window: the gauge warns from here


@dataclass(frozen=True)
class ContextRecord:
    """How full the model's context was at a turn's first request: its tokens by
    part (estimated, counted high: chat.agent.budget) against the model's context
    window (from the provider's list, or a safe default when it does not say)."""

    parts: tuple[tuple[ContextPart, int], ...] = ()
    window: int = 0
    window_known: bool = False
    summarised: int = 0  # earlier turns the model read as a summary (chat.agent.compaction)
    left_out: int = 0  # earlier turns it did not read at all (past the history's budget)

    @property
    def total(self) -> int:
        return sum(tokens for _, tokens in self.parts)

    @property
    def fraction(self) -> float:
        return self.total / self.window if self.window else 0.0

    @property
    def warning(self) -> bool:
        return self.fraction >= CONTEXT_WARNING

    @property
    def compacting_helps(self) -> bool:
        """Whether summarising the earlier turns could bring it under the warning:
        not when the rest (Built-It's instructions, the tools, the message) alone
        passes it, as on a model with a small window."""
        rest = self.total - self.tokens("history")
        return not self.window or rest / self.window < CONTEXT_WARNING

    def tokens(self, part: ContextPart) -> int:
        return dict(self.parts).get(part, 0)

    def to_stored(self) -> JSONObject:
        return {
            "parts": {part: tokens for part, tokens in self.parts},
            "window": self.window,
            "window_known": self.window_known,
            "summarised": self.summarised,
            "left_out": self.left_out,
        }

    @classmethod
    def from_stored(cls, stored: JSONValue) -> ContextRecord | None:
        record = as_object(stored)
        window = as_int(record.get("window"))
        if not window or window <= 0:
            return None
        given = as_object(record.get("parts"))
        parts = tuple(
            (part, max(as_int(given.get(part)) or 0, 0)) for part in CONTEXT_PARTS if part in given
        )
        return cls(
            parts,
            window,
            record.get("window_known") is True,
            max(as_int(record.get("summarised")) or 0, 0),
            max(as_int(record.get("left_out")) or 0, 0),
        )
