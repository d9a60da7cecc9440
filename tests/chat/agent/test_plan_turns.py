"""Plan turns through the real loop and the fake OpenRouter: the model
is given only the tools that look, so no request of the turn offers one that
writes; a write it calls anyway is an unknown tool and changes nothing; it is
told to answer with a plan; the turn is stored as a plan turn."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async

from chat.agent.events import ToolResultEvent, TurnStarted
from chat.models import Message
from chat.records.user_message import UserRecord
from chat.tools import file_tools, plan_tools
from fakes.openrouter import FakeOpenRouter
from fakes.script import ToolCallScript, text, tool_calls
from projects.models import FileRevision, Project, ProjectFile
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import done, new_conversation, turn_events

pytestmark = pytest.mark.django_db(transaction=True)

_WHOLE = 1 << 20
LOOKING = {"list_project_files", "read_file", "search_files", "check_site"}
PLAN = "1. Create `/contact.html` with a form.\n2. Link it from `/index.html`."


def offered(fake: FakeOpenRouter, number: int) -> set[str]:
    tools: list[dict[str, Any]] = fake.requests[number].json.get("tools") or []
    return {tool["function"]["name"] for tool in tools}


@sync_to_async
def project_state(project: Project) -> tuple[dict[str, str], int]:
    files = dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    return files, FileRevision.objects.filter(project=project).count()


@sync_to_async
def user_record(message_id: int) -> UserRecord:
    return UserRecord.from_stored(Message.objects.get(pk=message_id).metadata)


def test_a_plan_turns_tools_are_the_ones_that_look() -> None:
    tools = plan_tools(file_tools())

    assert set(tools.names()) == LOOKING
    assert not any(tool.writes for name in tools.names() if (tool := tools.get(name)))


async def test_no_request_of_a_plan_turn_offers_a_tool_that_writes(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        tool_calls(ToolCallScript("read_file", {"path": "/index.html"}), piece_size=_WHOLE),
        text(PLAN, piece_size=_WHOLE),
    )

    events = await turn_events(llm_client(), starter_project, "Add a contact page", plan=True)

    assert done(events).status == "completed"
    assert [offered(fake_openrouter, n) for n in range(2)] == [LOOKING, LOOKING]
    started = events[0]
    assert isinstance(started, TurnStarted)
    assert started.plan
    assert (await user_record(started.message_id)).plan, "stored as a plan turn"
    # Told, after the person's words, to answer with a plan and change nothing.
    messages = fake_openrouter.requests[0].json["messages"]
    assert [m["role"] for m in messages[-2:]] == ["user", "system"]
    assert "numbered steps" in messages[-1]["content"]
    assert "not change" in messages[-1]["content"]


async def test_a_write_the_model_calls_anyway_is_an_unknown_tool_and_changes_nothing(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    before = await project_state(starter_project)
    fake_openrouter.script(
        tool_calls(
            ToolCallScript("create_file", {"path": "/contact.html", "content": "<p>Hi</p>"}),
            ToolCallScript("delete_file", {"path": "/index.html"}),
            piece_size=_WHOLE,
        ),
        text(PLAN, piece_size=_WHOLE),
    )

    events = await turn_events(llm_client(), starter_project, "Add a contact page", plan=True)

    results = [event for event in events if isinstance(event, ToolResultEvent)]
    # Unknown, they write nothing, so they may run side by side and end in any order.
    assert sorted((r.name, r.ok, r.result.get("code")) for r in results) == [
        ("create_file", False, "unknown_tool"),
        ("delete_file", False, "unknown_tool"),
    ]
    assert set(results[0].result["available_tools"]) == LOOKING  # type: ignore[arg-type]
    assert done(events).files_changed == ()
    assert await project_state(starter_project) == before


async def test_a_normal_turn_is_not_a_plan_and_keeps_every_tool(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(text("Hello", piece_size=_WHOLE))
    conversation = await new_conversation(project)

    events = await turn_events(llm_client(), project, "Hi", conversation=conversation)

    started = events[0]
    assert isinstance(started, TurnStarted)
    assert not started.plan
    assert offered(fake_openrouter, 0) == set(file_tools().names())
    assert not (await user_record(started.message_id)).plan
    assert fake_openrouter.requests[0].json["messages"][-1]["role"] == "user"
