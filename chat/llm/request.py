"""The one place a request body is built: typed request in, wire JSON out.

Unset parameters are dropped rather than sent as null, because many
OpenAI-compatible servers reject a null where they expect a number; then the
provider guardrails (guardrails.py) adjust what a provider is known to refuse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Literal

from chat.llm.errors import BadRequestError
from chat.llm.guardrails import apply_guardrails
from chat.llm.messages import ChatMessage, ToolSpec
from common.jsontypes import JSONObject, JSONValue

Effort = Literal["xhigh", "high", "medium", "low", "minimal", "none"]


@dataclass(frozen=True, slots=True)
class Reasoning:
    """OpenRouter's unified reasoning settings; set effort or max_tokens, not both."""

    effort: Effort | None = None
    max_tokens: int | None = None
    exclude: bool | None = None
    enabled: bool | None = None


@dataclass(frozen=True, slots=True)
class ForcedTool:
    """A tool_choice that makes the model call this one tool."""

    name: str


ToolChoice = Literal["auto", "none", "required"] | ForcedTool


@dataclass(frozen=True, slots=True)
class ModelParameters:
    """Sampling and output settings, all optional; None means "the model's default"."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    max_tokens: int | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    repetition_penalty: float | None = None
    min_p: float | None = None
    top_a: float | None = None
    seed: int | None = None
    stop: str | tuple[str, ...] | None = None
    response_format: Mapping[str, JSONValue] | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    logit_bias: Mapping[str, float] | None = None
    reasoning: Reasoning | None = None


@dataclass(frozen=True, slots=True)
class ChatRequest:
    model: str
    messages: Sequence[ChatMessage]
    tools: Sequence[ToolSpec] = ()
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    parameters: ModelParameters = ModelParameters()


def build_body(request: ChatRequest, *, stream: bool) -> JSONObject:
    if not request.model.strip():
        raise BadRequestError("No model was chosen for this request")
    body: JSONObject = {
        "model": request.model.strip(),
        "messages": [message.to_wire() for message in request.messages],
    }
    if request.tools:
        body["tools"] = [tool.to_wire() for tool in request.tools]
        if request.tool_choice is not None:
            body["tool_choice"] = _tool_choice(request.tool_choice)
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    body.update(_parameters(request.parameters))
    if stream:
        body["stream"] = True
        # Standard OpenAI option; local servers (vLLM, llama.cpp, Ollama) only
        # report usage when asked, OpenRouter always does.
        body["stream_options"] = {"include_usage": True}
    return apply_guardrails(body)


def _tool_choice(choice: ToolChoice) -> JSONValue:
    if isinstance(choice, ForcedTool):
        return {"type": "function", "function": {"name": choice.name}}
    return choice


def _parameters(parameters: ModelParameters) -> JSONObject:
    wire: JSONObject = {}
    for spec in fields(parameters):
        value = getattr(parameters, spec.name)
        if value is None:
            continue
        if isinstance(value, Reasoning):
            settings: JSONObject = {
                name: setting
                for name, setting in (
                    ("effort", value.effort),
                    ("max_tokens", value.max_tokens),
                    ("exclude", value.exclude),
                    ("enabled", value.enabled),
                )
                if setting is not None
            }
            if settings:  # an empty object could switch reasoning on with defaults
                wire[spec.name] = settings
        elif isinstance(value, tuple):
            wire[spec.name] = list(value)
        elif isinstance(value, Mapping):
            wire[spec.name] = dict(value)
        else:
            wire[spec.name] = value
    return wire
