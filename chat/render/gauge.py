"""The context gauge and compaction in words, for the page and the terminal alike."""

from __future__ import annotations

from dataclasses import dataclass

from chat.agent.events import CompactionEvent
from chat.records.context_window import ContextPart, ContextRecord

PART_LABELS: dict[ContextPart, str] = {
    "system": "How Built-It works",
    "instructions": "Project instructions",
    "files": "File list",
    "history": "Earlier turns",
    "message": "This message",
    "attachments": "Attachments",
    "tools": "Tools",
}


@dataclass(frozen=True)
class GaugePart:
    part: ContextPart
    label: str
    tokens: int
    percent: float  # of the window, for the bar's width


@dataclass(frozen=True)
class ContextGauge:
    """A turn's context gauge as its footer shows it."""

    percent: int  # how full, of the window
    summary: str
    warning: str  # "" below the warning's threshold
    compact_offered: bool  # with the warning: whether compacting would bring it down
    parts: list[GaugePart]
    history: str  # what the model did not read of the earlier turns, if anything

    @classmethod
    def of(cls, record: ContextRecord) -> ContextGauge:
        return cls(
            percent_full(record),
            gauge_summary(record),
            context_warning(record) if record.warning else "",
            record.compacting_helps,
            gauge_parts(record),
            history_note(record),
        )


def gauge_parts(record: ContextRecord) -> list[GaugePart]:
    """The parts worth showing (a part with no tokens is left out), in order."""
    return [
        GaugePart(part, PART_LABELS[part], tokens, 100 * tokens / record.window)
        for part, tokens in record.parts
        if tokens > 0
    ]


def percent_full(record: ContextRecord) -> int:
    return round(100 * record.fraction)


def gauge_summary(record: ContextRecord) -> str:
    """One line: how full, of what."""
    window = f"{record.window:,}" + ("" if record.window_known else " (assumed)")
    return f"Context {percent_full(record)}% full: about {record.total:,} of {window} tokens"


def context_warning(record: ContextRecord) -> str:
    if not record.compacting_helps:
        rest = round(100 * (record.total - record.tokens("history")) / record.window)
        return (
            f"The model's context is {percent_full(record)}% full, and {rest}% without the "
            "earlier turns, so compacting would not be enough: pick a model with a larger "
            "context before its answers get cut or refused."
        )
    return (
        f"The model's context is {percent_full(record)}% full. Compact the conversation "
        "(its earlier turns are summarised, and kept here) or start a new one, before "
        "the model's answers get cut or refused."
    )


def history_note(record: ContextRecord) -> str:
    """What the model did not read of the earlier turns, in words ("" for nothing)."""
    notes = []
    if record.summarised:
        notes.append(f"{_turns(record.summarised)} read as a summary")
    if record.left_out:
        notes.append(f"{_turns(record.left_out)} left out (past the history's budget)")
    return "Earlier turns: " + "; ".join(notes) + "." if notes else ""


def compaction_line(event: CompactionEvent) -> str:
    match event.state:
        case "running":
            return f"Summarising {_turns(event.turns)} so the conversation fits…"
        case "done":
            return (
                f"Summarised {_turns(event.turns)} (about {event.tokens_before:,} tokens "
                f"→ {event.tokens_after:,}): the model reads the summary instead; the turns "
                "stay here."
            )
        case "failed":
            return (
                f"Could not summarise the earlier turns: {event.message} The oldest are "
                "left out of what the model reads this turn."
            )


def _turns(count: int) -> str:
    return f"{count} earlier turn" + ("" if count == 1 else "s")
