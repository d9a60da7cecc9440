"""A turn's events as numbered for its tabs, and runs of text taken together.

Each event a turn sends has a number (1, 2, 3 … within the turn): a tab keeps
the last it showed and skips anything not after it, so an event reaching it
twice (from a replay and live) shows once. Adjacent pieces of text travelling
together become one piece carrying the last piece's number: what a tab has not
seen of the run is then wholly after its number, and what it has seen wholly up
to it, as long as runs are only merged within what travels together.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from chat.agent.events import ContentText, Event, ReasoningText, to_json
from chat.live import messages
from common.runs import joined_text, runs

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


def merged_numbered(history: list[Numbered]) -> list[Numbered]:
    """`merged`, for numbered events: a merged one keeps the last number."""

    def together(first: Numbered, item: Numbered) -> bool:
        return type(item.event) is type(first.event) and isinstance(item.event, TEXT)

    return [_numbered(run) for run in runs(history, together)]


def _numbered(run: list[Numbered]) -> Numbered:
    if len(run) == 1:
        return run[0]
    first = run[0].event
    assert isinstance(first, TEXT)  # only text makes a run
    text = "".join(item.event.text for item in run if isinstance(item.event, TEXT))
    return Numbered(run[-1].seq, replace(first, text=text))


def merged_json(items: list[messages.NumberedEvent]) -> list[messages.NumberedEvent]:
    """`merged_numbered`, for events as they travel (JSON): the same merge, no decoding."""

    def together(first: messages.NumberedEvent, item: messages.NumberedEvent) -> bool:
        kind = item["event"].get("type")
        return kind in _TEXT_TYPES and kind == first["event"].get("type")

    return [_numbered_json(run) for run in runs(items, together)]


def _numbered_json(run: list[messages.NumberedEvent]) -> messages.NumberedEvent:
    if len(run) == 1:
        return run[0]
    text = "".join(str(item["event"].get("text", "")) for item in run)
    return {"seq": run[-1]["seq"], "event": {**run[0]["event"], "text": text}}
