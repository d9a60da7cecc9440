"""build_body and the provider guardrails: one typed request in, the wire body out,
with nothing unset sent as null and what a provider refuses left out (DESIGN §4)."""

from __future__ import annotations

from dataclasses import fields

import pytest

from chat.llm import guardrails
from chat.llm.errors import BadRequestError
from chat.llm.guardrails import Guardrail, guardrail_for
from chat.llm.messages import ChatMessage, ToolCall, ToolSpec
from chat.llm.request import (
    ChatRequest,
    ForcedTool,
    ModelParameters,
    Reasoning,
    ToolChoice,
    build_body,
)
from common.jsontypes import JSONObject, JSONValue

HELLO = (ChatMessage.user("Hello"),)
READ_FILE = ToolSpec(
    "read_file",
    "Read one file of the project.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
LIST_FILES = ToolSpec("list_files", "List the project's files.")
TOOLS = (READ_FILE, LIST_FILES)
DEFAULTS = ModelParameters()

# Every field of ModelParameters with a value and how it must look on the wire.
PARAMETERS: list[tuple[str, object, JSONValue]] = [
    ("temperature", 0.7, 0.7),
    ("top_p", 0.9, 0.9),
    ("top_k", 40, 40),
    ("max_tokens", 2048, 2048),
    ("frequency_penalty", 0.5, 0.5),
    ("presence_penalty", -0.5, -0.5),
    ("repetition_penalty", 1.1, 1.1),
    ("min_p", 0.05, 0.05),
    ("top_a", 0.2, 0.2),
    ("seed", 1234, 1234),
    ("stop", "###", "###"),
    ("stop", ("###", "END"), ["###", "END"]),
    ("response_format", {"type": "json_object"}, {"type": "json_object"}),
    ("logprobs", True, True),
    ("top_logprobs", 5, 5),
    ("logit_bias", {"50256": -100.0}, {"50256": -100.0}),
    ("reasoning", Reasoning(effort="high"), {"effort": "high"}),
    ("reasoning", Reasoning(max_tokens=2000), {"max_tokens": 2000}),
    ("reasoning", Reasoning(exclude=True), {"exclude": True}),
    ("reasoning", Reasoning(enabled=False), {"enabled": False}),
    (
        "reasoning",
        Reasoning(effort="low", exclude=False, enabled=True),
        {"effort": "low", "exclude": False, "enabled": True},
    ),
]


def body_for(
    model: str = "openai/gpt-4o",
    *,
    messages: tuple[ChatMessage, ...] = HELLO,
    tools: tuple[ToolSpec, ...] = (),
    tool_choice: ToolChoice | None = None,
    parallel_tool_calls: bool | None = None,
    parameters: ModelParameters = DEFAULTS,
    stream: bool = False,
) -> JSONObject:
    request = ChatRequest(
        model=model,
        messages=messages,
        tools=tools,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls,
        parameters=parameters,
    )
    return build_body(request, stream=stream)


def nulls_in(value: JSONValue) -> list[str]:
    """Paths of every null in a body except message content (null there is meaningful)."""
    if isinstance(value, dict):
        return [
            f"{key}.{path}" if path else key
            for key, item in value.items()
            if key != "content"
            for path in (nulls_in(item) if item is not None else [""])
        ]
    if isinstance(value, list):
        return [path for item in value for path in nulls_in(item)]
    return []


# --- the minimal body --------------------------------------------------------------


def test_minimal_body_has_only_model_and_messages() -> None:
    assert body_for() == {
        "model": "openai/gpt-4o",
        "messages": [{"role": "user", "content": "Hello"}],
    }


def test_model_is_stripped() -> None:
    assert body_for("  openai/gpt-4o \n")["model"] == "openai/gpt-4o"


@pytest.mark.parametrize("model", ["", "   ", "\n\t"])
def test_a_blank_model_is_a_bad_request(model: str) -> None:
    with pytest.raises(BadRequestError, match="No model"):
        body_for(model)


# --- parameters ----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value", "wire"), PARAMETERS)
def test_a_set_parameter_is_sent_under_its_wire_name(
    name: str, value: object, wire: JSONValue
) -> None:
    body = body_for(parameters=ModelParameters(**{name: value}))  # type: ignore[arg-type]

    assert body == {
        "model": "openai/gpt-4o",
        "messages": [{"role": "user", "content": "Hello"}],
        name: wire,
    }


def test_every_parameter_field_is_covered_by_the_table() -> None:
    assert {spec.name for spec in fields(ModelParameters)} == {name for name, _, _ in PARAMETERS}


def test_all_parameters_together_are_all_sent_and_no_nulls() -> None:
    values = {name: value for name, value, _ in PARAMETERS}
    body = body_for(parameters=ModelParameters(**values))  # type: ignore[arg-type]

    for name, _, _ in PARAMETERS:
        assert name in body
    assert nulls_in(body) == []


def test_unset_parameters_are_absent_not_null() -> None:
    body = body_for(parameters=ModelParameters(), stream=True)

    assert set(body) == {"model", "messages", "stream", "stream_options"}
    assert nulls_in(body) == []


@pytest.mark.parametrize(
    ("name", "value"),
    [("temperature", 0.0), ("seed", 0), ("top_k", 0), ("logprobs", False), ("stop", ())],
)
def test_falsy_but_set_parameters_are_still_sent(name: str, value: object) -> None:
    body = body_for(parameters=ModelParameters(**{name: value}))  # type: ignore[arg-type]

    assert name in body
    assert body[name] == (list(value) if isinstance(value, tuple) else value)


def test_reasoning_settings_left_unset_are_not_sent_as_null() -> None:
    body = body_for(parameters=ModelParameters(reasoning=Reasoning(effort="medium")))

    assert body["reasoning"] == {"effort": "medium"}


def test_mapping_parameters_are_copied_not_shared() -> None:
    schema: dict[str, JSONValue] = {"type": "json_schema", "json_schema": {"name": "x"}}
    body = body_for(parameters=ModelParameters(response_format=schema))

    assert body["response_format"] == schema
    assert body["response_format"] is not schema


# --- tools -------------------------------------------------------------------------


def test_tools_are_sent_as_functions() -> None:
    body = body_for(tools=TOOLS)

    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read one file of the project.",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "list_files",
                "description": "List the project's files.",
                "parameters": {"type": "object", "properties": {}},
            },
        },
    ]
    assert "tool_choice" not in body
    assert "parallel_tool_calls" not in body


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        (ForcedTool("read_file"), {"type": "function", "function": {"name": "read_file"}}),
    ],
)
def test_tool_choice_is_sent_with_tools(choice: ToolChoice, wire: JSONValue) -> None:
    assert body_for(tools=TOOLS, tool_choice=choice)["tool_choice"] == wire


@pytest.mark.parametrize("parallel", [True, False])
def test_parallel_tool_calls_is_sent_with_tools(parallel: bool) -> None:
    assert body_for(tools=TOOLS, parallel_tool_calls=parallel)["parallel_tool_calls"] is parallel


@pytest.mark.parametrize("choice", ["auto", "required", ForcedTool("read_file")])
def test_tool_choice_and_parallel_calls_without_tools_are_not_sent(choice: ToolChoice) -> None:
    body = body_for(tool_choice=choice, parallel_tool_calls=True)

    assert "tools" not in body
    assert "tool_choice" not in body
    assert "parallel_tool_calls" not in body


# --- streaming ---------------------------------------------------------------------


def test_stream_asks_for_usage() -> None:
    body = body_for(stream=True)

    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


def test_non_streaming_body_has_no_stream_keys() -> None:
    body = body_for(stream=False)

    assert "stream" not in body
    assert "stream_options" not in body


# --- messages ----------------------------------------------------------------------


def test_a_whole_tool_turn_is_serialised() -> None:
    details: JSONObject = {"type": "reasoning.encrypted", "data": "gAAA==", "id": "rs_1"}
    messages = (
        ChatMessage.system("You build websites."),
        ChatMessage.user("Fix the title."),
        ChatMessage(
            "assistant",
            None,
            tool_calls=(
                ToolCall("toolu_01ABC", "read_file", '{"path": "/index.html"}'),
                ToolCall("abc123XYZ", "list_files", "{}"),
            ),
            reasoning_details=(details,),
        ),
        ChatMessage.tool("toolu_01ABC", "<h1>Old</h1>"),
        ChatMessage.tool("abc123XYZ", '["/index.html"]'),
        ChatMessage("assistant", "Done."),
    )

    assert body_for(messages=messages)["messages"] == [
        {"role": "system", "content": "You build websites."},
        {"role": "user", "content": "Fix the title."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "toolu_01ABC",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "/index.html"}'},
                },
                {
                    "id": "abc123XYZ",
                    "type": "function",
                    "function": {"name": "list_files", "arguments": "{}"},
                },
            ],
            "reasoning_details": [{"type": "reasoning.encrypted", "data": "gAAA==", "id": "rs_1"}],
        },
        {"role": "tool", "content": "<h1>Old</h1>", "tool_call_id": "toolu_01ABC"},
        {"role": "tool", "content": '["/index.html"]', "tool_call_id": "abc123XYZ"},
        {"role": "assistant", "content": "Done."},
    ]


# --- guardrails ----------------------------------------------------------------------


@pytest.mark.parametrize("model", ["x-ai/grok-4", "X-AI/Grok-4", "x-ai/grok-code-fast-1"])
@pytest.mark.parametrize("choice", ["required", ForcedTool("read_file")])
def test_xai_never_gets_a_forced_tool_choice(model: str, choice: ToolChoice) -> None:
    assert body_for(model, tools=TOOLS, tool_choice=choice)["tool_choice"] == "auto"


@pytest.mark.parametrize("choice", ["auto", "none"])
def test_xai_keeps_an_unforced_tool_choice(choice: ToolChoice) -> None:
    assert body_for("x-ai/grok-4", tools=TOOLS, tool_choice=choice)["tool_choice"] == choice


@pytest.mark.parametrize("model", ["x-ai/grok-4", "X-AI/GROK-4"])
def test_xai_gets_no_response_format(model: str) -> None:
    params = ModelParameters(response_format={"type": "json_object"}, temperature=0.2)

    body = body_for(model, parameters=params)

    assert "response_format" not in body
    assert body["temperature"] == 0.2


@pytest.mark.parametrize("requested", [None, True, False])
def test_xai_parallel_tool_calls_are_pinned_off_when_tools_are_sent(
    requested: bool | None,
) -> None:
    body = body_for("x-ai/grok-4", tools=TOOLS, parallel_tool_calls=requested)

    assert body["parallel_tool_calls"] is False


def test_xai_without_tools_gets_no_parallel_tool_calls() -> None:
    assert "parallel_tool_calls" not in body_for("x-ai/grok-4", stream=True)


def test_xai_body_keeps_everything_else() -> None:
    body = body_for(
        "x-ai/grok-4",
        tools=TOOLS,
        tool_choice="auto",
        parameters=ModelParameters(temperature=0.3, seed=7),
        stream=True,
    )

    assert body["model"] == "x-ai/grok-4"
    assert body["messages"] == [{"role": "user", "content": "Hello"}]
    assert len(body["tools"]) == 2  # type: ignore[arg-type]
    assert (body["temperature"], body["seed"], body["stream"]) == (0.3, 7, True)


@pytest.mark.parametrize(
    "model",
    ["openai/gpt-4o", "google/gemini-2.5-flash", "anthropic/claude-sonnet-4", "xai/grok", "x-ai"],
)
def test_other_models_are_untouched(model: str) -> None:
    body = body_for(
        model,
        tools=TOOLS,
        tool_choice=ForcedTool("read_file"),
        parallel_tool_calls=True,
        parameters=ModelParameters(response_format={"type": "json_object"}),
    )

    assert body["tool_choice"] == {"type": "function", "function": {"name": "read_file"}}
    assert body["parallel_tool_calls"] is True
    assert body["response_format"] == {"type": "json_object"}


def test_guardrail_for_matches_by_case_insensitive_prefix() -> None:
    row = guardrail_for("X-AI/grok-4")

    assert row is not None
    assert row.prefix == "x-ai/"
    assert guardrail_for("openai/gpt-4o") is None


def test_a_new_guardrail_row_takes_effect(monkeypatch: pytest.MonkeyPatch) -> None:
    row = Guardrail("mistralai/", why="test row", forced_tool_choice=False)
    monkeypatch.setattr(guardrails, "GUARDRAILS", (*guardrails.GUARDRAILS, row))

    body = body_for(
        "mistralai/mistral-large",
        tools=TOOLS,
        tool_choice="required",
        parallel_tool_calls=True,
        parameters=ModelParameters(response_format={"type": "json_object"}),
    )

    assert body["tool_choice"] == "auto"
    assert body["parallel_tool_calls"] is True
    assert body["response_format"] == {"type": "json_object"}
    assert body_for("x-ai/grok-4", tools=TOOLS, tool_choice="required")["tool_choice"] == "auto"


def test_reasoning_with_nothing_set_is_not_sent() -> None:
    request = ChatRequest(
        model="openai/gpt-4o",
        messages=[ChatMessage.user("hi")],
        parameters=ModelParameters(reasoning=Reasoning()),
    )

    assert "reasoning" not in build_body(request, stream=False)
