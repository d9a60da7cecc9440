"""What goes to the model and what comes back, as typed values.

The request side (`ChatMessage`, `ToolSpec`) knows how to put itself on the
wire; the answer side (`ToolCall`, `Usage`, `AssistantMessage`) is what the
assembler builds from a stream or a non-streaming reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from common.jsontypes import JSONObject, JSONValue, as_decimal, as_int, as_object

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    # The arguments exactly as the model sent them (JSON text, not yet trusted);
    # "{}" when the model sent none.
    arguments: str

    def to_wire(self) -> JSONObject:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    # Passed back unchanged and in order: some providers (Gemini) refuse tool
    # results that arrive without the reasoning that asked for them.
    reasoning_details: tuple[JSONObject, ...] = ()
    # Pictures with a person's message, as data: URLs (sent as image_url parts).
    images: tuple[str, ...] = ()

    @classmethod
    def system(cls, content: str) -> ChatMessage:
        return cls("system", content)

    @classmethod
    def user(cls, content: str) -> ChatMessage:
        return cls("user", content)

    @classmethod
    def tool(cls, tool_call_id: str, content: str) -> ChatMessage:
        return cls("tool", content, tool_call_id=tool_call_id)

    def to_wire(self) -> JSONObject:
        wire: JSONObject = {"role": self.role, "content": self.content}
        if self.images:
            parts: list[JSONValue] = [{"type": "text", "text": self.content or ""}]
            parts += [{"type": "image_url", "image_url": {"url": url}} for url in self.images]
            wire["content"] = parts
        if self.tool_calls:
            wire["tool_calls"] = [call.to_wire() for call in self.tool_calls]
        if self.tool_call_id is not None:
            wire["tool_call_id"] = self.tool_call_id
        if self.reasoning_details:
            wire["reasoning_details"] = list(self.reasoning_details)
        return wire


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    parameters: JSONObject = field(default_factory=lambda: {"type": "object", "properties": {}})

    def to_wire(self) -> JSONObject:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    # In credits (US dollars on OpenRouter); None when the server reports no cost,
    # as local servers do. Decimal, because turns and projects sum many of them.
    cost: Decimal | None = None

    @classmethod
    def from_wire(cls, usage: JSONObject) -> Usage:
        completion_details = as_object(usage.get("completion_tokens_details"))
        prompt_details = as_object(usage.get("prompt_tokens_details"))
        prompt = _count(usage.get("prompt_tokens"))
        completion = _count(usage.get("completion_tokens"))
        total = as_int(usage.get("total_tokens"))
        return cls(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion if total is None else _count(total),
            reasoning_tokens=_count(completion_details.get("reasoning_tokens")),
            cached_tokens=_count(prompt_details.get("cached_tokens")),
            cost=_cost(usage.get("cost")),
        )

    def __add__(self, other: Usage) -> Usage:
        cost = None
        if self.cost is not None or other.cost is not None:
            cost = (self.cost or Decimal(0)) + (other.cost or Decimal(0))
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cost=cost,
        )

    def to_json(self) -> JSONObject:
        """For storing in message metadata: cost as a string, so no cent is rounded away."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_tokens": self.cached_tokens,
            "cost": None if self.cost is None else str(self.cost),
        }


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    content: str = ""
    reasoning: str = ""
    reasoning_details: tuple[JSONObject, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    # As the provider said it; decide whether tools were called from
    # `tool_calls`, never from this (some models say "stop" with calls present).
    finish_reason: str | None = None
    usage: Usage | None = None
    model: str | None = None
    provider: str | None = None
    generation_id: str | None = None

    def to_chat_message(self) -> ChatMessage:
        """The message to send back in the next request of the same turn."""
        return ChatMessage(
            "assistant",
            # OpenAI-style servers want null, not "", beside tool calls.
            self.content or (None if self.tool_calls else ""),
            tool_calls=self.tool_calls,
            reasoning_details=self.reasoning_details,
        )


# Beyond any real answer; keeps a hostile count out of integer columns.
_MAX_COUNT = 10**12


def _count(value: JSONValue) -> int:
    return min(max(as_int(value) or 0, 0), _MAX_COUNT)


# A billion credits for one answer is not a cost but a broken provider.
_MAX_COST_DIGITS = 9


def _cost(value: JSONValue) -> Decimal | None:
    cost = as_decimal(value)
    if cost is None or cost.adjusted() > _MAX_COST_DIGITS:
        return None
    # A negative cost would lower what a person is recorded as spending.
    return max(cost, Decimal(0))
