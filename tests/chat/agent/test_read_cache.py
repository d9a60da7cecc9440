"""Reads the model already has: within a turn, the
same read-only call on unchanged files is answered with a note naming the
earlier call, not the content again; a write, the model's or a person's, ends
that; the next turn reads afresh."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from chat.agent.events import ToolResultEvent
from chat.agent.read_cache import ReadCache
from chat.llm import ToolCall
from chat.models import Message
from chat.tools import file_tools
from chat.tools.registry import ToolContext, ToolOutcome
from fakes.openrouter import FakeOpenRouter
from projects import selectors
from projects.files.results import FileWrite
from projects.models import Project
from projects.services import Author, file_create, file_update
from tests.chat.agent.conftest import Clients
from tests.chat.agent.test_loop_stories import call, calls, of_type, sent, whole
from tests.chat.agent.turns import new_conversation, turn_events

PAGE = "<!-- page one -->\n" + "<p>Fresh bread, every morning</p>\n" * 20
STYLES = "/* sheet two */\n" + "body { font-family: system-ui; color: #333; }\n" * 20
SCRIPT = "// script three\n" + "console.log('the oven is warm');\n" * 20


@pytest.fixture
def bakery(project: Project) -> Project:
    author = Author.person(project.owner)
    for path, content in (("/index.html", PAGE), ("/styles.css", STYLES), ("/app.js", SCRIPT)):
        written = file_create(project=project, path=path, content=content, author=author)
        assert isinstance(written, FileWrite), written
    return project


@sync_to_async
def stored_results(call_ids: list[str]) -> list[str]:
    rows = Message.objects.filter(tool_call_id__in=call_ids).values_list("content", flat=True)
    return list(rows)


def reads(*paths: str) -> Any:
    return calls(*(call("read_file", path=path) for path in paths))


def results(events: list[Any]) -> list[ToolResultEvent]:
    return of_type(events, ToolResultEvent)


@pytest.mark.django_db(transaction=True)
async def test_reading_three_files_again_sends_a_note_not_the_content(
    bakery: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        reads("/index.html", "/styles.css", "/app.js"),
        reads("/index.html", "/styles.css", "/app.js"),
        whole("The site is as you left it."),
    )
    events = await turn_events(llm_client(), bakery, "Check the site")

    found = results(events)
    assert [r.ok for r in found] == [True] * 6
    # Reads of one answer run side by side: matched by the file they read.
    first = {r.path: r for r in found[:3]}
    again = found[3:]
    for later in again:
        earlier = first[later.path]
        assert later.result["unchanged"] is True
        assert later.result["same_as_call"] == earlier.id
        assert "content" not in later.result
        assert later.summary == "Unchanged since an earlier call in this turn: not sent again"
        assert later.path == earlier.path  # the card names the file
    # What the model is sent last holds each file once.
    final = json.dumps(sent(fake_openrouter, 2))
    for marker in ("page one", "sheet two", "script three"):
        assert final.count(marker) == 1
    # Stored as shown: a reload shows the same cards, and the model the same note.
    stored = await stored_results([r.id for r in again])
    assert len(stored) == 3
    assert all(json.loads(content)["unchanged"] is True for content in stored)


@pytest.mark.django_db(transaction=True)
async def test_a_write_ends_what_was_read_of_that_file_and_of_the_project(
    bakery: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls(call("list_project_files"), call("read_file", path="/index.html")),
        calls(call("read_file", path="/styles.css")),
        calls(call("update_file", path="/index.html", content="<title>Ada's</title>\n")),
        calls(
            call("list_project_files"),
            call("read_file", path="/index.html"),
            call("read_file", path="/styles.css"),
        ),
        whole("Renamed."),
    )
    events = await turn_events(llm_client(), bakery, "Rename the bakery")

    found = results(events)
    assert [r.ok for r in found] == [True] * 7
    by_what = {r.path or r.name: r for r in found[4:]}
    listed, index, styles = (
        by_what[k] for k in ("list_project_files", "/index.html", "/styles.css")
    )
    assert "files" in listed.result  # any write changes the listing
    assert "Ada's" in str(index.result["content"])  # the file written: read afresh
    assert styles.result.get("unchanged") is True  # another file, unchanged


@pytest.mark.django_db(transaction=True)
async def test_the_next_turn_reads_afresh(
    bakery: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    conversation = await new_conversation(bakery)
    fake_openrouter.script(
        reads("/index.html"),
        whole("Read it."),
        reads("/index.html"),
        whole("Read it again."),
    )
    for text in ("Look", "Look again"):
        events = await turn_events(llm_client(), bakery, text, conversation=conversation)
        (result,) = results(events)
        assert result.result["content"] == PAGE


@pytest.mark.django_db
def test_a_persons_edit_during_the_turn_ends_the_entry(bakery: Project) -> None:
    """The editor writes while the turn runs: the file's version moves on, so
    the same read is made again."""
    cache = ReadCache()
    context = ToolContext(bakery, Author.assistant(), {})

    def run(call_id: str, name: str, arguments: str) -> None:
        tool = file_tools().get(name)
        assert tool is not None
        parsed = tool.parse(arguments)
        assert not isinstance(parsed, ToolOutcome)
        outcome = tool.handler(parsed, context)
        cache.remember(ToolCall(call_id, name, arguments), outcome, selectors.file_stamps(bakery))

    def known(name: str, arguments: str) -> bool:
        found = cache.earlier(ToolCall("later", name, arguments), selectors.file_stamps(bakery))
        return found is not None

    run("call_1", "read_file", '{"path": "/index.html"}')
    run("call_2", "list_project_files", "{}")
    assert known("read_file", '{"path":"/index.html"}')  # the same call, spelt otherwise
    assert known("list_project_files", "{}")

    changed = file_update(
        project=bakery,
        path="/styles.css",
        content=STYLES + "h1 { color: brown; }\n",
        author=Author.person(bakery.owner),
    )
    assert isinstance(changed, FileWrite)
    assert known("read_file", '{"path": "/index.html"}')  # another file
    assert not known("list_project_files", "{}")  # the project changed

    changed = file_update(
        project=bakery,
        path="/index.html",
        content=PAGE + "<p>New</p>",
        author=Author.person(bakery.owner),
    )
    assert isinstance(changed, FileWrite)
    assert not known("read_file", '{"path": "/index.html"}')
