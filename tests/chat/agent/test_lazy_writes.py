"""No lazy writes (DESIGN §6, point 13), told through real turns against the fake
OpenRouter: the model writes a file with a line standing for what it left out,
reads the refusal, writes the whole thing, and the file is whole at the end."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from chat.agent.events import Event, FilesChanged, ToolResultEvent
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply, ToolCallScript, text, tool_calls
from projects.models import FileRevision, Project, ProjectFile
from projects.starter import STARTER_FILES
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import done, turn_events

# Bigger than any scripted reply: each arrives whole, so the events' order is fixed.
_WHOLE = 1 << 20

STYLES = STARTER_FILES["/styles.css"]
SCRIPT = STARTER_FILES["/script.js"]
TOMATO = "\n.hero h1 {\n  color: tomato;\n}\n"


def calls(name: str, **arguments: Any) -> Reply:
    return tool_calls(ToolCallScript(name, arguments), piece_size=_WHOLE)


def results(events: list[Event]) -> list[ToolResultEvent]:
    return [event for event in events if isinstance(event, ToolResultEvent)]


def changed(events: list[Event]) -> list[tuple[str, ...]]:
    return [event.paths for event in events if isinstance(event, FilesChanged)]


def last_sent(fake: FakeOpenRouter, number: int) -> dict[str, Any]:
    """The last message of the model request `number` (from 0)."""
    message: dict[str, Any] = fake.requests[number].json["messages"][-1]
    return message


@sync_to_async
def content_of(project: Project, path: str) -> str:
    return ProjectFile.objects.get(project=project, path=path).content


@sync_to_async
def assistant_writes(project: Project, path: str) -> list[str]:
    rows = FileRevision.objects.filter(project=project, path=path, actor="assistant")
    return list(rows.order_by("id").values_list("action", flat=True))


@pytest.mark.django_db(transaction=True)
async def test_a_lazy_rewrite_is_refused_and_the_model_writes_the_whole_file(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls("read_file", path="/styles.css"),
        calls("update_file", path="/styles.css", content="/* existing styles */\n" + TOMATO),
        calls("update_file", path="/styles.css", content=STYLES + TOMATO),
        text("The heading is tomato red now.", piece_size=_WHOLE),
    )

    events = await turn_events(llm_client(), starter_project, "Make the heading tomato red")

    read, lazy, whole = results(events)
    assert [(r.name, r.ok) for r in (read, lazy, whole)] == [
        ("read_file", True),
        ("update_file", False),
        ("update_file", True),
    ]
    error = lazy.result["error"]
    assert isinstance(error, str)
    assert error.startswith(
        "Line 1 of your content looks like a placeholder for content left out: "
        "'/* existing styles */'. Nothing was written"
    )
    assert "Write the whole file with update_file" in error
    # The model read the refusal as the result of its call, and wrote the file whole.
    refusal = last_sent(fake_openrouter, 2)
    assert refusal["tool_call_id"] == lazy.id
    assert json.loads(refusal["content"]) == lazy.result
    assert await content_of(starter_project, "/styles.css") == STYLES + TOMATO
    assert changed(events) == [("/styles.css",)]
    assert await assistant_writes(starter_project, "/styles.css") == ["update"]
    assert (done(events).status, done(events).files_changed) == ("completed", ("/styles.css",))


@pytest.mark.django_db(transaction=True)
async def test_a_lazy_edit_is_refused_and_a_targeted_edit_follows(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    body = SCRIPT.split("\n", 1)[1]  # all but the first line
    fake_openrouter.script(
        calls("read_file", path="/script.js"),
        calls(
            "edit_file",
            path="/script.js",
            edits=[
                {"search": body, "replace": "  // ... rest of the code remains the same\n});\n"}
            ],
        ),
        calls(
            "edit_file",
            path="/script.js",
            edits=[{"search": '"morning"', "replace": '"bright morning"'}],
        ),
        text("Mornings are bright now.", piece_size=_WHOLE),
    )

    events = await turn_events(llm_client(), starter_project, "Say bright morning")

    _, lazy, targeted = results(events)
    assert (lazy.ok, targeted.ok) == (False, True)
    error = lazy.result["error"]
    assert isinstance(error, str)
    assert error.startswith(
        "Line 2 of the file as your edits leave it looks like a placeholder for content "
        "left out: '// ... rest of the code remains the same'."
    )
    assert "targeted change with edit_file" in error
    assert await content_of(starter_project, "/script.js") == SCRIPT.replace(
        '"morning"', '"bright morning"'
    )
    assert await assistant_writes(starter_project, "/script.js") == ["edit"]


@pytest.mark.django_db(transaction=True)
async def test_the_model_is_told_that_lazy_writes_are_refused(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(text("Nothing to change.", piece_size=_WHOLE))

    await turn_events(llm_client(), starter_project, "Anything to change?")

    tools = {
        tool["function"]["name"]: tool["function"]["description"]
        for tool in fake_openrouter.requests[0].json["tools"]
    }
    for name in ("create_file", "update_file", "edit_file"):
        assert "'// ... rest of the code remains the same'" in tools[name]
        assert "is refused" in tools[name]
