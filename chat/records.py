"""What a stored message says about itself (`Message.metadata`), as typed records.

    UserRecord       a person's message: the model asked, attachments, pictures,
                     whether it asked for a plan only
    AssistantRecord  an assistant message: its ReplyRecord (the request that
                     produced it, when one did) and, on the message that closes
                     a turn, its TurnRecord (the outcome, `metadata["turn"]`)
    ToolRecord       a tool result: which tool, whether it worked, how long

Each is written through `to_stored()` (chat.services takes the record, never a
raw dict) and read through its one `from_stored()`,
which takes whatever the column holds (rows from older versions, rows written
by hand or by tests) and never raises: what is missing or malformed reads as
its empty value. Nothing else looks inside the column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar, get_args

from chat.llm import AssistantMessage, Usage
from chat.money import money
from common.jsontypes import (
    JSONObject,
    JSONValue,
    as_decimal,
    as_int,
    as_list,
    as_object,
    as_str,
)

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

_Choice = TypeVar("_Choice", bound=str)


def _one_of(value: JSONValue, choices: object, default: _Choice) -> _Choice:
    """`value` if it is one of the Literal `choices`' values, else `default`."""
    if isinstance(value, str) and value in get_args(choices):
        return value  # type: ignore[return-value]  # mypy cannot narrow to a Literal from its values
    return default


def _number(value: JSONValue) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _usage(value: JSONValue) -> Usage:
    """The inverse of `Usage.to_json` (its flat shape, cost as a string)."""
    stored = as_object(value)
    counts = {
        name: max(as_int(stored.get(name)) or 0, 0)
        for name in (
            "prompt_tokens",
            "completion_tokens",
            "total_tokens",
            "reasoning_tokens",
            "cached_tokens",
        )
    }
    return Usage(**counts, cost=as_decimal(stored.get("cost")))


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
            _number(item.get("duration_ms")) or 0.0,
        )


@dataclass(frozen=True)
class CheckFinding:
    kind: str  # projects.publish's finding kinds ("broken_link", "page", ...)
    path: str
    line: int | None
    text: str


@dataclass(frozen=True)
class SiteCheckRecord:
    """The check of the whole site at the end of a turn that changed files
    (DESIGN §6, point 12): what a person reads under the turn."""

    findings: tuple[CheckFinding, ...] = ()  # the first few, most important first
    total: int = 0  # every finding, listed or not
    unfinished: str = ""  # why the check did not finish (then nothing is listed)

    @classmethod
    def from_check(cls, check: JSONValue) -> SiteCheckRecord:
        """What projects.publish's check for the model says, or its stored form."""
        found = as_object(check)
        if found.get("finished") is False or found.get("unfinished") or "findings" not in found:
            message = found.get("message") or found.get("unfinished") or found.get("error")
            return cls(unfinished=str(message or "The check did not finish."))
        findings = tuple(
            CheckFinding(
                str(item.get("kind") or ""),
                str(item.get("path") or ""),
                as_int(item.get("line")),
                str(item.get("text") or ""),
            )
            for item in (as_object(raw) for raw in _items(found.get("findings")))
        )
        listed_past = as_int(found.get("not_listed")) or 0
        total = as_int(found.get("total"))
        return cls(findings, total if total is not None else len(findings) + listed_past)

    def to_stored(self) -> JSONObject:
        return {
            "findings": [
                {"kind": f.kind, "path": f.path, "line": f.line, "text": f.text}
                for f in self.findings
            ],
            "total": self.total,
            "unfinished": self.unfinished,
        }

    @property
    def clean(self) -> bool:
        return not self.total and not self.unfinished


def _items(value: JSONValue) -> list[JSONValue]:
    # A list as stored, or a tuple as an event's asdict() left it.
    return list(value) if isinstance(value, list | tuple) else []


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
            _one_of(record.get("status"), TurnStatus, "completed"),
            _one_of(record.get("finish_reason"), FinishReason, "stop"),
            as_int(record.get("iterations")) or 0,
            _usage(record.get("usage")),
            cost if isinstance(cost, str) else None,
            tuple(str(path) for path in as_list(record.get("files_changed"))),
            tuple(ToolTiming.from_stored(item) for item in as_list(record.get("tool_timings"))),
            _number(record.get("duration_ms")),
            TurnError.from_stored(record.get("error")),
            None if record.get("check") is None else SiteCheckRecord.from_check(record["check"]),
            tuple(item for item in as_list(record.get("suggestions")) if isinstance(item, str)),
            ContextRecord.from_stored(record.get("context")),
        )


@dataclass(frozen=True)
class ReplyRecord:
    """One model request of a turn: the reply stored on an assistant message."""

    model: str = ""
    provider: str | None = None
    generation_id: str | None = None
    iteration: int = 0
    finish_reason: str | None = None  # as the provider said it
    usage: Usage | None = None
    duration_ms: float | None = None
    reasoning_details: tuple[JSONObject, ...] = ()

    @classmethod
    def of(
        cls, reply: AssistantMessage, *, model: str, iteration: int, seconds: float | None
    ) -> ReplyRecord:
        return cls(
            reply.model or model,
            reply.provider,
            reply.generation_id,
            iteration,
            reply.finish_reason,
            reply.usage,
            None if seconds is None else round(seconds * 1000, 1),
            reply.reasoning_details,
        )

    def to_stored(self) -> JSONObject:
        return {
            "model": self.model,
            "provider": self.provider,
            "generation_id": self.generation_id,
            "iteration": self.iteration,
            "finish_reason": self.finish_reason,
            "usage": self.usage.to_json() if self.usage else None,
            "duration_ms": self.duration_ms,
            "reasoning_details": list(self.reasoning_details),
        }

    @classmethod
    def from_stored(cls, stored: JSONObject) -> ReplyRecord:
        usage = stored.get("usage")
        return cls(
            as_str(stored.get("model")) or "",
            as_str(stored.get("provider")),
            as_str(stored.get("generation_id")),
            as_int(stored.get("iteration")) or 0,
            as_str(stored.get("finish_reason")),
            _usage(usage) if isinstance(usage, dict) else None,
            _number(stored.get("duration_ms")),
            tuple(
                item for item in as_list(stored.get("reasoning_details")) if isinstance(item, dict)
            ),
        )


@dataclass(frozen=True)
class AssistantRecord:
    """An assistant message's record. A closing message that answered nothing
    (the turn stopped or failed first) has a turn and no reply."""

    reply: ReplyRecord | None = None
    turn: TurnRecord | None = None

    def to_stored(self) -> JSONObject:
        stored = self.reply.to_stored() if self.reply is not None else {}
        if self.turn is not None:
            stored[TURN_KEY] = self.turn.to_stored()
        return stored

    @classmethod
    def from_stored(cls, stored: object) -> AssistantRecord:
        record = stored if isinstance(stored, dict) else {}
        outcome = record.get(TURN_KEY)
        has_reply = any(key in record for key in ("model", "iteration", "usage"))
        return cls(
            ReplyRecord.from_stored(record) if has_reply else None,
            TurnRecord.from_stored(outcome) if isinstance(outcome, dict) else None,
        )

    @property
    def model(self) -> str:
        """The model that answered ("" when the message records none)."""
        return self.reply.model if self.reply is not None else ""

    @property
    def usage(self) -> Usage | None:
        """What this message's own request used (not its turn's total)."""
        return self.reply.usage if self.reply is not None else None


@dataclass(frozen=True)
class ToolRecord:
    """A tool call's result message."""

    name: str = ""
    ok: bool = False
    summary: str = ""
    duration_ms: float | None = None

    def to_stored(self) -> JSONObject:
        return {
            "name": self.name,
            "ok": self.ok,
            "summary": self.summary,
            "duration_ms": self.duration_ms,
        }

    @classmethod
    def from_stored(cls, stored: object) -> ToolRecord:
        record = stored if isinstance(stored, dict) else {}
        return cls(
            as_str(record.get("name")) or "",
            bool(record.get("ok")),
            str(record.get("summary", "")),
            _number(record.get("duration_ms")),
        )


@dataclass(frozen=True)
class UserRecord:
    """A person's message: the model it was sent to, what the preview gave it
    (chat.agent.attachments, as JSON), its pictures (ChatImage ids), and
    whether it began a plan turn (its answer is a plan to build, not work done)."""

    model: str = ""
    attachments: tuple[JSONObject, ...] = ()
    images: tuple[int, ...] = ()
    plan: bool = False

    def to_stored(self) -> JSONObject:
        stored: JSONObject = {"model": self.model}
        if self.attachments:
            stored["attachments"] = list(self.attachments)
        if self.images:
            stored["images"] = list(self.images)
        if self.plan:
            stored["plan"] = True
        return stored

    @classmethod
    def from_stored(cls, stored: object) -> UserRecord:
        record = stored if isinstance(stored, dict) else {}
        attachments = as_list(record.get("attachments"))
        images = as_list(record.get("images"))
        return cls(
            as_str(record.get("model")) or "",
            tuple(item for item in attachments if isinstance(item, dict)),
            tuple(item for item in images if isinstance(item, int) and not isinstance(item, bool)),
            record.get("plan") is True,
        )


@dataclass(frozen=True)
class ClosedTurn:
    """A turn's outcome with the message that closes it."""

    message_id: int
    record: TurnRecord


def stored_turn(stored: object) -> TurnRecord | None:
    """The turn's outcome a message's record holds; None on all but a closing message."""
    return AssistantRecord.from_stored(stored).turn
