"""Tool cards, and the runs of quiet ones the chat folds into one line.

A call the events mark quiet (looking around: listing, reading, searching)
joins the quiet calls right before it in one group, shown as a line such as
"Looked at 3 files" that opens to their cards; a primary call (a change) ends
the run and has a card of its own. Groups are worked out from the cards in
order, so a turn drawn live and the same turn read back from the database
fold the same way, under the same ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, assert_never

from chat.agent.events import ToolCategory, Visibility

CardState = Literal["queued", "running", "done", "failed"]


@dataclass
class ToolCard:
    dom_id: str
    call_id: str
    name: str
    path: str | None
    arguments: str
    label: str
    category: ToolCategory = "other"
    visibility: Visibility = "primary"
    state: CardState = "queued"
    summary: str = ""
    duration_ms: float | None = None
    result: str = ""
    # Where the whole text is, when the card shows only its beginning.
    arguments_url: str = ""
    result_url: str = ""

    is_group = False  # for the templates, which draw a card and a group apart

    @property
    def finished(self) -> bool:
        return self.state in {"done", "failed"}

    @property
    def duration_text(self) -> str:
        if self.duration_ms is None or not self.finished:
            return ""
        if self.duration_ms < 1000:
            return f"{self.duration_ms:.0f} ms"
        return f"{self.duration_ms / 1000:.1f} s"


@dataclass
class CardGroup:
    dom_id: str  # its first card's, with "-group": the same live and reloaded
    cards: list[ToolCard]

    is_group = True

    @property
    def state(self) -> CardState:
        if any(not card.finished for card in self.cards):
            return "running"
        return "failed" if self.failures else "done"

    @property
    def failures(self) -> int:
        return sum(card.state == "failed" for card in self.cards)

    @property
    def line(self) -> str:
        """What the group's cards did, in words: "Listed the files and looked at 3 files"."""
        phrases = [_phrase(category, cards) for category, cards in _by_category(self.cards)]
        text = phrases[-1] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]
        return text[:1].upper() + text[1:]


def card_runs(cards: list[ToolCard]) -> list[ToolCard | CardGroup]:
    """The cards in order, each run of consecutive quiet ones as one group."""
    runs: list[ToolCard | CardGroup] = []
    for card in cards:
        last = runs[-1] if runs else None
        if card.visibility == "primary":
            runs.append(card)
        elif isinstance(last, CardGroup):
            last.cards.append(card)
        else:
            runs.append(CardGroup(f"{card.dom_id}-group", [card]))
    return runs


def group_of(cards: list[ToolCard], card: ToolCard) -> CardGroup | None:
    """The group `card` is folded into (None when it is shown on its own)."""
    for run in card_runs(cards):
        if isinstance(run, CardGroup) and any(member is card for member in run.cards):
            return run
    return None


def _by_category(cards: list[ToolCard]) -> list[tuple[ToolCategory, list[ToolCard]]]:
    """The cards of each category, the categories in the order they first came."""
    seen: dict[ToolCategory, list[ToolCard]] = {}
    for card in cards:
        seen.setdefault(card.category, []).append(card)
    return list(seen.items())


def _phrase(category: ToolCategory, cards: list[ToolCard]) -> str:  # noqa: PLR0911  (one per category)
    match category:
        case "list":
            return "listed the files"
        case "read":
            return f"looked at {_files(cards)}"
        case "search":
            return "searched the files" if len(cards) == 1 else f"searched {len(cards)} times"
        case "write":
            return f"changed {_files(cards)}"
        case "move":
            return f"moved {_files(cards)}"
        case "delete":
            return f"deleted {_files(cards)}"
        case "check":
            return "checked the site" if len(cards) == 1 else f"checked the site {len(cards)} times"
        case "other":
            return "took 1 other step" if len(cards) == 1 else f"took {len(cards)} other steps"
        case _:
            assert_never(category)


def _files(cards: list[ToolCard]) -> str:
    # A file read twice (two line ranges, say) is one file looked at; a call
    # naming no path is counted on its own.
    count = len({card.path or card.call_id for card in cards})
    return "1 file" if count == 1 else f"{count} files"
