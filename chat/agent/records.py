"""What the loop stores about model replies and turns (the metadata of chat.services)."""

from __future__ import annotations

from typing import Any

from chat.agent.events import ErrorEvent, FinishReason, TurnStatus
from chat.llm import AssistantMessage, Usage
from chat.money import money


def reply_metadata(
    reply: AssistantMessage, *, model: str, iteration: int, seconds: float | None
) -> dict[str, Any]:
    return {
        "model": reply.model or model,
        "provider": reply.provider,
        "generation_id": reply.generation_id,
        "iteration": iteration,
        "finish_reason": reply.finish_reason,
        "usage": reply.usage.to_json() if reply.usage else None,
        "duration_ms": None if seconds is None else round(seconds * 1000, 1),
        "reasoning_details": list(reply.reasoning_details),
    }


def turn_metadata(
    *,
    status: TurnStatus,
    finish_reason: FinishReason,
    iterations: int,
    usage: Usage,
    files_changed: list[str],
    tool_timings: list[dict[str, Any]],
    seconds: float,
    error: ErrorEvent | None,
) -> dict[str, Any]:
    return {
        "status": status,
        "finish_reason": finish_reason,
        "iterations": iterations,
        "usage": usage.to_json(),
        "cost": money(usage.cost),
        "files_changed": files_changed,
        "tool_timings": tool_timings,
        "duration_ms": round(seconds * 1000, 1),
        "error": None
        if error is None
        else {"code": error.code, "message": error.message, "retryable": error.retryable},
    }
