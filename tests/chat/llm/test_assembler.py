"""MessageAssembler and the answer-side values (ToolCall, Usage, AssistantMessage):
streamed pieces in, the finished assistant message out (DESIGN §4)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from chat.llm.assembler import MessageAssembler
from chat.llm.chunks import ChunkParser
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
from chat.llm.messages import AssistantMessage, ChatMessage, ToolCall, Usage
from common.jsontypes import JSONObject, JSONValue


def assemble(*events: StreamEvent) -> AssistantMessage:
    assembler = MessageAssembler()
    for event in events:
        assembler.add(event)
    return assembler.message()


def assemble_chunks(*chunks: JSONObject) -> AssistantMessage:
    """What the client does with a stream: parse every chunk, assemble the pieces."""
    parser = ChunkParser()
    assembler = MessageAssembler()
    for data in chunks:
        pieces = parser.parse(data)
        assert not isinstance(pieces, InStreamError), pieces
        for piece in pieces:
            assembler.add(piece)
    return assembler.message()


def wire_chunk(delta: JSONValue, *, finish: str | None = None, **top: JSONValue) -> JSONObject:
    return {
        "id": "gen-42",
        "provider": "Anthropic",
        "model": "anthropic/claude-sonnet-4",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **top,
    }


def tool_fragment(index: int, *, id: str = "", name: str = "", arguments: str = "") -> JSONObject:
    function: JSONObject = {"arguments": arguments}
    if name:
        function["name"] = name
    call: JSONObject = {"index": index, "type": "function", "function": function}
    if id:
        call["id"] = id
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def ids_of(message: AssistantMessage) -> list[str]:
    return [call.id for call in message.tool_calls]


# --- text and reasoning --------------------------------------------------------


def test_content_pieces_are_joined_in_order() -> None:
    message = assemble(ContentDelta("Hel"), ContentDelta("lo, "), ContentDelta("world"))

    assert message.content == "Hello, world"


def test_content_property_shows_the_text_so_far() -> None:
    assembler = MessageAssembler()
    assembler.add(ContentDelta("one "))
    assert assembler.content == "one "
    assembler.add(ContentDelta("two"))
    assert assembler.content == "one two"


def test_an_empty_stream_is_an_empty_message() -> None:
    assert assemble() == AssistantMessage()


def test_reasoning_is_joined_apart_from_content() -> None:
    message = assemble(
        ReasoningDelta("First, "),
        ContentDelta("The "),
        ReasoningDelta("check."),
        ContentDelta("answer."),
    )

    assert message.reasoning == "First, check."
    assert message.content == "The answer."


def test_reasoning_details_are_kept_unchanged_and_in_order() -> None:
    first: JSONObject = {"type": "reasoning.text", "text": "Let", "index": 0, "format": "x"}
    second: JSONObject = {"type": "reasoning.text", "text": " me", "index": 0}
    third: JSONObject = {"type": "reasoning.encrypted", "data": "gAAA==", "id": "rs_9"}

    message = assemble(
        ReasoningDetailsDelta((first, second)),
        ContentDelta("x"),
        ReasoningDetailsDelta((third,)),
    )

    assert message.reasoning_details == (
        {"type": "reasoning.text", "text": "Let", "index": 0, "format": "x"},
        {"type": "reasoning.text", "text": " me", "index": 0},
        {"type": "reasoning.encrypted", "data": "gAAA==", "id": "rs_9"},
    )


# --- tool calls ------------------------------------------------------------------


def test_tool_call_arguments_in_many_pieces_are_joined_in_order() -> None:
    message = assemble(
        ToolCallDelta(0, "call_1", "update_file", ""),
        ToolCallDelta(0, None, None, '{"pa'),
        ToolCallDelta(0, None, None, 'th": "/index.html", '),
        ToolCallDelta(0, None, None, '"content": "<h1>Hi</h1>"}'),
    )

    assert message.tool_calls == (
        ToolCall("call_1", "update_file", '{"path": "/index.html", "content": "<h1>Hi</h1>"}'),
    )


def test_tool_calls_interleaved_by_index_are_assembled_separately() -> None:
    message = assemble(
        ToolCallDelta(0, "call_a", "read_file", ""),
        ToolCallDelta(1, "call_b", "read_file", ""),
        ToolCallDelta(0, None, None, '{"path": '),
        ToolCallDelta(1, None, None, '{"path": "/b.css"}'),
        ToolCallDelta(0, None, None, '"/a.html"}'),
    )

    assert message.tool_calls == (
        ToolCall("call_a", "read_file", '{"path": "/a.html"}'),
        ToolCall("call_b", "read_file", '{"path": "/b.css"}'),
    )


def test_whole_arguments_in_one_fragment() -> None:
    message = assemble(ToolCallDelta(0, "call_1", "read_file", '{"path": "/a.html"}'))

    assert message.tool_calls == (ToolCall("call_1", "read_file", '{"path": "/a.html"}'),)


@pytest.mark.parametrize("arguments", ["", " ", "\n"])
def test_missing_or_blank_arguments_become_an_empty_object(arguments: str) -> None:
    message = assemble(ToolCallDelta(0, "call_1", "list_files", arguments))

    assert message.tool_calls == (ToolCall("call_1", "list_files", "{}"),)


def test_a_fragment_with_neither_name_nor_arguments_is_not_a_call() -> None:
    message = assemble(ContentDelta("hi"), ToolCallDelta(0, None, None, ""))

    assert message.tool_calls == ()


def test_a_name_sent_in_pieces_is_joined() -> None:
    message = assemble(
        ToolCallDelta(0, "call_1", "read", ""),
        ToolCallDelta(0, None, "_file", '{"path": "/a"}'),
    )

    assert message.tool_calls == (ToolCall("call_1", "read_file", '{"path": "/a"}'),)


def test_a_name_repeated_on_every_fragment_is_not_doubled() -> None:
    message = assemble(
        ToolCallDelta(0, "call_1", "read_file", ""),
        ToolCallDelta(0, None, "read_file", '{"path":'),
        ToolCallDelta(0, None, "read_file", ' "/a"}'),
    )

    assert message.tool_calls == (ToolCall("call_1", "read_file", '{"path": "/a"}'),)


@pytest.mark.parametrize(
    "provider_id",
    ["toolu_01A09q90qw90lq917835lq9", "abc123XYZ", "call_0", "tool_0_read_file"],
)
def test_provider_ids_are_kept_as_given(provider_id: str) -> None:
    message = assemble(ToolCallDelta(0, provider_id, "read_file", '{"path": "/a"}'))

    assert ids_of(message) == [provider_id]


def test_an_id_repeated_on_every_fragment_of_one_call_is_one_call() -> None:
    message = assemble(
        ToolCallDelta(0, "abc123XYZ", "read_file", ""),
        ToolCallDelta(0, "abc123XYZ", None, '{"path":'),
        ToolCallDelta(0, "abc123XYZ", None, ' "/a"}'),
    )

    assert message.tool_calls == (ToolCall("abc123XYZ", "read_file", '{"path": "/a"}'),)


def test_missing_ids_are_replaced_by_unique_non_empty_ids() -> None:
    message = assemble(
        ToolCallDelta(0, None, "read_file", '{"path": "/a"}'),
        ToolCallDelta(1, None, "read_file", '{"path": "/b"}'),
        ToolCallDelta(2, None, "list_files", ""),
    )

    ids = ids_of(message)
    assert all(ids)
    assert len(set(ids)) == 3


def test_empty_ids_from_the_wire_are_replaced_by_unique_non_empty_ids() -> None:
    message = assemble_chunks(
        wire_chunk(tool_fragment(0, id="", name="read_file", arguments='{"path": "/a"}')),
        wire_chunk(tool_fragment(1, id="", name="read_file", arguments='{"path": "/b"}')),
        wire_chunk({}, finish="tool_calls"),
    )

    ids = ids_of(message)
    assert len(ids) == 2
    assert all(ids)
    assert ids[0] != ids[1]


def test_duplicate_ids_are_made_unique_and_the_first_keeps_its_id() -> None:
    message = assemble(
        ToolCallDelta(0, "call_0", "read_file", '{"path": "/a"}'),
        ToolCallDelta(1, "call_0", "read_file", '{"path": "/b"}'),
        ToolCallDelta(2, "call_0", "read_file", '{"path": "/c"}'),
    )

    ids = ids_of(message)
    assert ids[0] == "call_0"
    assert all(ids)
    assert len(set(ids)) == 3
    assert [call.arguments for call in message.tool_calls] == [
        '{"path": "/a"}',
        '{"path": "/b"}',
        '{"path": "/c"}',
    ]


def test_a_synthesised_id_never_collides_with_a_provider_id() -> None:
    message = assemble(
        ToolCallDelta(0, None, "read_file", '{"path": "/a"}'),
        ToolCallDelta(1, "toolu_01XYZ", "read_file", '{"path": "/b"}'),
        ToolCallDelta(2, "toolu_01XYZ", "read_file", '{"path": "/c"}'),
    )

    ids = ids_of(message)
    assert ids[1] == "toolu_01XYZ"
    assert len(set(ids)) == 3


def test_synthesised_ids_are_stable_across_message_calls() -> None:
    # The id a tool result is stored under must be the id sent back later.
    assembler = MessageAssembler()
    assembler.add(ToolCallDelta(0, None, "read_file", '{"path": "/a"}'))
    assembler.add(ToolCallDelta(1, "dup", "read_file", '{"path": "/b"}'))
    assembler.add(ToolCallDelta(2, "dup", "read_file", '{"path": "/c"}'))

    assert ids_of(assembler.message()) == ids_of(assembler.message())


def test_several_calls_to_the_same_function_are_all_kept_in_order() -> None:
    message = assemble_chunks(
        wire_chunk({"role": "assistant", "content": "Reading three files."}),
        wire_chunk(tool_fragment(0, id="toolu_01A", name="read_file")),
        wire_chunk(tool_fragment(0, arguments='{"path": "/index.html"}')),
        wire_chunk(tool_fragment(1, id="toolu_01B", name="read_file")),
        wire_chunk(tool_fragment(1, arguments='{"path": "/styles.css"}')),
        wire_chunk(tool_fragment(2, id="toolu_01C", name="read_file")),
        wire_chunk(tool_fragment(2, arguments='{"path": "/script.js"}')),
        wire_chunk({"role": "assistant", "content": ""}, finish="tool_calls"),
    )

    assert message.tool_calls == (
        ToolCall("toolu_01A", "read_file", '{"path": "/index.html"}'),
        ToolCall("toolu_01B", "read_file", '{"path": "/styles.css"}'),
        ToolCall("toolu_01C", "read_file", '{"path": "/script.js"}'),
    )
    assert message.content == "Reading three files."


def test_calls_all_at_index_zero_with_different_ids_are_separate_calls() -> None:
    message = assemble_chunks(
        wire_chunk(tool_fragment(0, id="call_a", name="read_file", arguments="")),
        wire_chunk(tool_fragment(0, arguments='{"path": "/a"}')),
        wire_chunk(tool_fragment(0, id="call_b", name="read_file", arguments="")),
        wire_chunk(tool_fragment(0, arguments='{"path": "/b"}')),
        wire_chunk(tool_fragment(0, id="call_c", name="list_files")),
        wire_chunk({}, finish="tool_calls"),
    )

    assert message.tool_calls == (
        ToolCall("call_a", "read_file", '{"path": "/a"}'),
        ToolCall("call_b", "read_file", '{"path": "/b"}'),
        ToolCall("call_c", "list_files", "{}"),
    )


def test_calls_all_at_index_zero_without_ids_are_split_after_complete_arguments() -> None:
    message = assemble(
        ToolCallDelta(0, None, "read_file", '{"path": "/a"}'),
        ToolCallDelta(0, None, "read_file", '{"path": "/b"}'),
    )

    assert [(call.name, call.arguments) for call in message.tool_calls] == [
        ("read_file", '{"path": "/a"}'),
        ("read_file", '{"path": "/b"}'),
    ]
    assert len(set(ids_of(message))) == 2


def test_a_trailing_fragment_repeating_the_same_id_and_name_is_not_a_new_call() -> None:
    # Not a phantom second call with arguments "{}".
    message = assemble(
        ToolCallDelta(0, "call_1", "read_file", ""),
        ToolCallDelta(0, "call_1", "read_file", '{"path": "/a"}'),
        ToolCallDelta(0, "call_1", "read_file", ""),
    )

    assert message.tool_calls == (ToolCall("call_1", "read_file", '{"path": "/a"}'),)


def test_calls_at_index_zero_sharing_one_id_each_sent_whole_are_separate_calls() -> None:
    message = assemble(
        ToolCallDelta(0, "call_0", "read_file", '{"path": "/a"}'),
        ToolCallDelta(0, "call_0", "read_file", '{"path": "/b"}'),
    )

    assert [(call.name, call.arguments) for call in message.tool_calls] == [
        ("read_file", '{"path": "/a"}'),
        ("read_file", '{"path": "/b"}'),
    ]
    assert ids_of(message)[0] == "call_0"
    assert len(set(ids_of(message))) == 2


def test_asking_for_the_message_mid_stream_does_not_disturb_later_pieces() -> None:
    assembler = MessageAssembler()
    assembler.add(ToolCallDelta(0, None, "read_file", '{"path":'))
    early = assembler.message()
    assembler.add(ToolCallDelta(0, None, None, ' "/a"}'))
    assembler.add(ToolCallDelta(1, None, "list_files", ""))

    final = assembler.message()

    assert [(call.name, call.arguments) for call in final.tool_calls] == [
        ("read_file", '{"path": "/a"}'),
        ("list_files", "{}"),
    ]
    assert final.tool_calls[0].id == early.tool_calls[0].id
    assert ids_of(final) == ids_of(assembler.message())


def test_a_realistic_openrouter_tool_stream_gives_the_whole_message() -> None:
    usage: JSONObject = {
        "prompt_tokens": 900,
        "completion_tokens": 60,
        "total_tokens": 960,
        "cost": 0.0042,
        "completion_tokens_details": {"reasoning_tokens": 20},
    }
    details: list[JSONValue] = [{"type": "reasoning.text", "text": "Need the file.", "index": 0}]

    message = assemble_chunks(
        wire_chunk({"role": "assistant", "content": ""}),
        wire_chunk({"role": "assistant", "content": "", "reasoning": "Need the file."}),
        wire_chunk({"role": "assistant", "content": "", "reasoning_details": details}),
        wire_chunk({"role": "assistant", "content": "Let me look."}),
        wire_chunk(tool_fragment(0, id="toolu_01ABC", name="read_file")),
        wire_chunk(tool_fragment(0, arguments='{"path":')),
        wire_chunk(tool_fragment(0, arguments=' "/index.html"}')),
        wire_chunk({"role": "assistant", "content": ""}, finish="tool_calls"),
        wire_chunk({"role": "assistant", "content": ""}, finish="tool_calls", usage=usage),
    )

    assert message == AssistantMessage(
        content="Let me look.",
        reasoning="Need the file.",
        reasoning_details=({"type": "reasoning.text", "text": "Need the file.", "index": 0},),
        tool_calls=(ToolCall("toolu_01ABC", "read_file", '{"path": "/index.html"}'),),
        finish_reason="tool_calls",
        usage=Usage(
            prompt_tokens=900,
            completion_tokens=60,
            total_tokens=960,
            reasoning_tokens=20,
            cost=Decimal("0.0042"),
        ),
        model="anthropic/claude-sonnet-4",
        provider="Anthropic",
        generation_id="gen-42",
    )


def test_arguments_sent_as_an_object_become_json_text() -> None:
    fragment: JSONObject = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": {"n": 1}}}
        ],
    }

    message = assemble_chunks(wire_chunk(fragment), wire_chunk({}, finish="tool_calls"))

    assert message.tool_calls == (ToolCall("call_1", "f", '{"n": 1}'),)


# --- finish reason, usage, who answered ----------------------------------------


def test_stop_with_tool_calls_present_still_yields_the_calls() -> None:
    message = assemble(ToolCallDelta(0, "call_1", "list_files", ""), Finish("stop"))

    assert message.finish_reason == "stop"
    assert message.tool_calls == (ToolCall("call_1", "list_files", "{}"),)


@pytest.mark.parametrize("repeated", ["tool_calls", "stop", "length"])
def test_the_first_finish_reason_wins(repeated: str) -> None:
    message = assemble(Finish("tool_calls"), Finish(repeated))

    assert message.finish_reason == "tool_calls"


def test_usage_chunk_repeating_a_different_finish_reason_keeps_the_first() -> None:
    message = assemble_chunks(
        wire_chunk({"content": "Done."}, finish="stop"),
        wire_chunk({"content": ""}, finish="length", usage={"prompt_tokens": 1}),
    )

    assert message.finish_reason == "stop"
    assert message.usage == Usage(prompt_tokens=1, total_tokens=1)


def test_no_finish_reason_is_none() -> None:
    assert assemble(ContentDelta("cut off")).finish_reason is None


def test_the_last_usage_wins() -> None:
    message = assemble(
        UsageReport(Usage(prompt_tokens=10, completion_tokens=1, total_tokens=11)),
        ContentDelta("x"),
        UsageReport(Usage(prompt_tokens=10, completion_tokens=7, total_tokens=17)),
    )

    assert message.usage == Usage(prompt_tokens=10, completion_tokens=7, total_tokens=17)


def test_no_usage_is_none() -> None:
    assert assemble(ContentDelta("x"), Finish("stop")).usage is None


def test_response_info_names_model_provider_and_generation() -> None:
    message = assemble(ResponseInfo("gen-7", "openai/gpt-4o", "Azure"), ContentDelta("x"))

    assert (message.generation_id, message.model, message.provider) == (
        "gen-7",
        "openai/gpt-4o",
        "Azure",
    )


# --- back on the wire ------------------------------------------------------------


def test_to_chat_message_sends_null_content_beside_tool_calls() -> None:
    details: JSONObject = {"type": "reasoning.encrypted", "data": "gAAA=="}
    message = AssistantMessage(
        reasoning="thinking",
        reasoning_details=(details,),
        tool_calls=(ToolCall("call_1", "read_file", '{"path": "/a"}'),),
    )

    assert message.to_chat_message() == ChatMessage(
        "assistant",
        None,
        tool_calls=(ToolCall("call_1", "read_file", '{"path": "/a"}'),),
        reasoning_details=({"type": "reasoning.encrypted", "data": "gAAA=="},),
    )
    assert message.to_chat_message().to_wire() == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "/a"}'},
            }
        ],
        "reasoning_details": [{"type": "reasoning.encrypted", "data": "gAAA=="}],
    }


def test_to_chat_message_keeps_content_beside_tool_calls() -> None:
    message = AssistantMessage(content="Looking.", tool_calls=(ToolCall("c", "f", "{}"),))

    assert message.to_chat_message().content == "Looking."


def test_to_chat_message_without_tool_calls_has_text_content_never_null() -> None:
    assert AssistantMessage().to_chat_message() == ChatMessage("assistant", "")
    assert AssistantMessage(content="Hi").to_chat_message() == ChatMessage("assistant", "Hi")


def test_tool_call_to_wire() -> None:
    assert ToolCall("toolu_01ABC", "update_file", '{"path": "/a"}').to_wire() == {
        "id": "toolu_01ABC",
        "type": "function",
        "function": {"name": "update_file", "arguments": '{"path": "/a"}'},
    }


# --- Usage -------------------------------------------------------------------------


def test_usage_from_wire_reads_openrouter_usage() -> None:
    usage = Usage.from_wire(
        {
            "prompt_tokens": 1200,
            "completion_tokens": 340,
            "total_tokens": 1540,
            "cost": 0.0123456,
            "is_byok": False,
            "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 128, "image_tokens": 0},
            "cost_details": {"upstream_inference_cost": None},
        }
    )

    assert usage == Usage(
        prompt_tokens=1200,
        completion_tokens=340,
        total_tokens=1540,
        reasoning_tokens=128,
        cached_tokens=1024,
        cost=Decimal("0.0123456"),
    )


@pytest.mark.parametrize(
    ("cost", "expected"),
    [
        (0.1, Decimal("0.1")),
        (0, Decimal(0)),
        (2, Decimal(2)),
        ("0.000015", Decimal("0.000015")),
        (1.5e-07, Decimal("1.5E-7")),
        (None, None),
        ("free", None),
        ("NaN", None),
        ("Infinity", None),
        (True, None),
        ([0.1], None),
        ({"total": 0.1}, None),
    ],
)
def test_usage_cost_is_an_exact_decimal_or_none(cost: JSONValue, expected: Decimal | None) -> None:
    assert Usage.from_wire({"cost": cost}).cost == expected


def test_usage_without_total_adds_prompt_and_completion() -> None:
    usage = Usage.from_wire({"prompt_tokens": 7, "completion_tokens": 5})

    assert usage == Usage(prompt_tokens=7, completion_tokens=5, total_tokens=12)


@pytest.mark.parametrize("garbage", ["12", None, True, 1.5, [1], {"n": 1}])
def test_usage_garbage_counts_are_ignored(garbage: JSONValue) -> None:
    usage = Usage.from_wire(
        {
            "prompt_tokens": garbage,
            "completion_tokens": garbage,
            "total_tokens": garbage,
            "prompt_tokens_details": {"cached_tokens": garbage},
            "completion_tokens_details": {"reasoning_tokens": garbage},
        }
    )

    assert usage == Usage()


@pytest.mark.parametrize("details", [None, "x", [1], 5])
def test_usage_details_that_are_not_objects_are_ignored(details: JSONValue) -> None:
    usage = Usage.from_wire(
        {
            "prompt_tokens": 3,
            "prompt_tokens_details": details,
            "completion_tokens_details": details,
        }
    )

    assert usage == Usage(prompt_tokens=3, total_tokens=3)


def test_usage_counts_as_whole_floats_are_read() -> None:
    assert Usage.from_wire({"prompt_tokens": 10.0}).prompt_tokens == 10


def test_usage_sum_adds_every_count() -> None:
    first = Usage(1, 2, 3, 4, 5, Decimal("0.5"))
    second = Usage(10, 20, 30, 40, 50, Decimal("0.25"))

    assert first + second == Usage(11, 22, 33, 44, 55, Decimal("0.75"))


def test_usage_sum_of_decimal_costs_is_exact() -> None:
    total = Usage.from_wire({"cost": 0.1}) + Usage.from_wire({"cost": 0.2})

    assert total.cost == Decimal("0.3")


def test_usage_sum_of_two_unknown_costs_stays_unknown() -> None:
    assert (Usage(prompt_tokens=1) + Usage(prompt_tokens=2)).cost is None


@pytest.mark.parametrize(
    ("first", "second"),
    [(Decimal("0.02"), None), (None, Decimal("0.02"))],
)
def test_usage_sum_with_one_known_cost_is_that_cost(
    first: Decimal | None, second: Decimal | None
) -> None:
    assert (Usage(cost=first) + Usage(cost=second)).cost == Decimal("0.02")


def test_usage_sum_starts_from_an_empty_usage() -> None:
    reports = [Usage(1, 1, 2, cost=Decimal("0.1")), Usage(2, 2, 4, cost=Decimal("0.2"))]

    assert sum(reports, Usage()) == Usage(3, 3, 6, cost=Decimal("0.3"))


def test_usage_to_json_keeps_cost_as_an_exact_string() -> None:
    usage = Usage(
        prompt_tokens=1200,
        completion_tokens=340,
        total_tokens=1540,
        reasoning_tokens=128,
        cached_tokens=1024,
        cost=Decimal("0.0123456"),
    )

    assert usage.to_json() == {
        "prompt_tokens": 1200,
        "completion_tokens": 340,
        "total_tokens": 1540,
        "reasoning_tokens": 128,
        "cached_tokens": 1024,
        "cost": "0.0123456",
    }
    assert Decimal(str(usage.to_json()["cost"])) == usage.cost


def test_usage_to_json_without_cost_has_null_cost() -> None:
    assert Usage(prompt_tokens=5, total_tokens=5).to_json()["cost"] is None
