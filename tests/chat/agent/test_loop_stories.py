"""The loop's main stories, told by the events a turn yields for a scripted model
(DESIGN §6): what the person sees, what is stored, and what the model is sent.

Most replies are written in one piece (`whole`): the loop then reads each reply
at once, so the order of its events does not depend on network timing. The
progressive-execution story paces its reply on purpose.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, TypeVar

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError

from chat import services
from chat.agent import events as chat_events
from chat.agent.events import (
    Done,
    ErrorEvent,
    Event,
    FilesChanged,
    ToolCallsAnnounced,
    ToolResultEvent,
    UsageEvent,
)
from chat.models import Conversation, Message
from fakes.openrouter import FakeOpenRouter
from fakes.script import Chunk, Pause, Reply, Stream, ToolCallScript, text, tool_calls
from projects.models import FileRevision, Project, ProjectFile
from projects.starter import STARTER_FILES
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import kinds, limits, new_conversation, turn_events

E = TypeVar("E")

# Bigger than any scripted reply: the fake writes the whole stream at once.
_WHOLE = 1 << 20

ANSWER = ["content", "usage", "done"]
# One call in a reply: announced, the reply ends, then the call runs.
READ_ROUND = ["tool_calls", "usage", "tool_executing", "tool_result"]
WRITE_ROUND = [*READ_ROUND, "files_changed"]

INDEX = '<!doctype html>\n<html lang="en">\n<body><h1>Ada\'s bakery</h1></body>\n</html>\n'
STYLES = "body { font-family: system-ui; }\n"
SCRIPT = "console.log('fresh bread');\n"


def call(name: str, **arguments: Any) -> ToolCallScript:
    return ToolCallScript(name, arguments)


def calls(*scripts: ToolCallScript, **kw: Any) -> Reply:
    return tool_calls(*scripts, piece_size=_WHOLE, **kw)


def whole(content: str, **kw: Any) -> Reply:
    return text(content, piece_size=_WHOLE, **kw)


def of_type(events: list[Event], kind: type[E]) -> list[E]:
    return [event for event in events if isinstance(event, kind)]


def done_of(events: list[Event]) -> Done:
    last = events[-1]
    assert isinstance(last, Done), last
    return last


def announced_ids(events: list[Event]) -> list[str]:
    return [c.id for event in of_type(events, ToolCallsAnnounced) for c in event.calls]


def sent(fake: FakeOpenRouter, number: int) -> list[dict[str, Any]]:
    """The messages of the model request `number` (from 0)."""
    messages: list[dict[str, Any]] = fake.requests[number].json["messages"]
    return messages


def tool_call_ids(message: dict[str, Any]) -> list[str]:
    return [c["id"] for c in message.get("tool_calls") or []]


@sync_to_async
def stored(conversation: Conversation) -> list[Message]:
    return list(conversation.messages.order_by("sequence"))


@sync_to_async
def files_of(project: Project) -> dict[str, str]:
    return dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))


@sync_to_async
def revision_messages(project: Project) -> dict[str, int | None]:
    rows = FileRevision.objects.filter(project=project).values_list("path", "message_id")
    return dict(rows)


def assert_answers_its_calls(assistant: dict[str, Any], tools: list[dict[str, Any]]) -> None:
    """One tool message per call id, in call order, as the model needs them."""
    assert [m["role"] for m in tools] == ["tool"] * len(tools)
    assert [m["tool_call_id"] for m in tools] == tool_call_ids(assistant)


# --- building and changing a site -------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_building_a_new_site_creates_the_files_and_records_every_step(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls(call("list_project_files")),
        calls(
            call("create_file", path="/index.html", content=INDEX),
            call("create_file", path="/styles.css", content=STYLES),
            call("create_file", path="/script.js", content=SCRIPT),
        ),
        whole("I built a one-page site for the bakery."),
    )
    conversation = await new_conversation(project)

    client = llm_client()
    events = await turn_events(client, project, "Make a bakery site", conversation=conversation)

    # The three calls are announced as each is complete, then run one by one.
    created = ["tool_executing", "tool_result", "files_changed"] * 3
    assert kinds(events) == [
        "turn_started",
        "context",
        *READ_ROUND,
        *["tool_calls"] * 3,
        "usage",
        *created,
        *ANSWER,
    ]
    paths = ("/index.html", "/styles.css", "/script.js")
    assert await files_of(project) == dict(zip(paths, [INDEX, STYLES, SCRIPT], strict=True))
    assert [e.paths for e in of_type(events, FilesChanged)] == [(p,) for p in paths]

    messages = await stored(conversation)
    assert [m.role for m in messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        *["tool"] * 3,
        "assistant",
    ]
    assert [m.sequence for m in messages] == list(range(1, 9))
    user, listing, listed, creating, *created_rows, closing = messages
    assert user.content == "Make a bakery site"
    for assistant, answers in ((listing, [listed]), (creating, created_rows)):
        ids = [c["id"] for c in assistant.tool_calls]
        assert [m.tool_call_id for m in answers] == ids
        assert [m.metadata["name"] for m in answers] == [
            c["function"]["name"] for c in assistant.tool_calls
        ]
        assert all(m.metadata["ok"] for m in answers)
    all_ids = [c["id"] for m in (listing, creating) for c in m.tool_calls]
    assert announced_ids(events) == all_ids
    assert [json.loads(m.content)["path"] for m in created_rows] == list(paths)

    done = done_of(events)
    assert (done.finish_reason, done.status, done.iterations) == ("stop", "completed", 3)
    assert done.files_changed == paths
    assert done.message_id == closing.pk
    assert done.total_tokens == 360
    assert closing.content == "I built a one-page site for the bakery."
    turn = closing.metadata["turn"]
    assert (turn["status"], turn["finish_reason"], turn["iterations"]) == (
        "completed",
        "stop",
        3,
    )
    assert turn["usage"]["total_tokens"] == 360
    assert Decimal(turn["cost"]) == Decimal("0.00126")
    assert turn["files_changed"] == list(paths)
    assert [(t["id"], t["name"], t["ok"]) for t in turn["tool_timings"]] == [
        (all_ids[0], "list_project_files", True),
        *[(call_id, "create_file", True) for call_id in all_ids[1:]],
    ]

    # Each file change points at the message whose tool call made it.
    assert await revision_messages(project) == dict.fromkeys(paths, creating.pk)

    # The model is sent its calls back with one result per call id, in call order.
    assert len(fake_openrouter.requests) == 3
    second = sent(fake_openrouter, 1)
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
    assert tool_call_ids(second[2]) == all_ids[:1]
    assert_answers_its_calls(second[2], second[3:])
    third = sent(fake_openrouter, 2)
    assert third[:4] == second
    assert tool_call_ids(third[4]) == all_ids[1:]
    assert_answers_its_calls(third[4], third[5:])
    assert [json.loads(m["content"])["path"] for m in third[5:]] == list(paths)


@pytest.mark.django_db(transaction=True)
async def test_changing_a_site_reads_the_file_then_edits_it(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls(call("list_project_files")),
        calls(call("read_file", path="/index.html")),
        calls(
            call(
                "edit_file",
                path="/index.html",
                edits=[{"search": "<h1>Hello, world</h1>", "replace": "<h1>Ada's bakery</h1>"}],
            )
        ),
        whole("The heading now says Ada's bakery."),
    )

    client = llm_client()
    events = await turn_events(client, starter_project, "Call the site Ada's bakery")

    assert kinds(events) == [
        "turn_started",
        "context",
        *READ_ROUND,
        *READ_ROUND,
        *WRITE_ROUND,
        *ANSWER,
    ]
    files = await files_of(starter_project)
    original = STARTER_FILES["/index.html"]
    assert files["/index.html"] == original.replace(
        "<h1>Hello, world</h1>", "<h1>Ada's bakery</h1>"
    )
    assert files["/styles.css"] == STARTER_FILES["/styles.css"]
    results = of_type(events, ToolResultEvent)
    assert [(r.name, r.ok) for r in results] == [
        ("list_project_files", True),
        ("read_file", True),
        ("edit_file", True),
    ]
    assert results[2].summary == "Edited /index.html (1 change)"
    # What the model read is what it was sent back.
    read_back = json.loads(sent(fake_openrouter, 2)[-1]["content"])
    assert read_back["content"] == original
    done = done_of(events)
    assert (done.finish_reason, done.status, done.iterations) == ("stop", "completed", 4)
    assert done.files_changed == ("/index.html",)


# --- bad calls --------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("refused", ["/logo.bmp", "/../logo.svg"])
async def test_a_refused_write_is_an_error_the_model_corrects(
    project: Project, fake_openrouter: FakeOpenRouter, refused: str, llm_client: Clients
) -> None:
    logo = '<svg xmlns="http://www.w3.org/2000/svg"/>'
    fake_openrouter.script(
        calls(call("create_file", path=refused, content=logo)),
        calls(call("create_file", path="/logo.svg", content=logo)),
        whole("Added the logo as /logo.svg."),
    )
    conversation = await new_conversation(project)

    client = llm_client()
    events = await turn_events(client, project, "Add a logo", conversation=conversation)

    assert kinds(events) == ["turn_started", "context", *READ_ROUND, *WRITE_ROUND, *ANSWER]
    failed, created = of_type(events, ToolResultEvent)
    assert not failed.ok
    assert failed.path == refused
    # Beside the error, what the model needs to get it right the next time.
    assert failed.result["success"] is False
    assert failed.result["code"] == "invalid_path"
    allowed = failed.result["allowed_extensions"]
    assert isinstance(allowed, list)
    assert "svg" in allowed
    assert created.ok
    assert await files_of(project) == {"/logo.svg": logo}
    # The model saw the error as the result of its call.
    error_sent = sent(fake_openrouter, 1)[-1]
    assert error_sent["tool_call_id"] == failed.id
    assert json.loads(error_sent["content"]) == failed.result
    done = done_of(events)
    assert (done.finish_reason, done.status) == ("stop", "completed")
    assert done.files_changed == ("/logo.svg",)
    closing = (await stored(conversation))[-1]
    assert [t["ok"] for t in closing.metadata["turn"]["tool_timings"]] == [False, True]


# --- running the calls ------------------------------------------------------------


def paused_after_second_call_starts(reply: Reply, seconds: float) -> Stream:
    """The reply's stream, with a pause once the first call is complete (the
    second has begun) and before the reply ends."""
    events = list(reply.to_stream().events)

    def starts_second(event: object) -> bool:
        if not isinstance(event, Chunk):
            return False
        fragments = event.data["choices"][0]["delta"].get("tool_calls") or []
        return any(f.get("index") == 1 and "id" in f for f in fragments)

    at = next(i for i, event in enumerate(events) if starts_second(event)) + 1
    return Stream([*events[:at], Pause(seconds), *events[at:]])


@pytest.mark.django_db(transaction=True)
async def test_a_call_runs_while_the_model_is_still_writing_the_next(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    reply = tool_calls(call("list_project_files"), call("read_file", path="/index.html"))
    # The pause only has to outlast one small tool call; nothing is timed.
    fake_openrouter.script(paused_after_second_call_starts(reply, 1.0), whole("Looked around."))

    client = llm_client()
    events = await turn_events(client, starter_project, "Have a look")

    first_id, second_id = announced_ids(events)
    first_result = next(
        i for i, e in enumerate(events) if isinstance(e, ToolResultEvent) and e.id == first_id
    )
    second_announced = next(
        i
        for i, e in enumerate(events)
        if isinstance(e, ToolCallsAnnounced) and second_id in [c.id for c in e.calls]
    )
    first_usage = next(i for i, e in enumerate(events) if isinstance(e, UsageEvent))
    assert first_result < second_announced < first_usage
    assert [r.ok for r in of_type(events, ToolResultEvent)] == [True, True]
    assert done_of(events).status == "completed"


@pytest.mark.django_db(transaction=True)
async def test_read_only_calls_in_one_reply_answer_in_call_order(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    paths = ["/styles.css", "/index.html", "/script.js"]
    fake_openrouter.script(
        calls(*[call("read_file", path=path) for path in paths]),
        whole("Read all three."),
    )
    conversation = await new_conversation(starter_project)

    client = llm_client()
    events = await turn_events(
        client, starter_project, "Read everything", conversation=conversation
    )

    # They may finish in any order; the model gets their results in its own.
    assert sorted(r.path or "" for r in of_type(events, ToolResultEvent)) == sorted(paths)
    second = sent(fake_openrouter, 1)
    assert tool_call_ids(second[2]) == announced_ids(events)
    assert_answers_its_calls(second[2], second[3:])
    assert [json.loads(m["content"])["content"] for m in second[3:]] == [
        STARTER_FILES[path] for path in paths
    ]
    rows = [m for m in await stored(conversation) if m.role == Message.Role.TOOL]
    assert [m.tool_call_id for m in rows] == announced_ids(events)
    assert [json.loads(m.content)["path"] for m in rows] == paths


@pytest.mark.django_db(transaction=True)
async def test_a_call_whose_result_cannot_be_stored_is_still_answered(
    starter_project: Project,
    fake_openrouter: FakeOpenRouter,
    monkeypatch: pytest.MonkeyPatch,
    llm_client: Clients,
) -> None:
    message_create = services.message_create
    refused: list[str] = []

    def locked_once(**fields: Any) -> Message:
        # What a busy database did to one of two side-by-side reads in the test database.
        if fields["role"] == Message.Role.TOOL and not refused:
            refused.append(fields["tool_call_id"])
            raise OperationalError("database table is locked")
        return message_create(**fields)

    monkeypatch.setattr(services, "message_create", locked_once)
    fake_openrouter.script(
        calls(call("list_project_files"), call("read_file", path="/index.html")),
        whole("Looked around."),
    )

    client = llm_client()
    events = await turn_events(client, starter_project, "Have a look")

    assert refused
    ids = announced_ids(events)
    assert sorted(r.id for r in of_type(events, ToolResultEvent)) == sorted(ids)
    for number in range(1, len(fake_openrouter.requests)):
        messages = sent(fake_openrouter, number)
        asked = next(i for i, m in enumerate(messages) if m.get("tool_calls"))
        answers = messages[asked + 1 : asked + 1 + len(messages[asked]["tool_calls"])]
        assert_answers_its_calls(messages[asked], answers)


@pytest.mark.django_db(transaction=True)
async def test_two_identical_calls_are_both_run_and_both_answered(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    same = call("create_file", path="/index.html", content=INDEX)
    fake_openrouter.script(calls(same, same), whole("Created the page."))
    conversation = await new_conversation(project)

    client = llm_client()
    events = await turn_events(client, project, "Make a page", conversation=conversation)

    ids = announced_ids(events)
    assert len(set(ids)) == 2
    first, again = of_type(events, ToolResultEvent)
    assert [first.id, again.id] == ids
    # The second finds the file as the first wrote it: nothing to change, not a failure.
    assert (first.ok, again.ok) == (True, True)
    assert again.result["unchanged"] is True
    second = sent(fake_openrouter, 1)
    assert tool_call_ids(second[2]) == ids
    assert_answers_its_calls(second[2], second[3:])
    rows = [m for m in await stored(conversation) if m.role == Message.Role.TOOL]
    assert [(m.tool_call_id, m.metadata["ok"]) for m in rows] == [(ids[0], True), (ids[1], True)]
    assert await files_of(project) == {"/index.html": INDEX}


@pytest.mark.django_db(transaction=True)
async def test_calls_without_ids_get_ids_that_match_their_results(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls(
            ToolCallScript("list_project_files", {}, id=None),
            ToolCallScript("create_file", {"path": "/index.html", "content": INDEX}, id=None),
        ),
        whole("Done."),
    )
    conversation = await new_conversation(project)

    client = llm_client()
    events = await turn_events(client, project, "Make a page", conversation=conversation)

    ids = announced_ids(events)
    assert len(ids) == 2
    assert all(ids)
    assert ids[0] != ids[1]
    assert [r.id for r in of_type(events, ToolResultEvent)] == ids
    second = sent(fake_openrouter, 1)
    assert tool_call_ids(second[2]) == ids
    assert_answers_its_calls(second[2], second[3:])
    messages = await stored(conversation)
    assert [c["id"] for c in messages[1].tool_calls] == ids
    assert [m.tool_call_id for m in messages[2:4]] == ids
    assert await revision_messages(project) == {"/index.html": messages[1].pk}


# --- limits and retries -------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_at_the_iteration_limit_the_model_is_asked_to_answer_without_tools(
    starter_project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls(call("list_project_files")),
        calls(call("read_file", path="/index.html")),
        whole("I looked at the files; ask me to go on."),
    )

    client = llm_client()
    events = await turn_events(
        client, starter_project, "Keep going", turn_limits=limits(max_iterations=2)
    )

    assert kinds(events) == ["turn_started", "context", *READ_ROUND, *READ_ROUND, *ANSWER]
    bodies = [request.json for request in fake_openrouter.requests]
    assert [body.get("tool_choice") for body in bodies] == ["auto", "auto", "none"]

    def notes(number: int) -> list[str]:
        return [m["content"] for m in sent(fake_openrouter, number)[1:] if m["role"] == "system"]

    assert notes(0) == []
    assert len(notes(1)) == 1
    assert "last round" in notes(1)[0]
    assert sent(fake_openrouter, 1)[-1]["role"] == "system"
    assert len(notes(2)) == 1
    assert "Do not call any tools" in notes(2)[0]
    done = done_of(events)
    assert (done.finish_reason, done.status, done.iterations) == ("max_iterations", "completed", 3)
    assert "".join(e.text for e in of_type(events, chat_events.ContentText)) == (
        "I looked at the files; ask me to go on."
    )


@pytest.mark.django_db(transaction=True)
async def test_an_empty_reply_is_asked_for_again_once(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(Reply(piece_size=_WHOLE), whole("Hello! What shall we build?"))
    conversation = await new_conversation(project)

    client = llm_client()
    events = await turn_events(client, project, "Hi", conversation=conversation)

    assert kinds(events) == ["turn_started", "context", "usage", *ANSWER]
    assert len(fake_openrouter.requests) == 2
    assert sent(fake_openrouter, 1) == sent(fake_openrouter, 0)
    done = done_of(events)
    assert (done.finish_reason, done.status, done.iterations) == ("stop", "completed", 2)
    messages = await stored(conversation)
    assert [(m.role, m.content) for m in messages] == [
        ("user", "Hi"),
        ("assistant", "Hello! What shall we build?"),
    ]
    # The empty reply was paid for too.
    assert messages[-1].cost == Decimal("0.00084")


@pytest.mark.django_db(transaction=True)
async def test_two_empty_replies_end_the_turn_with_an_error(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(Reply(piece_size=_WHOLE), Reply(piece_size=_WHOLE))
    conversation = await new_conversation(project)

    client = llm_client()
    events = await turn_events(client, project, "Hi", conversation=conversation)

    assert kinds(events) == ["turn_started", "context", "usage", "usage", "error", "done"]
    assert len(fake_openrouter.requests) == 2
    (error,) = of_type(events, ErrorEvent)
    assert error.code == "empty_reply"
    done = done_of(events)
    assert (done.finish_reason, done.status) == ("empty", "failed")
    closing = (await stored(conversation))[-1]
    assert closing.metadata["turn"]["status"] == "failed"
    assert closing.metadata["turn"]["error"]["code"] == "empty_reply"


# --- history ------------------------------------------------------------------------

SECRET = "<p>Opening hours: 7 to 19, every day but Monday.</p>"


@pytest.mark.django_db(transaction=True)
async def test_a_later_turn_is_sent_what_was_said_and_changed_but_not_file_contents(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    conversation = await new_conversation(project)
    fake_openrouter.script(
        calls(call("create_file", path="/hours.html", content=SECRET)),
        whole("Added an opening hours page."),
        whole("It lists the opening hours."),
        calls(call("read_file", path="/hours.html")),
        whole("Closed on Mondays."),
    )

    client = llm_client()
    for request in ("Add opening hours", "What is on it?", "When are we closed?"):
        events = await turn_events(client, project, request, conversation=conversation)
        assert done_of(events).status == "completed"

    second_turn = sent(fake_openrouter, 2)
    assert [(m["role"], m["content"]) for m in second_turn[1:]] == [
        ("user", "Add opening hours"),
        (
            "assistant",
            "Added an opening hours page.\n\n[Files changed in this turn: /hours.html]",
        ),
        ("user", "What is on it?"),
    ]
    third_turn = sent(fake_openrouter, 3)
    assert [(m["role"], m["content"]) for m in third_turn[1:]] == [
        *[(m["role"], m["content"]) for m in second_turn[1:]],
        ("assistant", "It lists the opening hours."),
        ("user", "When are we closed?"),
    ]
    # Earlier turns carry no calls and no file contents...
    for messages in (second_turn, third_turn):
        assert all(m["role"] != "tool" and "tool_calls" not in m for m in messages)
        assert SECRET not in json.dumps(messages)
    # ...but what the model reads in this turn, it is sent.
    after_read = sent(fake_openrouter, 4)
    with_secret = [m["role"] for m in after_read if SECRET in (m["content"] or "")]
    assert with_secret == ["tool"]


@pytest.mark.django_db(transaction=True)
async def test_without_compaction_history_keeps_only_the_newest_turns_that_fit_its_budget(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients, settings
) -> None:
    settings.BUILTIT_COMPACTION = False
    conversation = await new_conversation(project)
    long_request = "Make a page about our bread. " + "Sourdough, rye and spelt. " * 20
    fake_openrouter.script(whole("Done one."), whole("Done two."), whole("Done three."))

    client = llm_client()
    for request in (long_request, "Add a footer"):
        await turn_events(client, project, request, conversation=conversation)
    await turn_events(
        client,
        project,
        "Make it blue",
        conversation=conversation,
        turn_limits=limits(history_tokens=40),
    )

    assert [m["content"] for m in sent(fake_openrouter, 1)[1:]] == [
        long_request,
        "Done one.",
        "Add a footer",
    ]
    assert [(m["role"], m["content"]) for m in sent(fake_openrouter, 2)[1:]] == [
        ("user", "Add a footer"),
        ("assistant", "Done two."),
        ("user", "Make it blue"),
    ]


# --- the wire form of events ----------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_every_event_of_a_turn_has_a_json_form_that_starts_with_its_type(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls(
            call("create_file", path="/index.html", content=INDEX),
            call("create_file", path="/logo.png", content="x"),
            reasoning="A page first.",
            content="Let me start.",
        ),
        Reply(piece_size=_WHOLE),
        Reply(piece_size=_WHOLE),
    )

    client = llm_client()
    events = await turn_events(client, project, "Make a site ☕")

    assert set(kinds(events)) == {
        "turn_started",
        "context",
        "reasoning",
        "content",
        "tool_calls",
        "tool_executing",
        "tool_result",
        "files_changed",
        "usage",
        "error",
        "done",
    }
    for event in events:
        wire = chat_events.to_json(event)
        assert next(iter(wire)) == "type"
        assert wire["type"] == event.type
        assert json.loads(json.dumps(wire)).keys() == wire.keys()
