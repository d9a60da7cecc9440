"""A broken or hostile model server cannot take the memory or the time of the
machine: an answer's text, reasoning and arguments, one
stream event, one request with its retries, a whole turn and the calls of one
answer are all bounded. Reaching a bound ends the turn in words and keeps what
was done. Real HTTP to the fake OpenRouter, which can write without end."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from chat.agent.events import Done, ErrorEvent, Event, ToolCallsAnnounced, ToolResultEvent
from chat.models import Message
from fakes.openrouter import FakeOpenRouter
from fakes.script import (
    Comment,
    Endless,
    Raw,
    Stall,
    Stream,
    ToolCallScript,
    text,
    tool_calls,
)
from projects.models import Project, ProjectFile
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import limits, new_conversation, turn_events

pytestmark = pytest.mark.django_db(transaction=True)

SMALL = 64 * 1024  # bytes of one answer, in these tests


def chunk(delta: dict[str, Any]) -> bytes:
    body = {"id": "gen-1", "model": "m", "choices": [{"index": 0, "delta": delta}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def call_head(name: str, call_id: str = "call_1") -> bytes:
    function = {"name": name, "arguments": ""}
    return chunk(
        {"tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": function}]}
    )


def arguments(piece: str) -> bytes:
    return chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})


def the_error(events: list[Event]) -> ErrorEvent:
    (error,) = [event for event in events if isinstance(event, ErrorEvent)]
    return error


def the_end(events: list[Event]) -> Done:
    done = events[-1]
    assert isinstance(done, Done)
    return done


@sync_to_async
def stored_rows(project: Project) -> list[tuple[str, list[object]]]:
    rows = Message.objects.filter(conversation__project=project).order_by("sequence")
    return list(rows.values_list("role", "tool_calls"))


async def closing_text(done: Done) -> str:
    message = await sync_to_async(Message.objects.get)(pk=done.message_id)
    return message.content


async def test_tool_arguments_that_never_end_stop_at_the_bound(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(
        Stream([Comment(), Raw(call_head("create_file")), Endless(arguments("x" * 4096))])
    )
    client = llm_client(max_answer_bytes=SMALL)
    events = await turn_events(client, project, "Build a page")
    error = the_error(events)
    assert error.code == "answer_too_large"
    assert "passed 64 KiB" in error.message
    assert "what was done until then is kept" in error.message
    assert the_end(events).status == "failed"
    assert len(fake_openrouter.requests) == 1, "a bound is not retried"
    # The reply began storing at the call's first fragment, while the closing
    # message was being written: one row ends the turn, none is left half-made.
    assert await stored_rows(project) == [("user", []), ("assistant", [])]
    assert (await closing_text(the_end(events))) == ""


async def test_one_event_of_endless_data_lines_stops_at_the_bound(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(
        Stream([Raw(b'data: {"choices":\n'), Endless(b"data: " + b" " * 4096 + b"\n")])
    )
    client = llm_client(max_answer_bytes=SMALL)
    events = await turn_events(client, project, "Hello")
    assert the_error(events).code == "answer_too_large"
    assert "longer than" in the_error(events).message


async def test_endless_text_stops_at_the_bound_and_what_was_shown_is_kept(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(
        Stream(
            [
                Raw(chunk({"content": "Here it comes. "})),
                Endless(chunk({"content": "words " * 500})),
            ]
        )
    )
    client = llm_client(max_answer_bytes=SMALL)
    events = await turn_events(client, project, "Write forever")
    assert the_error(events).code == "answer_too_large"
    shown = await closing_text(the_end(events))
    assert shown.startswith("Here it comes. words")
    assert len(shown.encode()) <= SMALL


async def test_a_stall_before_any_output_is_bounded_by_the_request_time_limit(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(Stream([Comment(), Stall()]), text("Too late"))
    client = llm_client(read_timeout=30.0, max_retries=3)
    events = await turn_events(client, project, "Hello", turn_limits=limits(request_time_limit=0.5))
    error = the_error(events)
    assert error.code == "too_slow"
    assert error.message.startswith("The model took longer than 0.5 seconds to answer one request")
    assert len(fake_openrouter.requests) == 1


async def test_a_turn_past_its_time_limit_ends_in_words_keeping_its_work(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(
        tool_calls(ToolCallScript("create_file", {"path": "/new.html", "content": "<p>New</p>"})),
        Stream([Comment(), Stall()]),
    )
    client = llm_client()
    events = await turn_events(
        client, starter_project, "Add a page", turn_limits=limits(turn_time_limit=1.0)
    )
    error = the_error(events)
    assert error.code == "too_slow"
    assert "The turn took longer than its limit of 1 seconds" in error.message
    exists = sync_to_async(
        ProjectFile.objects.filter(project=starter_project, path="/new.html").exists
    )
    assert await exists()


async def test_calls_past_the_limit_of_one_answer_are_refused_so_the_model_learns(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    paths = ["/index.html", "/styles.css", "/a.html", "/b.html", "/c.html"]
    reads = [ToolCallScript("read_file", {"path": path}) for path in paths]
    fake_openrouter.script(tool_calls(*reads), text("Read it."))
    client = llm_client()
    events = await turn_events(
        client, starter_project, "Read", turn_limits=limits(max_tool_calls=2)
    )
    results = {event.id: event for event in events if isinstance(event, ToolResultEvent)}
    announced = [e for e in events if isinstance(e, ToolCallsAnnounced)]
    in_order = [results[call.id] for event in announced for call in event.calls]
    assert [result.ok for result in in_order] == [True, True, False, False, False]
    assert in_order[-1].result["code"] == "too_many_calls"
    assert "at most 2 tool calls" in str(in_order[-1].result["error"])
    assert the_end(events).status == "completed"
    answered = fake_openrouter.requests[1].json["messages"]
    assert [item["role"] for item in answered[-5:]] == ["tool"] * 5


async def test_a_bound_reached_after_a_call_ran_keeps_the_call_and_ends_the_turn(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    page = json.dumps({"path": "/kept.html", "content": "<p>Kept</p>"})
    fake_openrouter.script(
        Stream(
            [
                Raw(call_head("create_file", "call_a")),
                Raw(arguments(page)),
                Raw(call_head("create_file", "call_b").replace(b'"index": 0', b'"index": 1')),
                Endless(arguments("y" * 4096).replace(b'"index": 0', b'"index": 1')),
            ]
        )
    )
    client = llm_client(max_answer_bytes=SMALL)
    events = await turn_events(client, starter_project, "Two pages")
    assert the_error(events).code == "answer_too_large"
    assert len(fake_openrouter.requests) == 1, "the turn ends: no next round"
    kept = sync_to_async(
        ProjectFile.objects.filter(project=starter_project, path="/kept.html").exists
    )
    assert await kept()
    conversation = await new_conversation(starter_project)
    assert conversation.pk  # the project still takes new conversations
