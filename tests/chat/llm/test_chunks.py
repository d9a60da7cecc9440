"""ChunkParser: one chat-completion chunk in, typed pieces out, tolerant of what
OpenRouter and OpenAI-compatible servers really send (DESIGN §4)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from chat.llm.chunks import ChunkParser, parse_json_chunk
from chat.llm.deltas import (
    ContentDelta,
    Finish,
    ReasoningDelta,
    ReasoningDetailsDelta,
    ResponseInfo,
    StreamEvent,
    ToolCallDelta,
    UsageReport,
)
from chat.llm.errors import InStreamError
from chat.llm.messages import Usage
from common.jsontypes import JSONObject, JSONValue


def chunk(delta: JSONValue = None, *, finish: str | None = None, **top: JSONValue) -> JSONObject:
    """An OpenRouter streaming chunk with one choice."""
    return {
        "id": "gen-1",
        "provider": "OpenAI",
        "model": "openai/gpt-4o",
        "object": "chat.completion.chunk",
        "created": 1_750_000_000,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **top,
    }


def started_parser() -> ChunkParser:
    """A parser that has already seen a first chunk, so it sends no ResponseInfo."""
    parser = ChunkParser()
    parser.parse(chunk({"role": "assistant", "content": ""}))
    return parser


def events_of(data: JSONObject) -> list[StreamEvent]:
    result = started_parser().parse(data)
    assert not isinstance(result, InStreamError), result
    return result


def error_of(data: JSONObject) -> InStreamError:
    result = started_parser().parse(data)
    assert isinstance(result, InStreamError), result
    return result


# --- who answered --------------------------------------------------------------


def test_response_info_comes_first_and_only_once() -> None:
    parser = ChunkParser()

    first = parser.parse(chunk({"role": "assistant", "content": "Hi"}))
    second = parser.parse(chunk({"role": "assistant", "content": " there"}))

    assert first == [
        ResponseInfo(generation_id="gen-1", model="openai/gpt-4o", provider="OpenAI"),
        ContentDelta("Hi"),
    ]
    assert second == [ContentDelta(" there")]


def test_response_info_has_nones_when_a_local_server_leaves_the_fields_out() -> None:
    result = ChunkParser().parse({"choices": [{"delta": {"content": "x"}}]})

    assert result == [ResponseInfo(None, None, None), ContentDelta("x")]


# --- content and role ----------------------------------------------------------


@pytest.mark.parametrize(
    "delta",
    [
        {"role": "assistant"},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": None},
        {},
        None,
    ],
)
def test_a_delta_with_only_the_repeated_role_yields_no_events(delta: JSONValue) -> None:
    assert events_of(chunk(delta)) == []


def test_content_is_passed_on_exactly_including_whitespace() -> None:
    assert events_of(chunk({"role": "assistant", "content": "  two\n\nlines "})) == [
        ContentDelta("  two\n\nlines ")
    ]


def test_content_null_beside_a_tool_call_yields_only_the_tool_call() -> None:
    data = chunk(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_abc",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": ""},
                }
            ],
        }
    )

    assert events_of(data) == [ToolCallDelta(0, "call_abc", "read_file", "")]


@pytest.mark.parametrize("content", [42, ["a", "b"], {"text": "x"}, True])
def test_content_that_is_not_a_string_is_ignored(content: JSONValue) -> None:
    assert events_of(chunk({"content": content})) == []


# --- reasoning -----------------------------------------------------------------


@pytest.mark.parametrize("key", ["reasoning", "reasoning_content"])
def test_reasoning_text_is_its_own_event(key: str) -> None:
    assert events_of(chunk({"role": "assistant", "content": "", key: "Let me think"})) == [
        ReasoningDelta("Let me think")
    ]


def test_reasoning_is_preferred_over_reasoning_content_when_both_are_sent() -> None:
    data = chunk({"reasoning": "from reasoning", "reasoning_content": "from reasoning_content"})

    assert events_of(data) == [ReasoningDelta("from reasoning")]


def test_null_reasoning_falls_back_to_reasoning_content() -> None:
    assert events_of(chunk({"reasoning": None, "reasoning_content": "deep"})) == [
        ReasoningDelta("deep")
    ]


def test_reasoning_details_are_kept_unchanged_and_in_order() -> None:
    details: list[JSONValue] = [
        {"type": "reasoning.text", "text": "Step one", "format": "anthropic-claude-v1", "index": 0},
        {"type": "reasoning.encrypted", "data": "gAAAAB==", "id": "rs_1", "index": 1},
    ]
    data = chunk({"reasoning": "Step one", "reasoning_details": details})

    assert events_of(data) == [
        ReasoningDelta("Step one"),
        ReasoningDetailsDelta(
            (
                {
                    "type": "reasoning.text",
                    "text": "Step one",
                    "format": "anthropic-claude-v1",
                    "index": 0,
                },
                {"type": "reasoning.encrypted", "data": "gAAAAB==", "id": "rs_1", "index": 1},
            )
        ),
    ]


def test_reasoning_details_entries_that_are_not_objects_are_dropped() -> None:
    data = chunk({"reasoning_details": ["text", 3, None, {"type": "reasoning.summary"}]})

    assert events_of(data) == [ReasoningDetailsDelta(({"type": "reasoning.summary"},))]


@pytest.mark.parametrize("details", [[], ["only", "strings"], "not a list", {"type": "x"}])
def test_reasoning_details_with_nothing_usable_yield_no_event(details: JSONValue) -> None:
    assert events_of(chunk({"reasoning_details": details})) == []


def test_content_reasoning_and_tool_calls_in_one_delta_come_out_in_a_fixed_order() -> None:
    data = chunk(
        {
            "content": "text",
            "reasoning": "thought",
            "reasoning_details": [{"type": "reasoning.text", "text": "thought"}],
            "tool_calls": [{"index": 0, "function": {"arguments": "{}"}}],
        }
    )

    assert [type(event) for event in events_of(data)] == [
        ContentDelta,
        ReasoningDelta,
        ReasoningDetailsDelta,
        ToolCallDelta,
    ]


# --- tool calls ----------------------------------------------------------------


def tool_chunk(*calls: JSONValue) -> JSONObject:
    return chunk({"role": "assistant", "content": None, "tool_calls": list(calls)})


def test_tool_call_fragments_keep_their_index() -> None:
    data = tool_chunk(
        {
            "index": 1,
            "id": "call_b",
            "type": "function",
            "function": {"name": "b", "arguments": ""},
        },
        {"index": 0, "function": {"arguments": '{"x":'}},
    )

    assert events_of(data) == [
        ToolCallDelta(1, "call_b", "b", ""),
        ToolCallDelta(0, None, None, '{"x":'),
    ]


def test_tool_call_fragments_without_index_use_their_position() -> None:
    data = tool_chunk(
        {"id": "call_a", "function": {"name": "a", "arguments": "{}"}},
        {"id": "call_b", "function": {"name": "b", "arguments": '{"n": 1}'}},
    )

    assert events_of(data) == [
        ToolCallDelta(0, "call_a", "a", "{}"),
        ToolCallDelta(1, "call_b", "b", '{"n": 1}'),
    ]


@pytest.mark.parametrize("index", ["1", None, True, 1.5, [0]])
def test_a_tool_call_index_that_is_not_a_whole_number_falls_back_to_position(
    index: JSONValue,
) -> None:
    data = tool_chunk({"index": index, "function": {"name": "f"}})

    assert events_of(data) == [ToolCallDelta(0, None, "f", "")]


def test_a_whole_float_index_counts_as_that_index() -> None:
    assert events_of(tool_chunk({"index": 2.0, "function": {"name": "f"}})) == [
        ToolCallDelta(2, None, "f", "")
    ]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"path": "/index.html"}', '{"path": "/index.html"}'),
        ('{"pa', '{"pa'),
        ("", ""),
        ({"path": "/index.html"}, '{"path": "/index.html"}'),
        ({"text": "héllo ✓"}, '{"text": "héllo ✓"}'),
        ({}, "{}"),
        ([1, 2], "[1, 2]"),
        (None, ""),
    ],
    ids=["string", "partial-string", "empty", "object", "unicode-object", "empty-object",
         "list", "null"],
)  # fmt: skip
def test_tool_call_arguments_as_string_object_or_null(arguments: JSONValue, expected: str) -> None:
    data = tool_chunk({"index": 0, "function": {"name": "f", "arguments": arguments}})

    assert events_of(data) == [ToolCallDelta(0, None, "f", expected)]


def test_tool_call_without_arguments_key_has_empty_arguments() -> None:
    data = tool_chunk({"index": 0, "id": "call_1", "function": {"name": "list_files"}})

    assert events_of(data) == [ToolCallDelta(0, "call_1", "list_files", "")]


def test_empty_tool_call_id_and_name_become_none() -> None:
    data = tool_chunk({"index": 0, "id": "", "function": {"name": "", "arguments": "{}"}})

    assert events_of(data) == [ToolCallDelta(0, None, None, "{}")]


@pytest.mark.parametrize("provider_id", ["toolu_01A09q90qw90lq917835lq9", "abc123XYZ"])
def test_provider_tool_call_ids_are_passed_on_as_given(provider_id: str) -> None:
    data = tool_chunk({"index": 0, "id": provider_id, "function": {"name": "f"}})

    assert events_of(data) == [ToolCallDelta(0, provider_id, "f", "")]


# --- finish reason and usage ---------------------------------------------------


@pytest.mark.parametrize("reason", ["stop", "tool_calls", "length", "content_filter"])
def test_finish_reason_is_passed_on(reason: str) -> None:
    assert events_of(chunk({"content": ""}, finish=reason)) == [Finish(reason)]


def test_content_comes_before_the_finish_in_the_same_chunk() -> None:
    assert events_of(chunk({"content": "end."}, finish="stop")) == [
        ContentDelta("end."),
        Finish("stop"),
    ]


@pytest.mark.parametrize("reason", ["", None, 0])
def test_empty_or_non_string_finish_reason_yields_no_finish(reason: JSONValue) -> None:
    data = chunk({"content": "x"})
    data["choices"] = [{"delta": {"content": "x"}, "finish_reason": reason}]

    assert events_of(data) == [ContentDelta("x")]


OPENROUTER_USAGE: JSONObject = {
    "prompt_tokens": 120,
    "completion_tokens": 45,
    "total_tokens": 165,
    "cost": 0.00123,
    "completion_tokens_details": {"reasoning_tokens": 30},
    "prompt_tokens_details": {"cached_tokens": 100},
}
EXPECTED_USAGE = Usage(
    prompt_tokens=120,
    completion_tokens=45,
    total_tokens=165,
    reasoning_tokens=30,
    cached_tokens=100,
    cost=Decimal("0.00123"),
)


def test_usage_chunk_with_no_choices_yields_the_usage() -> None:
    data = chunk(usage=OPENROUTER_USAGE)
    data["choices"] = []

    assert events_of(data) == [UsageReport(EXPECTED_USAGE)]


def test_usage_chunk_repeating_the_finish_reason_yields_finish_then_usage() -> None:
    data = chunk({"role": "assistant", "content": ""}, finish="tool_calls", usage=OPENROUTER_USAGE)

    assert events_of(data) == [Finish("tool_calls"), UsageReport(EXPECTED_USAGE)]


@pytest.mark.parametrize("usage", [None, "165 tokens", [1, 2], 165])
def test_usage_that_is_not_an_object_is_ignored(usage: JSONValue) -> None:
    assert events_of(chunk({"content": "x"}, usage=usage)) == [ContentDelta("x")]


# --- errors inside a 200 stream ------------------------------------------------


def error_chunk(code: JSONValue, message: str = "Provider disconnected unexpectedly") -> JSONObject:
    """OpenRouter's mid-stream error: a chunk with a top-level `error` object."""
    return chunk(
        {"content": ""},
        finish="error",
        error={"code": code, "message": message},
    )


@pytest.mark.parametrize(
    ("code", "retryable"),
    [
        (502, True),
        (500, True),
        (503, True),
        (429, True),
        (408, True),
        ("server_error", True),
        ("rate_limit_exceeded", True),
        ("502", True),
        (400, False),
        (401, False),
        ("invalid_request", False),
        ("invalid_request_error", False),
        ("content_filter", False),
    ],
)
def test_error_chunk_is_an_in_stream_error_retryable_by_code(
    code: int | str, retryable: bool
) -> None:
    error = error_of(error_chunk(code))

    assert error.retryable is retryable
    assert error.code == code
    assert error.upstream_message == "Provider disconnected unexpectedly"
    assert "Provider disconnected unexpectedly" in error.message


def test_error_chunk_with_null_finish_reason_is_still_an_error() -> None:
    data = chunk(None, error={"code": "server_error", "message": "Upstream overloaded"})

    error = error_of(data)

    assert error.upstream_message == "Upstream overloaded"
    assert error.retryable is True


def test_error_chunk_names_the_provider() -> None:
    data = chunk(
        None,
        error={
            "code": 502,
            "message": "boom",
            "metadata": {"provider_name": "Anthropic"},
        },
    )

    assert error_of(data).provider == "Anthropic"


def test_error_chunk_without_metadata_names_the_chunk_provider() -> None:
    assert error_of(error_chunk(502)).provider == "OpenAI"


def test_error_chunk_on_the_very_first_chunk_is_an_error_not_response_info() -> None:
    result = ChunkParser().parse(error_chunk(500))

    assert isinstance(result, InStreamError)


def test_error_chunk_with_content_does_not_yield_the_content() -> None:
    data = chunk({"content": "partial"}, error={"code": 500, "message": "boom"})

    assert isinstance(ChunkParser().parse(data), InStreamError)


def test_error_code_true_is_not_kept_as_a_code() -> None:
    assert error_of(chunk(None, error={"code": True, "message": "odd"})).code is None


def test_finish_reason_error_without_an_error_object_is_an_in_stream_error() -> None:
    error = error_of(chunk({"content": "half an answ"}, finish="error"))

    assert isinstance(error, InStreamError)
    assert error.upstream_message
    assert error.code is None


def test_a_null_error_key_is_not_an_error() -> None:
    assert events_of(chunk({"content": "fine"}, error=None)) == [ContentDelta("fine")]


# --- garbage never raises --------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"choices": None},
        {"choices": "not a list"},
        {"choices": {"0": {"delta": {"content": "x"}}}},
        {"choices": [None]},
        {"choices": ["a string"]},
        {"choices": [{"delta": "not an object"}]},
        {"choices": [{"delta": ["content"]}]},
        {"choices": [{"delta": {"tool_calls": "not a list"}}]},
        {"choices": [{"delta": {"tool_calls": {"index": 0}}}]},
        {"choices": [{"delta": {"content": None, "reasoning": 5}}]},
        {"id": 5, "model": ["x"], "provider": {"name": "y"}},
    ],
)
def test_garbage_shapes_yield_no_output_and_never_raise(data: JSONObject) -> None:
    result = ChunkParser().parse(data)

    assert not isinstance(result, InStreamError)
    assert [event for event in result if not isinstance(event, ResponseInfo)] == []


@pytest.mark.parametrize("entry", [None, "call", 3, ["index", 0]])
def test_tool_call_entries_that_are_not_objects_never_raise(entry: JSONValue) -> None:
    data = tool_chunk(entry, {"index": 1, "id": "call_ok", "function": {"name": "ok"}})

    events = events_of(data)

    # Whatever the garbage entry becomes, it carries nothing; the good one is intact.
    empty = ToolCallDelta(0, None, None, "")
    assert [event for event in events if event != empty] == [ToolCallDelta(1, "call_ok", "ok", "")]


def test_tool_call_with_function_not_an_object_never_raises() -> None:
    data = tool_chunk({"index": 0, "id": "call_1", "function": "read_file"})

    assert events_of(data) == [ToolCallDelta(0, "call_1", None, "")]


def test_non_streaming_message_is_read_with_message_key() -> None:
    reply: JSONObject = {
        "id": "gen-2",
        "model": "anthropic/claude-sonnet-4",
        "provider": "Anthropic",
        "choices": [
            {
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": "Reading it.",
                    "tool_calls": [
                        {
                            "id": "toolu_01",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": '{"path":"/a"}'},
                        },
                        {
                            "id": "toolu_02",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": '{"path":"/b"}'},
                        },
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }

    assert ChunkParser().parse(reply, message_key="message") == [
        ResponseInfo("gen-2", "anthropic/claude-sonnet-4", "Anthropic"),
        ContentDelta("Reading it."),
        ToolCallDelta(0, "toolu_01", "read_file", '{"path":"/a"}'),
        ToolCallDelta(1, "toolu_02", "read_file", '{"path":"/b"}'),
        Finish("tool_calls"),
        UsageReport(Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15)),
    ]


# --- parse_json_chunk ----------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"[DONE]",
        b"",
        b"not json",
        b'{"truncated": ',
        b"\xff\xfe garbage",
        b"[1, 2]",
        b'"a string"',
        b"42",
        b"null",
        b"true",
    ],
)
def test_parse_json_chunk_is_none_for_anything_but_a_json_object(data: bytes) -> None:
    assert parse_json_chunk(data) is None


def test_parse_json_chunk_reads_a_json_object_with_utf8_text() -> None:
    assert parse_json_chunk('{"choices": [], "text": "héllo ✓"}'.encode()) == {
        "choices": [],
        "text": "héllo ✓",
    }
