"""A turn's events as numbered for its tabs, and runs of text taken together.

Each event a turn sends has a number (1, 2, 3 … within the turn): a tab keeps
the last it showed and skips anything not after it, so an event reaching it
twice (from a replay and live) shows once. Adjacent pieces of text travelling
together become one piece carrying the last piece's number: what a tab has not
seen of the run is then wholly after its number, and what it has seen wholly up
to it, as long as runs are only merged within what travels together.
"""

from __future__ import annotations

from dataclasses import dataclass

from chat.agent.events import ContentText, Event, ReasoningText, to_json
from chat.live import messages
from chat.llm.deltas import joined_runs, joined_text

TEXT = (ContentText, ReasoningText)
_TEXT_TYPES = frozenset({"content", "reasoning"})


@dataclass(frozen=True, slots=True)
class Numbered:
    seq: int
    event: Event

    def to_json(self) -> messages.NumberedEvent:
        return {"seq": self.seq, "event": to_json(self.event)}


def merged(events: list[Event]) -> list[Event]:
    """Adjacent text pieces of one kind as one event; everything else as it was."""
    return joined_text(events, TEXT)


def compacted(history: list[Numbered]) -> list[Numbered]:
    """`merged`, for numbered events: a merged one keeps the last number."""
    return joined_runs(history, _numbered_joined)


def _numbered_joined(last: Numbered, item: Numbered) -> Numbered | None:
    joined = merged([last.event, item.event])
    return Numbered(item.seq, joined[0]) if len(joined) == 1 else None


def compacted_json(items: list[messages.NumberedEvent]) -> list[messages.NumberedEvent]:
    """`compacted`, for events as they travel (JSON): the same merge, no decoding."""
    return joined_runs(items, _json_joined)


def _json_joined(
    last: messages.NumberedEvent, item: messages.NumberedEvent
) -> messages.NumberedEvent | None:
    before, after = last["event"], item["event"]
    if after.get("type") not in _TEXT_TYPES or after.get("type") != before.get("type"):
        return None
    if set(before) != set(after) or any(
        before[key] != after[key] for key in before if key != "text"
    ):
        return None  # another block of the answer, say: kept apart
    text = str(before.get("text", "")) + str(after.get("text", ""))
    return {"seq": item["seq"], "event": {**after, "text": text}}
