"""A message's stored record (chat.records): what is written reads back the same,
and whatever an older or broken row holds reads as its empty value, never an error."""

from __future__ import annotations

from decimal import Decimal

import pytest

from chat.llm import AssistantMessage, Usage
from chat.records.reply import AssistantRecord, ReplyRecord, stored_turn
from chat.records.tool_result import ToolRecord
from chat.records.turn import SERVER_STOPPED, ToolTiming, TurnError, TurnRecord
from chat.records.user_message import UserRecord

USAGE = Usage(
    prompt_tokens=1200,
    completion_tokens=300,
    total_tokens=1500,
    reasoning_tokens=120,
    cached_tokens=800,
    cost=Decimal("0.0042"),
)


def ended_turn() -> TurnRecord:
    return TurnRecord.ended(
        status="failed",
        finish_reason="error",
        iterations=3,
        usage=USAGE,
        files_changed=["/index.html", "/about.html"],
        tool_timings=[ToolTiming("call_1", "create_file", True, 12.34)],
        seconds=2.5,
        error=SERVER_STOPPED,
    )


def test_a_turn_record_is_stored_as_the_closing_message_always_said_it() -> None:
    assert ended_turn().to_stored() == {
        "status": "failed",
        "finish_reason": "error",
        "iterations": 3,
        "usage": USAGE.to_json(),
        "cost": "0.0042",
        "files_changed": ["/index.html", "/about.html"],
        "tool_timings": [{"id": "call_1", "name": "create_file", "ok": True, "duration_ms": 12.34}],
        "duration_ms": 2500.0,
        "error": {
            "code": "server_stopped",
            "message": SERVER_STOPPED.message,
            "retryable": True,
        },
    }


def test_every_record_reads_back_what_it_wrote() -> None:
    reply = ReplyRecord.of(
        AssistantMessage(
            content="Hi",
            reasoning_details=({"type": "reasoning.text", "text": "hm"}, {}),
            finish_reason="stop",
            usage=USAGE,
            provider="Anthropic",
            generation_id="gen-1",
        ),
        model="anthropic/claude",
        iteration=2,
        seconds=1.25,
    )
    closing = AssistantRecord(reply, ended_turn())
    assert AssistantRecord.from_stored(closing.to_stored()) == closing
    assert AssistantRecord.from_stored(AssistantRecord(reply).to_stored()).turn is None
    tool = ToolRecord("read_file", True, "Read /index.html", 3.5)
    assert ToolRecord.from_stored(tool.to_stored()) == tool
    user = UserRecord("m", ({"type": "element", "file": "/index.html"},), (4, 5))
    assert UserRecord.from_stored(user.to_stored()) == user


def test_a_closing_message_that_answered_nothing_stores_only_the_turn() -> None:
    stored = AssistantRecord(turn=ended_turn()).to_stored()
    assert list(stored) == ["turn"]
    assert AssistantRecord.from_stored(stored).reply is None


def test_a_person_s_message_stores_attachments_and_pictures_only_when_it_has_them() -> None:
    assert UserRecord("m").to_stored() == {"model": "m"}


@pytest.mark.parametrize(
    "stored",
    [
        None,
        [],
        "turn",
        {"turn": "done"},
        {"turn": None, "model": 7, "usage": [1], "iteration": "two"},
        {
            "turn": {
                "status": "exploded",
                "finish_reason": 3,
                "iterations": True,
                "usage": "lots",
                "cost": 0.5,
                "files_changed": "/index.html",
                "tool_timings": [None, "x", {"ok": "yes", "duration_ms": True}],
                "duration_ms": "slow",
                "error": ["bad"],
            }
        },
    ],
)
def test_a_malformed_record_reads_as_empty_values(stored: object) -> None:
    record = AssistantRecord.from_stored(stored)
    assert record.model == ""
    assert record.usage is None or record.usage.total_tokens == 0
    turn = record.turn
    if turn is not None:
        assert (turn.status, turn.finish_reason, turn.iterations) == ("completed", "stop", 0)
        assert (turn.cost, turn.files_changed, turn.error) == (None, (), None)
        assert turn.usage == Usage()
        assert all(not timing.ok for timing in turn.tool_timings)
    assert ToolRecord.from_stored(stored).duration_ms is None
    assert UserRecord.from_stored(stored) == UserRecord()


def test_a_turn_written_by_hand_reads_what_it_has() -> None:
    """Older rows, and the tests' own, carry only some of the keys."""
    turn = stored_turn(
        {"turn": {"status": "failed", "error": {"code": "bad_api_key", "message": "No."}}}
    )
    assert turn is not None
    assert turn.status == "failed"
    assert turn.error == TurnError("bad_api_key", "No.", retryable=False)
    assert stored_turn({"model": "m"}) is None


def test_a_person_s_pictures_are_ids_only() -> None:
    record = UserRecord.from_stored({"images": [3, "4", True, 5.5, 6]})
    assert record.images == (3, 6)
