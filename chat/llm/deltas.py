"""The typed pieces a streamed answer arrives in, as `stream()` hands them on."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from chat.llm.messages import Usage
from common.jsontypes import JSONObject


@dataclass(frozen=True, slots=True)
class ContentDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDetailsDelta:
    details: tuple[JSONObject, ...]


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of a tool call; fragments with the same index belong together."""

    index: int
    id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True, slots=True)
class Finish:
    # May arrive twice (OpenRouter's usage chunk repeats it): the first one counts.
    reason: str


@dataclass(frozen=True, slots=True)
class UsageReport:
    usage: Usage


@dataclass(frozen=True, slots=True)
class ResponseInfo:
    """Who answered: sent once, before the first other piece of a response."""

    generation_id: str | None
    model: str | None
    provider: str | None


StreamEvent = (
    ContentDelta
    | ReasoningDelta
    | ReasoningDetailsDelta
    | ToolCallDelta
    | Finish
    | UsageReport
    | ResponseInfo
)

# The pieces a person would see; once one of them is handed on, a failed
# request is no longer retried silently.
OUTPUT_EVENTS = (ContentDelta, ReasoningDelta, ReasoningDetailsDelta, ToolCallDelta)


T = TypeVar("T")


def runs(items: Iterable[T], together: Callable[[T, T], bool]) -> list[list[T]]:
    """`items` in runs of adjacent ones where `together(first of the run, item)`."""
    grouped: list[list[T]] = []
    for item in items:
        if grouped and together(grouped[-1][0], item):
            grouped[-1].append(item)
        else:
            grouped.append([item])
    return grouped


def joined_text(items: Iterable[T], kinds: tuple[type[Any], ...]) -> list[T]:
    """`items` with each run of adjacent items of one of `kinds` (dataclasses with
    a `text` field) as one item, their texts joined; everything else as it was.

    Text pieces that travel together cost once instead of once each on their way
    to the browser: the stream's pieces of one network read, a turn's events
    waiting to be sent while the server is busy, a turn's events replayed. A run
    is joined once, at its end (a busy server's runs are hundreds long)."""

    def together(first: T, item: T) -> bool:
        return type(item) is type(first) and isinstance(item, kinds)

    return [_joined(run) for run in runs(items, together)]


def _joined(run: list[T]) -> T:
    if len(run) == 1:
        return run[0]
    pieces: list[Any] = run  # kinds are only known to have a `text` when called
    joined: T = replace(pieces[0], text="".join(piece.text for piece in pieces))
    return joined
