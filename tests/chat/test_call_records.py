"""A message's stored tool calls (chat.records.tool_calls): written as the wire
has them, read back the same, and an older or broken row reads as empty values."""

from __future__ import annotations

import pytest

from chat.llm import ToolCall
from chat.records.tool_calls import CallRecord


def test_a_call_is_stored_as_the_wire_has_it_and_reads_back() -> None:
    call = ToolCall("call_1", "read_file", '{"path": "/index.html"}')
    stored = CallRecord.of(call).to_stored()
    assert stored == call.to_wire()
    assert CallRecord.all_from([stored]) == (
        CallRecord("call_1", "read_file", '{"path": "/index.html"}'),
    )


@pytest.mark.parametrize(
    "stored",
    [None, {}, "calls", 3, [None], [[]], [{"id": 5, "function": "read_file"}]],
)
def test_malformed_calls_read_as_empty_values(stored: object) -> None:
    assert all(call == CallRecord() for call in CallRecord.all_from(stored))


def test_a_call_missing_its_function_keeps_its_id() -> None:
    assert CallRecord.all_from([{"id": "call_2"}]) == (CallRecord("call_2"),)
