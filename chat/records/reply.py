"""An assistant message's record: the model request that produced it and, on
the message that closes a turn, the turn's outcome."""

from __future__ import annotations

from dataclasses import dataclass

from chat.llm import AssistantMessage, Usage
from chat.records.reading import number, usage_from
from chat.records.turn import TURN_KEY, TurnRecord
from common.jsontypes import JSONObject, as_int, as_list, as_str


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
            usage_from(usage) if isinstance(usage, dict) else None,
            number(stored.get("duration_ms")),
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


def stored_turn(stored: object) -> TurnRecord | None:
    """The turn's outcome a message's record holds; None on all but a closing message."""
    return AssistantRecord.from_stored(stored).turn
