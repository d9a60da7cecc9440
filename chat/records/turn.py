"""A turn's outcome, stored on the assistant message that closes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from chat.llm import Usage
from chat.money import money
from chat.records.context_window import ContextRecord
from chat.records.reading import number, one_of, usage_from
from chat.records.site_check import SiteCheckRecord
from common.jsontypes import JSONObject, JSONValue, as_int, as_list, as_object, as_str

# The key of a turn's outcome on its closing message; queries find closing messages by it.
TURN_KEY = "turn"

# Why a turn ended, as `done.finish_reason` says it.
FinishReason = Literal[
    "stop",  # the model answered
    "length",  # the model's answer was cut at its output limit
    "max_iterations",  # the tool rounds ran out; a last answer was asked for
    "cost_limit",  # a spending cap was reached; a last answer was asked for
    "failures",  # tool calls kept failing; a last answer was asked for
    "stuck",  # the model kept repeating one call
    "empty",  # the model answered nothing, twice
    "error",  # the provider failed; see the error event
    "stopped",  # the person stopped it
    "server_stopped",  # the server running it stopped first (a restart, a crash)
]
TurnStatus = Literal["completed", "failed", "stopped", "interrupted"]


class _Error(Protocol):
    """An error as the loop reports it (chat.agent.events.ErrorEvent)."""

    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def retryable(self) -> bool: ...


@dataclass(frozen=True)
class TurnError:
    code: str
    message: str
    retryable: bool

    def to_stored(self) -> JSONObject:
        return {"code": self.code, "message": self.message, "retryable": self.retryable}

    @classmethod
    def from_stored(cls, stored: JSONValue) -> TurnError | None:
        if not isinstance(stored, dict):
            return None
        code, message = stored.get("code", ""), stored.get("message", "")
        return cls(str(code), str(message), bool(stored.get("retryable")))


# What a turn its server never finished says: a restart past its grace period
# (chat.live.draining), or a crash found by the tabs (chat.services.turn_abandon).
SERVER_STOPPED = TurnError(
    "server_stopped",
    "The server running this turn stopped before it finished; what it had done is kept. "
    "Try again to go on.",
    retryable=True,
)


@dataclass(frozen=True)
class ToolTiming:
    """One tool call of a turn, in its closing record."""

    id: str
    name: str
    ok: bool
    duration_ms: float

    def to_stored(self) -> JSONObject:
        return {"id": self.id, "name": self.name, "ok": self.ok, "duration_ms": self.duration_ms}

    @classmethod
    def from_stored(cls, stored: JSONValue) -> ToolTiming:
        item = as_object(stored)
        return cls(
            as_str(item.get("id")) or "",
            as_str(item.get("name")) or "",
            item.get("ok") is True,
            number(item.get("duration_ms")) or 0.0,
        )


@dataclass(frozen=True)
class TurnRecord:
    """A turn's outcome, on the message that closes it."""

    status: TurnStatus = "completed"
    finish_reason: FinishReason = "stop"
    iterations: int = 0
    usage: Usage = field(default_factory=Usage)
    cost: str | None = None  # the turn's, as money() writes it
    files_changed: tuple[str, ...] = ()
    tool_timings: tuple[ToolTiming, ...] = ()
    duration_ms: float | None = None
    error: TurnError | None = None
    check: SiteCheckRecord | None = None  # None: not checked (no file changed)
    # What the person could ask next, from the answer's "Next:" line (chat.next_steps).
    suggestions: tuple[str, ...] = ()
    context: ContextRecord | None = None  # how full the model's context was

    @classmethod
    def ended(
        cls,
        *,
        status: TurnStatus,
        finish_reason: FinishReason,
        iterations: int,
        usage: Usage,
        files_changed: list[str],
        tool_timings: list[ToolTiming],
        seconds: float,
        error: _Error | None,
        check: SiteCheckRecord | None = None,
        suggestions: tuple[str, ...] = (),
        context: ContextRecord | None = None,
    ) -> TurnRecord:
        return cls(
            status,
            finish_reason,
            iterations,
            usage,
            money(usage.cost),
            tuple(files_changed),
            tuple(tool_timings),
            round(seconds * 1000, 1),
            None if error is None else TurnError(error.code, error.message, error.retryable),
            check,
            suggestions,
            context,
        )

    def to_stored(self) -> JSONObject:
        stored: JSONObject = {
            "status": self.status,
            "finish_reason": self.finish_reason,
            "iterations": self.iterations,
            "usage": self.usage.to_json(),
            "cost": self.cost,
            "files_changed": list(self.files_changed),
            "tool_timings": [timing.to_stored() for timing in self.tool_timings],
            "duration_ms": self.duration_ms,
            "error": None if self.error is None else self.error.to_stored(),
        }
        if self.check is not None:  # a turn that changed no file has none
            stored["check"] = self.check.to_stored()
        if self.suggestions:  # kept only when the answer had them: older records read the same
            stored["suggestions"] = list(self.suggestions)
        if self.context is not None:
            stored["context"] = self.context.to_stored()
        return stored

    @classmethod
    def from_stored(cls, stored: JSONValue) -> TurnRecord:
        record = as_object(stored)
        cost = record.get("cost")
        return cls(
            one_of(record.get("status"), TurnStatus, "completed"),
            one_of(record.get("finish_reason"), FinishReason, "stop"),
            as_int(record.get("iterations")) or 0,
            usage_from(record.get("usage")),
            cost if isinstance(cost, str) else None,
            tuple(str(path) for path in as_list(record.get("files_changed"))),
            tuple(ToolTiming.from_stored(item) for item in as_list(record.get("tool_timings"))),
            number(record.get("duration_ms")),
            TurnError.from_stored(record.get("error")),
            None if record.get("check") is None else SiteCheckRecord.from_check(record["check"]),
            tuple(item for item in as_list(record.get("suggestions")) if isinstance(item, str)),
            ContextRecord.from_stored(record.get("context")),
        )


@dataclass(frozen=True)
class ClosedTurn:
    """A turn's outcome with the message that closes it."""

    message_id: int
    record: TurnRecord
