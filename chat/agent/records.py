"""What the loop stores about model replies and turns (the metadata of chat.services)."""

from __future__ import annotations

from typing import Any, get_args

from chat.agent.events import Done, ErrorEvent, FinishReason, TurnStatus
from chat.llm import AssistantMessage, Usage
from chat.money import money
from common.jsontypes import JSONObject, as_int, as_object


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


def turn_done(record: JSONObject, message_id: int) -> Done:
    """The `done` a stored turn record (`turn_metadata`, on message `message_id`) says."""
    usage = as_object(record.get("usage"))
    files = record.get("files_changed")
    cost = record.get("cost")
    reason, status = record.get("finish_reason"), record.get("status")
    return Done(
        reason if reason in get_args(FinishReason) else "stop",  # type: ignore[arg-type]
        status if status in get_args(TurnStatus) else "completed",  # type: ignore[arg-type]
        as_int(record.get("iterations")) or 0,
        message_id,
        tuple(str(path) for path in files) if isinstance(files, list) else (),
        as_int(usage.get("total_tokens")) or 0,
        cost if isinstance(cost, str) else None,
    )
