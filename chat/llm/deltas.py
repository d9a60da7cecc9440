"""The typed pieces a streamed answer arrives in, as `stream()` hands them on."""

from __future__ import annotations

from dataclasses import dataclass

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
