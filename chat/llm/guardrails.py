"""What some providers refuse, keyed by model prefix: one row per provider.

A row only ever removes or pins what the provider is known to reject, so a
request that works elsewhere still works there. To add a provider, add a row.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.jsontypes import JSONObject


@dataclass(frozen=True, slots=True)
class Guardrail:
    prefix: str
    why: str
    forced_tool_choice: bool = True  # False: "required" or a named tool becomes "auto"
    response_format: bool = True  # False: response_format is dropped
    parallel_tool_calls: bool | None = None  # pinned to this value when tools are sent


GUARDRAILS: tuple[Guardrail, ...] = (
    Guardrail(
        "x-ai/",
        why="xAI's models reject a forced tool_choice and response_format, "
        "and are asked for one tool call at a time",
        forced_tool_choice=False,
        response_format=False,
        parallel_tool_calls=False,
    ),
)


def guardrail_for(model: str) -> Guardrail | None:
    model = model.lower()
    return next((row for row in GUARDRAILS if model.startswith(row.prefix)), None)


def apply_guardrails(body: JSONObject) -> JSONObject:
    model = body.get("model")
    row = guardrail_for(model) if isinstance(model, str) else None
    if row is None:
        return body
    adjusted = dict(body)
    choice = adjusted.get("tool_choice")
    if not row.forced_tool_choice and (choice == "required" or isinstance(choice, dict)):
        adjusted["tool_choice"] = "auto"
    if not row.response_format:
        adjusted.pop("response_format", None)
    if row.parallel_tool_calls is not None and "tools" in adjusted:
        adjusted["parallel_tool_calls"] = row.parallel_tool_calls
    return adjusted
