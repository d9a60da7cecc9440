"""What one turn of the loop yields, as frozen dataclasses (DESIGN §6).

Each event has a `type` (its JSON name) and `to_json()`; the `chat --json`
command and the websocket's JSON mode send exactly that, one per line/frame.
The loop knows nothing of how they are shown.

A tool call's events also say what kind of step it is (`category`) and whether
the chat folds it into a line of quiet steps (`visibility`). Both follow from
the tool's name, so each event works them out as it is made, wherever that is,
and no one can send it a pair that disagrees with its tool.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from chat.agent.attachments import AttachmentsRefused, attachments_from, label
from chat.records.context_window import CONTEXT_PARTS, ContextRecord
from chat.records.site_check import SiteCheckRecord
from chat.records.turn import SERVER_STOPPED as STOPPED
from chat.records.turn import ClosedTurn, FinishReason, TurnStatus

# Re-exported: chat.render reads a call's metadata from its events, never the tools.
from chat.tools import ToolCategory as ToolCategory  # noqa: PLC0414
from chat.tools import Visibility as Visibility  # noqa: PLC0414
from chat.tools import tool_category, tool_label, tool_visibility
from common.jsontypes import JSONObject, decoded_object


@dataclass(frozen=True, slots=True)
class TurnStarted:
    conversation_id: int
    message_id: int
    model: str
    text: str
    attachments: tuple[JSONObject, ...] = ()  # chat.agent.attachments.to_json
    images: tuple[int, ...] = ()  # the message's pictures (chat.images), by id
    plan: bool = False  # a plan turn: its answer is a plan, and it changes no file
    asked_by: str = ""  # who sent it, named when the project is shared (chat.selectors.askers)
    asked_by_id: int = 0  # and their id, when named: the page marks them among who is here
    type: Literal["turn_started"] = "turn_started"


@dataclass(frozen=True, slots=True)
class ContentText:
    text: str
    type: Literal["content"] = "content"


@dataclass(frozen=True, slots=True)
class ReasoningText:
    text: str
    type: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True, slots=True)
class StreamReset:
    """The answer being streamed failed and is asked for again: forget its text."""

    reason: str
    type: Literal["stream_reset"] = "stream_reset"


@dataclass(frozen=True, slots=True)
class AnnouncedCall:
    id: str
    name: str
    arguments: str
    path: str | None
    label: str = ""  # the tool's name as a person reads it ("" from an older server)
    category: ToolCategory = field(init=False)
    visibility: Visibility = field(init=False)

    def __post_init__(self) -> None:
        _describe(self)

    @classmethod
    def of(cls, call_id: str, name: str, arguments: str) -> AnnouncedCall:
        """A call as the person first sees it, live or stored: the tool's name in
        words and, when the arguments name one, its path."""
        path = (decoded_object(arguments) or {}).get("path")
        shown_path = path if isinstance(path, str) else None
        return cls(call_id, name, arguments, shown_path, tool_label(name))


@dataclass(frozen=True, slots=True)
class ToolCallsAnnounced:
    """Calls the model has finished writing; each is queued until it runs."""

    calls: tuple[AnnouncedCall, ...]
    type: Literal["tool_calls"] = "tool_calls"


@dataclass(frozen=True, slots=True)
class ToolExecuting:
    id: str
    name: str
    category: ToolCategory = field(init=False)
    visibility: Visibility = field(init=False)
    type: Literal["tool_executing"] = "tool_executing"

    def __post_init__(self) -> None:
        _describe(self)


@dataclass(frozen=True, slots=True)
class ToolResultEvent:
    id: str
    name: str
    ok: bool
    summary: str
    result: JSONObject
    duration_ms: float
    path: str | None = None
    category: ToolCategory = field(init=False)
    visibility: Visibility = field(init=False)
    type: Literal["tool_result"] = "tool_result"

    def __post_init__(self) -> None:
        _describe(self)


def _describe(event: AnnouncedCall | ToolExecuting | ToolResultEvent) -> None:
    """The call's tool metadata, set once as the (frozen) event is made."""
    object.__setattr__(event, "category", tool_category(event.name))
    object.__setattr__(event, "visibility", tool_visibility(event.name))


@dataclass(frozen=True, slots=True)
class FilesChanged:
    paths: tuple[str, ...]
    type: Literal["files_changed"] = "files_changed"


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """Usage of one model request, and of the turn so far. Costs are decimal strings."""

    model: str
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost: str | None
    turn_tokens: int
    turn_cost: str | None
    type: Literal["usage"] = "usage"


@dataclass(frozen=True, slots=True)
class ContextEvent:
    """How full the model's context is at the turn's first request, by part, in
    tokens (estimated: chat.agent.context), against its window."""

    system: int
    instructions: int
    files: int
    history: int
    message: int
    attachments: int
    tools: int
    window: int
    window_known: bool
    summarised: int = 0  # earlier turns read as a summary
    left_out: int = 0  # earlier turns not read at all
    type: Literal["context"] = "context"

    @classmethod
    def of(cls, record: ContextRecord) -> ContextEvent:
        return cls(
            system=record.tokens("system"),
            instructions=record.tokens("instructions"),
            files=record.tokens("files"),
            history=record.tokens("history"),
            message=record.tokens("message"),
            attachments=record.tokens("attachments"),
            tools=record.tokens("tools"),
            window=record.window,
            window_known=record.window_known,
            summarised=record.summarised,
            left_out=record.left_out,
        )

    @property
    def record(self) -> ContextRecord:
        parts = tuple((part, getattr(self, part)) for part in CONTEXT_PARTS)
        return ContextRecord(parts, self.window, self.window_known, self.summarised, self.left_out)


@dataclass(frozen=True, slots=True)
class CompactionEvent:
    """Earlier turns being summarised before the turn's first request
    (chat.agent.compaction): `running`, then `done` or `failed` (with why)."""

    state: Literal["running", "done", "failed"]
    turns: int  # the turns the summary covers
    tokens_before: int = 0  # those turns as history, estimated
    tokens_after: int = 0  # the summary
    message: str = ""  # why it failed: the oldest turns are then left out
    type: Literal["compaction"] = "compaction"


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    code: str
    message: str
    retryable: bool
    type: Literal["error"] = "error"


# The server running a turn stopped first: a restart past its grace period
# (chat.live.draining), or a crash found by the tabs (chat.services.turn_abandon).
SERVER_STOPPED = ErrorEvent(STOPPED.code, STOPPED.message, STOPPED.retryable)


@dataclass(frozen=True, slots=True)
class Done:
    finish_reason: FinishReason
    status: TurnStatus
    iterations: int
    message_id: int | None
    files_changed: tuple[str, ...] = ()
    total_tokens: int = 0
    cost: str | None = None
    # The site checked after a turn that changed files (chat.agent.loop).
    check: SiteCheckRecord | None = None
    # What the person could ask next (chat.next_steps), shown under the turn.
    suggestions: tuple[str, ...] = ()
    type: Literal["done"] = "done"

    @classmethod
    def recorded(cls, closed: ClosedTurn) -> Done:
        """The `done` a turn's stored record says (for a tab whose live one never came)."""
        record = closed.record
        return cls(
            record.finish_reason,
            record.status,
            record.iterations,
            closed.message_id,
            record.files_changed,
            record.usage.total_tokens,
            record.cost,
            record.check,
            record.suggestions,
        )


Event = (
    TurnStarted
    | ContentText
    | ReasoningText
    | StreamReset
    | ToolCallsAnnounced
    | ToolExecuting
    | ToolResultEvent
    | FilesChanged
    | UsageEvent
    | ContextEvent
    | CompactionEvent
    | ErrorEvent
    | Done
)


def to_json(event: Event) -> JSONObject:
    """The event as sent on the wire: its fields, `type` first."""
    if type(event) in _TEXT:
        # Most of a turn's events: two strings, no deep copy through `asdict`
        # (a fortieth of a busy server's work, bench/ws_fanout.py).
        return {"type": event.type, "text": event.text}  # type: ignore[union-attr]
    fields: JSONObject = asdict(event)
    return {"type": fields.pop("type"), **fields}


_TEXT = frozenset({ContentText, ReasoningText})

_TYPES: dict[object, Any] = {
    kind.__dataclass_fields__["type"].default: kind
    for kind in (
        TurnStarted,
        ContentText,
        ReasoningText,
        StreamReset,
        ToolCallsAnnounced,
        ToolExecuting,
        ToolResultEvent,
        FilesChanged,
        UsageEvent,
        ContextEvent,
        CompactionEvent,
        ErrorEvent,
        Done,
    )
}


def from_json(data: JSONObject) -> Event:
    """The event `to_json` made (e.g. after a trip through the channel layer or JSON).

    Raises KeyError/TypeError on anything else: only our own messages come here.
    """
    kind = _TYPES[str(data["type"])]
    if kind in _TEXT:
        text: Event = kind(data["text"])
        return text
    fields = _given(data, "type")
    if kind is ToolCallsAnnounced:
        fields["calls"] = tuple(
            call if isinstance(call, AnnouncedCall) else AnnouncedCall(**_given(call))
            for call in fields["calls"]
        )
    if isinstance(fields.get("check"), dict):
        fields["check"] = SiteCheckRecord.from_check(fields["check"])
    for name in ("paths", "files_changed", "attachments", "images", "suggestions"):
        if isinstance(fields.get(name), list | tuple):
            fields[name] = tuple(fields[name])
    event: Event = kind(**fields)
    return event


# Worked out by the event itself from the tool's name (`_describe`), not passed in.
_DERIVED = frozenset({"category", "visibility"})


def _given(data: JSONObject, *also: str) -> dict[str, Any]:
    """The fields of `data` its event is made from."""
    left_out = _DERIVED.union(also)
    return {key: value for key, value in data.items() if key not in left_out}


def chip_labels(stored: object) -> list[str]:
    """The chips of a message's attachments as a turn's start or its stored
    message carries them (checked again: it is JSON)."""
    found = attachments_from(list(stored) if isinstance(stored, list | tuple) else None)
    return [] if isinstance(found, AttachmentsRefused) else [label(item) for item in found]
