"""Tool metadata in the events (DESIGN §6.11): each tool call's events say what
kind of step it is and whether the chat folds it into a line of quiet steps, as
made by the loop and as their JSON says it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chat.agent.events import (
    AnnouncedCall,
    Event,
    ToolCallsAnnounced,
    ToolExecuting,
    ToolResultEvent,
    from_json,
    to_json,
)
from common.jsontypes import JSONObject
from fakes.openrouter import FakeOpenRouter
from fakes.script import ToolCallScript, text, tool_calls
from projects.models import Project
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import done, turn_events

_WHOLE = 1 << 20  # the fake writes each reply at once: the events' order is fixed

# --- the events' JSON ---------------------------------------------------------------------

METADATA = {
    "list_project_files": ("list", "quiet"),
    "read_file": ("read", "quiet"),
    "search_files": ("search", "quiet"),
    "create_file": ("write", "primary"),
    "update_file": ("write", "primary"),
    "edit_file": ("write", "primary"),
    "rename_file": ("move", "primary"),
    "delete_file": ("delete", "primary"),
    "no_such_tool": ("other", "primary"),  # a call that fails: worth seeing
}


@pytest.mark.parametrize(("name", "metadata"), METADATA.items(), ids=METADATA.keys())
def test_every_tool_events_json_says_its_category_and_visibility(
    name: str, metadata: tuple[str, str]
) -> None:
    announced = to_json(ToolCallsAnnounced((AnnouncedCall.of("c1", name, "{}"),)))
    executing = to_json(ToolExecuting("c1", name))
    result = to_json(ToolResultEvent("c1", name, True, "Done", {}, 1.0))

    calls: Any = announced["calls"]
    for event in (calls[0], executing, result):
        assert (event["category"], event["visibility"]) == metadata


def test_the_metadata_comes_from_the_tools_name_not_from_what_a_message_says() -> None:
    # An older server's event has none; a forged one says something else.
    older: JSONObject = {"type": "tool_executing", "id": "c1", "name": "read_file"}
    forged: JSONObject = {**older, "category": "delete", "visibility": "primary"}
    call: JSONObject = {"id": "c2", "name": "create_file", "arguments": "{}", "path": None}

    for data in (older, forged):
        event = from_json(data)
        assert isinstance(event, ToolExecuting)
        assert (event.category, event.visibility) == ("read", "quiet")
    announced = from_json({"type": "tool_calls", "calls": [{**call, "visibility": "quiet"}]})
    assert isinstance(announced, ToolCallsAnnounced)
    assert announced.calls[0].visibility == "primary"


# --- as the loop makes them ---------------------------------------------------------------


def tool_events_json(events: list[Event]) -> list[JSONObject]:
    """Every tool call's events as JSON, as sent; a batch's calls one by one."""
    shown: list[JSONObject] = []
    for event in events:
        data = json.loads(json.dumps(to_json(event)))
        calls = data.get("calls")
        if isinstance(calls, list):
            shown += [{"type": event.type, **call} for call in calls if isinstance(call, dict)]
        elif event.type in ("tool_executing", "tool_result"):
            shown.append(data)
    return shown


@pytest.mark.django_db(transaction=True)
async def test_the_loops_tool_events_carry_each_tools_metadata(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    reads = [ToolCallScript("read_file", {"path": path}) for path in ("/index.html", "/styles.css")]
    rewrite = ToolCallScript("update_file", {"path": "/styles.css", "content": "body {}\n"})
    fake_openrouter.script(
        tool_calls(*reads, piece_size=_WHOLE),
        tool_calls(rewrite, piece_size=_WHOLE),
        text("Done.", piece_size=_WHOLE),
    )

    events = await turn_events(llm_client(), starter_project, "Plainer styles")

    assert done(events).status == "completed"
    shown = tool_events_json(events)
    kinds = ("tool_calls", "tool_executing", "tool_result")
    assert len(shown) == 3 * 3  # each call announced, run and answered
    assert {(e["type"], e["name"], e["category"], e["visibility"]) for e in shown} == {
        *((kind, "read_file", "read", "quiet") for kind in kinds),
        *((kind, "update_file", "write", "primary") for kind in kinds),
    }
