"""An assistant message's tool calls (`Message.tool_calls`), as stored: the
wire's shape, `{"id", "type", "function": {"name", "arguments"}}`."""

from __future__ import annotations

from dataclasses import dataclass

from chat.llm import ToolCall
from common.jsontypes import JSONObject, as_object, as_str


@dataclass(frozen=True)
class CallRecord:
    """One tool call the model asked for, as its message stores it."""

    id: str = ""
    name: str = ""
    arguments: str = ""  # the model's JSON text, as it sent it

    @classmethod
    def of(cls, call: ToolCall) -> CallRecord:
        return cls(call.id, call.name, call.arguments)

    def to_stored(self) -> JSONObject:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @classmethod
    def from_stored(cls, stored: object) -> CallRecord:
        call = stored if isinstance(stored, dict) else {}
        function = as_object(call.get("function"))
        return cls(
            as_str(call.get("id")) or "",
            as_str(function.get("name")) or "",
            as_str(function.get("arguments")) or "",
        )

    @classmethod
    def all_from(cls, stored: object) -> tuple[CallRecord, ...]:
        """Every call in a message's `tool_calls` column; none when it is not a list."""
        calls = stored if isinstance(stored, list | tuple) else ()
        return tuple(cls.from_stored(call) for call in calls)
