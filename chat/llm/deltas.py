"""The typed pieces a streamed answer arrives in, as `stream()` hands them on."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial
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


def joined_runs(items: Iterable[T], join: Callable[[T, T], T | None]) -> list[T]:
    """`items`, each one that `join` can add to the one before it added to it."""
    out: list[T] = []
    for item in items:
        joined = join(out[-1], item) if out else None
        if joined is None:
            out.append(item)
        else:
            out[-1] = joined
    return out


def joined_text(items: Iterable[T], kinds: tuple[type[Any], ...]) -> list[T]:
    """`items` with each run of adjacent items of one of `kinds` (dataclasses with
    a `text` field) as one item, their texts joined; everything else as it was.

    Text pieces that travel together cost once instead of once each on their way
    to the browser: the stream's pieces of one network read, a turn's events
    waiting to be sent while the server is busy, a turn's events replayed."""
    return joined_runs(items, partial(_text_joined, kinds=kinds))


def _text_joined(last: T, piece: T, *, kinds: tuple[type[Any], ...]) -> T | None:
    if type(piece) is type(last) and isinstance(piece, kinds):
        earlier: Any = last  # kinds are only known to have a `text` when called
        joined: T = replace(earlier, text=earlier.text + piece.text)
        return joined
    return None
