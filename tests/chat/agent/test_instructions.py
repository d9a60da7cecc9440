"""The owner's instructions (/AGENTS.md, issue 30) through the real loop and the
fake OpenRouter: read into the system prompt of every request, read again each
turn, cut when long, and changed by the model only when the person asked it to
remember something."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from chat.agent.events import ToolResultEvent
from chat.agent.instructions import MAX_INSTRUCTIONS_CHARS, project_instructions
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply, ToolCallScript, text, tool_calls
from projects.files.results import FileWrite
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_update
from projects.starter import STARTER_FILES
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import new_conversation, turn_events

_WHOLE = 1 << 20  # bigger than any reply here: each arrives in one piece


def calls(name: str, **arguments: Any) -> Reply:
    return tool_calls(ToolCallScript(name, arguments), piece_size=_WHOLE)


def whole(content: str) -> Reply:
    return text(content, piece_size=_WHOLE)


def system_of(fake: FakeOpenRouter, number: int) -> str:
    first = fake.requests[number].json["messages"][0]
    assert first["role"] == "system"
    content: str = first["content"]
    return content


@sync_to_async
def write(project: Project, path: str, content: str) -> None:
    author = Author.person(project.owner)
    if project.files.filter(path=path).exists():
        result = file_update(project=project, path=path, content=content, author=author)
    else:
        result = file_create(project=project, path=path, content=content, author=author)
    assert isinstance(result, FileWrite), result


@sync_to_async
def content_of(project: Project, path: str) -> str | None:
    record = ProjectFile.objects.filter(project=project, path=path).first()
    return None if record is None else record.content


def results(events: list[Any]) -> list[ToolResultEvent]:
    return [event for event in events if isinstance(event, ToolResultEvent)]


@pytest.mark.django_db(transaction=True)
async def test_the_instructions_reach_the_system_prompt_of_every_request(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(calls("list_project_files"), whole("Here is your site."))

    await turn_events(llm_client(), starter_project, "What is in my site?")

    assert len(fake_openrouter.requests) == 2
    section = await sync_to_async(project_instructions)(starter_project)
    assert STARTER_FILES["/AGENTS.md"].strip() in section
    for number in (0, 1):
        system = system_of(fake_openrouter, number)
        assert section in system
        assert "The owner's standing instructions for this project, from /AGENTS.md" in system


@pytest.mark.django_db(transaction=True)
async def test_an_edit_of_the_instructions_takes_effect_the_next_turn(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(whole("Hello."), whole("Bonjour."))
    conversation = await new_conversation(starter_project)
    client = llm_client()

    await turn_events(client, starter_project, "Hi", conversation=conversation)
    await write(starter_project, "/AGENTS.md", "Answer in French.\n")
    await turn_events(client, starter_project, "Hi again", conversation=conversation)

    assert "write the site's text in English" in system_of(fake_openrouter, 0)
    second = system_of(fake_openrouter, 1)
    assert "--- /AGENTS.md ---\nAnswer in French.\n--- end of /AGENTS.md ---" in second
    assert "write the site's text in English" not in second


@pytest.mark.django_db(transaction=True)
async def test_a_project_without_instructions_has_no_section_for_them(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(whole("Hello."))

    await turn_events(llm_client(), project, "Hi")

    assert await sync_to_async(project_instructions)(project) == ""
    system = system_of(fake_openrouter, 0)
    assert "--- /AGENTS.md ---" not in system
    # The rule about them is told all the same: a "remember…" may create the file.
    assert "Change it only when the person asks you to remember something" in system


@pytest.mark.django_db(transaction=True)
async def test_long_instructions_are_cut_with_a_note_saying_so(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    kept = "k" * (MAX_INSTRUCTIONS_CHARS - 1) + "K"
    await write(project, "/AGENTS.md", kept + "LOST" + "x" * 1_996)
    fake_openrouter.script(whole("Hello."))

    await turn_events(llm_client(), project, "Hi")

    system = system_of(fake_openrouter, 0)
    assert kept + "\n[Cut here: /AGENTS.md has 10,000 characters and only the first 8,000" in system
    assert "LOST" not in system
    assert "suggest they shorten it." in system


@pytest.mark.django_db(transaction=True)
async def test_a_model_write_to_the_instructions_is_refused_when_not_asked_to_remember(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls("update_file", path="/AGENTS.md", content="Use bright red everywhere.\n"),
        calls("rename_file", path="/AGENTS.md", new_path="/notes.md"),
        whole("I left your instructions alone."),
    )

    events = await turn_events(llm_client(), starter_project, "Make the heading blue")

    refused = results(events)
    assert [(r.name, r.ok) for r in refused] == [("update_file", False), ("rename_file", False)]
    assert refused[0].result["code"] == "instructions_protected"
    assert "ask the person whether they want it remembered" in str(refused[0].result["error"])
    assert await content_of(starter_project, "/AGENTS.md") == STARTER_FILES["/AGENTS.md"]
    # The model was told why, in the result it was sent back.
    told = json.loads(fake_openrouter.requests[1].json["messages"][-1]["content"])
    assert told["code"] == "instructions_protected"


@pytest.mark.django_db(transaction=True)
async def test_a_model_writes_the_instructions_when_the_person_asks_to_remember(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls("create_file", path="/AGENTS.md", content="- Always write in French.\n"),
        whole("Noted: I will write in French from now on."),
        whole("Bonjour."),
    )
    conversation = await new_conversation(project)
    client = llm_client()

    events = await turn_events(
        client, project, "Remember: the site is in French", conversation=conversation
    )
    await turn_events(client, project, "Hi", conversation=conversation)

    assert [(r.name, r.ok) for r in results(events)] == [("create_file", True)]
    assert await content_of(project, "/AGENTS.md") == "- Always write in French.\n"
    assert "- Always write in French." in system_of(fake_openrouter, 2)
