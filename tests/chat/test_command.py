"""`manage.py chat`: one turn in the terminal, readable or one JSON event per line."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.models import Conversation, Message
from fakes.demo import demo_responder
from fakes.openrouter import FakeOpenRouter
from fakes.script import HttpError, Reply, ToolCallScript
from projects.files.results import FileWrite
from projects.locks import LockHeld, lock_acquire, lock_current, lock_release
from projects.models import Project, ProjectFile
from projects.services import Author, file_update

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def demo(settings: SettingsWrapper) -> Iterator[FakeOpenRouter]:
    with FakeOpenRouter(responder=demo_responder) as fake:
        settings.OPENROUTER_BASE_URL = fake.base_url
        settings.OPENROUTER_API_KEY = "sk-test"
        yield fake


@pytest.fixture
def scripted(settings: SettingsWrapper, fake_openrouter: FakeOpenRouter) -> FakeOpenRouter:
    settings.OPENROUTER_BASE_URL = fake_openrouter.base_url
    settings.OPENROUTER_API_KEY = "sk-test"
    settings.OPENROUTER_MAX_RETRIES = 0
    return fake_openrouter


def run(*args: str) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("chat", *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        return out.getvalue(), err.getvalue(), int(exit_.code or 0)
    return out.getvalue(), err.getvalue(), 0


def test_readable_output_streams_text_lists_each_tool_call_and_ends_with_usage(
    demo: FakeOpenRouter, starter_project: Project
) -> None:
    ProjectFile.objects.filter(project=starter_project).delete()
    out, _, status = run(str(starter_project.pk), "A site for my bakery")
    assert status == 0
    assert "I'll build" in out
    assert "✓ create_file: Created /index.html" in out
    assert "✓ create_file: Created /styles.css" in out
    assert "completed (stop) · 3 requests" in out
    assert "files changed: /index.html, /styles.css, /script.js" in out
    assert re.search(r"· \$0\.00\d+ ·", out), "the fake prices its model"
    page = ProjectFile.objects.get(project=starter_project, path="/index.html")
    assert "bakery" in page.content


def test_the_readmes_walk_through_works_on_the_starter_project(
    demo: FakeOpenRouter, starter_project: Project
) -> None:
    out, _, status = run(str(starter_project.pk), "A site for my bakery")
    assert status == 0
    assert "already exists" not in out
    assert "✗" not in out
    assert "Done:" in out
    page = ProjectFile.objects.get(project=starter_project, path="/index.html")
    assert "bakery" in page.content


def test_json_mode_prints_one_event_per_line_with_the_event_names(
    demo: FakeOpenRouter, project: Project
) -> None:
    out, _, status = run(str(project.pk), "Bakery", "--json")
    events = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    kinds = [event["type"] for event in events]
    assert kinds[0] == "turn_started"
    assert kinds[-2:] == ["done", "changes"]
    assert kinds.count("tool_result") == 4, "it lists the files, then writes three"
    assert {"content", "tool_calls", "tool_executing", "files_changed", "usage"} <= set(kinds)
    done = events[-2]
    assert done["status"] == "completed"
    assert done["files_changed"] == ["/index.html", "/styles.css", "/script.js"]
    changed = events[-1]
    assert changed["turn"] == events[0]["message_id"]
    assert [(f["path"], f["action"]) for f in changed["files"]] == [
        ("/index.html", "created"),
        ("/script.js", "created"),
        ("/styles.css", "created"),
    ]
    index = ProjectFile.objects.get(project=project, path="/index.html").content
    assert changed["files"][0]["added"] == len(index.splitlines())
    assert changed["files"][0]["removed"] == 0
    started = events[0]
    assert started["text"] == "Bakery"
    assert Conversation.objects.filter(pk=started["conversation_id"], project=project).exists()


def test_new_project_is_created_for_the_owner_and_its_id_printed(
    demo: FakeOpenRouter, user: User
) -> None:
    out, _, status = run(
        "--new-project", "Bakery", "--owner", user.username, "A site for my bakery", "--json"
    )
    first = json.loads(out.splitlines()[0])
    assert status == 0
    assert first["type"] == "project_created"
    project = Project.objects.get(pk=first["project_id"])
    assert project.owner == user
    assert project.name == "Bakery"
    assert project.files.count() == 3


def test_conversation_option_continues_the_same_conversation(
    scripted: FakeOpenRouter, project: Project
) -> None:
    scripted.script(Reply(content="First answer."), Reply(content="Second answer."))
    out, _, _ = run(str(project.pk), "first", "--json")
    conversation = json.loads(out.splitlines()[0])["conversation_id"]
    _, _, status = run(str(project.pk), "second", "--conversation", str(conversation))
    assert status == 0
    texts = list(
        Message.objects.filter(conversation_id=conversation).values_list("role", "content")
    )
    assert texts == [
        ("user", "first"),
        ("assistant", "First answer."),
        ("user", "second"),
        ("assistant", "Second answer."),
    ]
    history = [m["content"] for m in scripted.requests[1].json["messages"]]
    assert "first" in history
    assert "First answer." in history


def test_model_option_is_sent_to_the_provider(scripted: FakeOpenRouter, project: Project) -> None:
    scripted.script(Reply(content="Hi."))
    _, _, status = run(str(project.pk), "hello", "--model", "anthropic/claude-sonnet-4.5")
    assert status == 0
    assert scripted.requests[0].json["model"] == "anthropic/claude-sonnet-4.5"


def test_a_failed_turn_exits_non_zero_and_says_why(
    scripted: FakeOpenRouter, project: Project
) -> None:
    scripted.script(HttpError(402, "Insufficient credits"))
    out, err, status = run(str(project.pk), "hello")
    assert status == 1
    assert "run out of credits" in err
    assert "failed (error)" in out


def test_a_failed_turn_in_json_mode_has_an_error_event(
    scripted: FakeOpenRouter, project: Project
) -> None:
    scripted.script(HttpError(401, "No auth credentials found"))
    out, _, status = run(str(project.pk), "hello", "--json")
    events = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    error = next(event for event in events if event["type"] == "error")
    assert error["code"] == "bad_api_key"
    assert events[-2]["status"] == "failed"
    assert events[-1] == {"type": "changes", "turn": events[0]["message_id"], "files": []}


def test_tool_failures_are_shown_but_do_not_fail_the_turn(
    scripted: FakeOpenRouter, project: Project
) -> None:
    scripted.script(
        Reply(tool_calls=[ToolCallScript("read_file", {"path": "/missing.html"})]),
        Reply(content="There is no such file."),
    )
    out, _, status = run(str(project.pk), "read it")
    assert status == 0
    assert "✗ read_file: File /missing.html does not exist." in out


def test_json_mode_says_what_kind_of_step_each_tool_call_is(
    scripted: FakeOpenRouter, starter_project: Project
) -> None:
    scripted.script(
        Reply(tool_calls=[ToolCallScript("read_file", {"path": "/styles.css"})]),
        Reply(
            tool_calls=[ToolCallScript("update_file", {"path": "/styles.css", "content": "b {}"})]
        ),
        Reply(content="Plainer now."),
    )
    out, _, status = run(str(starter_project.pk), "Plainer styles", "--json")
    events = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    steps = [call for event in events for call in event.get("calls", [])] + [
        event for event in events if event["type"] in ("tool_executing", "tool_result")
    ]
    assert len(steps) == 6
    assert {(step["name"], step["category"], step["visibility"]) for step in steps} == {
        ("read_file", "read", "quiet"),
        ("update_file", "write", "primary"),
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["not-a-uuid", "hi"], "is not a project id"),
        (["00000000-0000-0000-0000-000000000000", "hi"], "There is no project"),
        (["hi"], "Give a project id and a message"),
        (["--new-project", "X", "hi"], "--new-project needs --owner"),
        (["--new-project", "X", "--owner", "nobody", "hi"], "There is no user named"),
    ],
)
def test_bad_arguments_are_refused_with_a_clear_error(
    project: Project, args: list[str], message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("chat", *args, stdout=io.StringIO())


def test_empty_or_oversized_messages_and_bad_models_are_refused(
    project: Project, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_MAX_MESSAGE_CHARS = 10
    with pytest.raises(CommandError, match="Write a message first"):
        call_command("chat", str(project.pk), "   ", stdout=io.StringIO())
    with pytest.raises(CommandError, match="at most 10 characters"):
        call_command("chat", str(project.pk), "x" * 11, stdout=io.StringIO())
    with pytest.raises(CommandError, match="is not a model id"):
        call_command("chat", str(project.pk), "hi", "--model", "gpt 4", stdout=io.StringIO())
    assert not Message.objects.exists()


def test_unknown_conversation_is_refused(project: Project) -> None:
    with pytest.raises(CommandError, match="has no conversation 999"):
        call_command("chat", str(project.pk), "hi", "--conversation", "999", stdout=io.StringIO())


def test_a_project_with_a_turn_running_elsewhere_is_refused_and_left_alone(
    demo: FakeOpenRouter, starter_project: Project
) -> None:
    # Another process (a browser tab's turn) holds the project's lock.
    held = lock_acquire(project=starter_project, purpose="assistant", details={}, ttl=60)
    assert not isinstance(held, LockHeld)
    with pytest.raises(CommandError, match="already working on this project"):
        run(str(starter_project.pk), "Change the heading")
    assert demo.requests == []
    assert not Message.objects.filter(conversation__project=starter_project).exists()

    # Once it is released, the command runs and frees the lock again.
    lock_release(held)
    _, _, status = run(str(starter_project.pk), "Change the heading")
    assert status == 0
    assert lock_current(starter_project) is None


def test_undo_turn_puts_back_what_a_turn_changed_and_the_next_turn_is_told(
    scripted: FakeOpenRouter, starter_project: Project
) -> None:
    original = ProjectFile.objects.get(project=starter_project, path="/index.html").content
    edit = {"path": "/index.html", "edits": [{"search": "Hello, world", "replace": "Bakery"}]}
    scripted.script(
        Reply(tool_calls=[ToolCallScript("edit_file", edit)]),
        Reply(content="Renamed the heading."),
        Reply(content="Understood."),
    )
    out, _, status = run(str(starter_project.pk), "Call it Bakery", "--json")
    assert status == 0
    started = json.loads(out.splitlines()[0])
    changed = json.loads(out.splitlines()[-1])
    assert changed["files"] == [
        {"path": "/index.html", "action": "edited", "old_path": None, "added": 1, "removed": 1}
    ]

    out, _, status = run("--undo-turn", str(started["message_id"]), "--json")
    assert status == 0
    undone = json.loads(out)
    assert undone["type"] == "undone"
    assert undone["paths"] == ["/index.html"]
    assert ProjectFile.objects.get(project=starter_project, path="/index.html").content == original

    _, _, status = run(
        str(starter_project.pk), "Go on", "--conversation", str(started["conversation_id"])
    )
    assert status == 0
    told = json.dumps(scripted.requests[-1].json["messages"], ensure_ascii=False)
    assert "the person used Built-It's history: Undid the turn “Call it Bakery”" in told
    assert "Do not make that change again unless they ask for it." in told


def test_undo_turn_names_files_changed_since_and_keep_changed_undoes_the_rest(
    scripted: FakeOpenRouter, starter_project: Project
) -> None:
    index = {"path": "/index.html", "content": "<h1>New</h1>\n"}
    styles = {"path": "/styles.css", "content": "h1 { color: red; }\n"}
    scripted.script(
        Reply(
            tool_calls=[
                ToolCallScript("update_file", index),
                ToolCallScript("update_file", styles),
            ]
        ),
        Reply(content="Done."),
    )
    out, _, _ = run(str(starter_project.pk), "Change both", "--json")
    turn = json.loads(out.splitlines()[0])["message_id"]
    changed = file_update(
        project=starter_project,
        path="/styles.css",
        content="h1 { color: blue; }\n",
        author=Author.person(starter_project.owner),
    )
    assert isinstance(changed, FileWrite)

    with pytest.raises(CommandError, match=r"Changed since: /styles.css\. \(--keep-changed"):
        call_command("chat", "--undo-turn", str(turn), stdout=io.StringIO())
    assert ProjectFile.objects.get(project=starter_project, path="/index.html").content == (
        "<h1>New</h1>\n"
    )
    out, _, status = run("--undo-turn", str(turn), "--keep-changed")
    assert status == 0
    assert out.startswith("Undid the turn “Change both”")
    files = dict(ProjectFile.objects.filter(project=starter_project).values_list("path", "content"))
    assert files["/styles.css"] == "h1 { color: blue; }\n"
    assert "Hello, world" in files["/index.html"]
