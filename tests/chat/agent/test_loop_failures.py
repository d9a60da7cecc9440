"""Every way a turn can go wrong (DESIGN §6), against the fake OpenRouter.

Bad tool calls become error results the model can read and the turn goes on;
provider failures end the turn with one readable error; a broken stream is
asked for again once; stopping closes the stream and records the turn as
stopped; the person's edits are never overwritten unseen; repeating, failing
and spending are all bounded. Each test checks what a person would notice:
the events, the stored messages and the files.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings

from chat.agent.events import (
    ContentText,
    Event,
    ToolResultEvent,
    to_json,
)
from chat.agent.failures import NO_KEY
from chat.agent.limits import TurnLimits
from chat.agent.loop import MAX_FAILED_ROUNDS, TurnRequest, run_turn
from chat.llm import LLMClient
from chat.models import Conversation, Message
from chat.services import message_create
from chat.spending import project_spent
from chat.tools import Arguments, Tool, ToolContext, ToolOutcome, ToolRegistry, file_tools
from chat.tools.definitions import FILE_TOOLS
from chat.tools.files import WriteArgs, create_file
from fakes.openrouter import FakeOpenRouter
from fakes.script import (
    DEFAULT_USAGE,
    Drop,
    HttpError,
    Reply,
    Scripted,
    Stall,
    Stream,
    ToolCallScript,
    in_stream_error,
    text,
    tool_calls,
)
from projects.files.results import FileWrite
from projects.models import FileRevision, Project, ProjectFile
from projects.services import Author, file_update
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import (
    HANG,
    LIMITS,
    done,
    errors,
    kinds,
    limits,
    new_conversation,
    turn_events,
)

pytestmark = pytest.mark.django_db(transaction=True)

READ_INDEX = ToolCallScript("read_file", {"path": "/index.html"})
SECRET = "psycopg.OperationalError: password=hunter2 at /srv/builtit/chat/tools.py line 42"


# --- helpers -------------------------------------------------------------------------


def call(name: str, arguments: str | dict[str, Any] | None = None) -> Reply:
    return tool_calls(ToolCallScript(name, arguments))


def costing(amount: float, read: str = "/index.html") -> Reply:
    """A round that reads `read` and is reported as costing `amount`."""
    return tool_calls(
        ToolCallScript("read_file", {"path": read}), usage={**DEFAULT_USAGE, "cost": amount}
    )


def partial_answer(shown: str) -> Stream:
    """The start of an answer, `shown`, with no finish reason yet."""
    return text(shown, content_pieces=1, finish_reason=None, usage=None, done=False).to_stream()


def bodies(fake: FakeOpenRouter) -> list[dict[str, Any]]:
    return [request.json for request in fake.requests]


def results(events: list[Event]) -> list[ToolResultEvent]:
    return [event for event in events if isinstance(event, ToolResultEvent)]


def shown_text(events: list[Event]) -> str:
    return "".join(event.text for event in events if isinstance(event, ContentText))


@sync_to_async
def stored(conversation_id: int) -> list[Message]:
    return list(Message.objects.filter(conversation_id=conversation_id).order_by("sequence"))


@sync_to_async
def closing_message(events: list[Event]) -> Message:
    message_id = done(events).message_id
    assert message_id is not None
    return Message.objects.get(pk=message_id)


@sync_to_async
def last_message(conversation: Conversation) -> Message:
    last = Message.objects.filter(conversation=conversation).order_by("sequence").last()
    assert last is not None
    return last


@sync_to_async
def file_content(project: Project, path: str) -> str | None:
    row = ProjectFile.objects.filter(project=project, path=path).first()
    return None if row is None else row.content


@sync_to_async
def revisions(project: Project, path: str) -> list[FileRevision]:
    rows = FileRevision.objects.filter(project=project, path=path).order_by("id")
    return list(rows.select_related("before", "after"))


def spent_on(project: Project) -> Decimal:
    return project_spent(project_id=project.pk)


@sync_to_async
def seed_spending(project: Project, amount: Decimal) -> None:
    earlier = Conversation.objects.create(project=project, title="Earlier")
    message_create(
        conversation=earlier, sequence=1, role=Message.Role.ASSISTANT, content="ok", cost=amount
    )


@sync_to_async
def person_edits(project: Project, user: User, path: str, old: str, new: str) -> None:
    current = ProjectFile.objects.get(project=project, path=path).content
    assert old in current
    written = file_update(
        project=project, path=path, content=current.replace(old, new), author=Author.person(user)
    )
    assert isinstance(written, FileWrite), written


async def events_reacting(
    client: LLMClient,
    project: Project,
    said_to_it: str,
    react: Callable[[Event], Awaitable[None]],
) -> list[Event]:
    """Every event of a turn; `react` runs on each while the loop waits for it."""
    conversation = await new_conversation(project)
    request = TurnRequest(project, conversation, said_to_it)

    async def collect() -> list[Event]:
        events: list[Event] = []
        turn = run_turn(request, client=client, limits=LIMITS)
        async for event in turn:
            events.append(event)
            await react(event)
        return events

    return await asyncio.wait_for(collect(), HANG)


def start_turn(
    client: LLMClient,
    project: Project,
    conversation: Conversation,
    said_to_it: str,
    *,
    tools: ToolRegistry | None = None,
) -> tuple[asyncio.Task[None], asyncio.Queue[Event]]:
    """The turn as a task, as the websocket consumer runs it; its events go to the queue."""
    queue: asyncio.Queue[Event] = asyncio.Queue()
    request = TurnRequest(project, conversation, said_to_it)

    async def consume() -> None:
        async for event in run_turn(request, client=client, tools=tools, limits=LIMITS):
            queue.put_nowait(event)

    return asyncio.create_task(consume()), queue


async def events_until(queue: asyncio.Queue[Event], kind: str) -> list[Event]:
    seen: list[Event] = []
    while not seen or seen[-1].type != kind:
        seen.append(await asyncio.wait_for(queue.get(), HANG))
    return seen


async def cancelled(task: asyncio.Task[None]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, HANG)


class NoArgs(Arguments):
    pass


def exploding_tool() -> Tool[NoArgs]:
    def explode(args: NoArgs, context: ToolContext) -> ToolOutcome:
        raise RuntimeError(SECRET)

    return Tool(
        "explode",
        "Always breaks.",
        NoArgs,
        explode,
        writes=False,
        category="other",
        visibility="primary",
    )


def hanging_tool(release: threading.Event) -> Tool[NoArgs]:
    def hang(args: NoArgs, context: ToolContext) -> ToolOutcome:
        release.wait(2)
        return ToolOutcome(True, {"success": True}, "Finished, too late")

    return Tool(
        "hang",
        "Takes too long.",
        NoArgs,
        hang,
        writes=False,
        category="other",
        visibility="primary",
    )


def slow_writer(started: threading.Event, release: threading.Event) -> Tool[WriteArgs]:
    def write(args: WriteArgs, context: ToolContext) -> ToolOutcome:
        started.set()
        release.wait(HANG)
        return create_file(args, context)

    return Tool(
        "slow_create",
        "Creates a file, slowly.",
        WriteArgs,
        write,
        writes=True,
        category="write",
        visibility="primary",
    )


# --- bad tool calls: error results, and the turn goes on -----------------------------


async def test_unknown_tool_is_an_error_result_listing_the_tools(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(call("make_coffee", {"strength": 11}), text("I cannot make coffee."))

    client = llm_client()
    events = await turn_events(client, starter_project, "Make me a coffee")

    (result,) = results(events)
    assert not result.ok
    assert result.result["code"] == "unknown_tool"
    assert result.result["available_tools"] == file_tools().names()
    assert "make_coffee" in str(result.result["error"])
    assert "read_file" in str(result.result["error"])
    assert done(events).status == "completed"
    assert done(events).finish_reason == "stop"
    told = bodies(fake_openrouter)[1]["messages"][-1]
    assert told["role"] == "tool"
    assert json.loads(told["content"])["code"] == "unknown_tool"
    closing = await closing_message(events)
    assert closing.content == "I cannot make coffee."
    assert closing.metadata["turn"]["tool_timings"][0]["ok"] is False


async def test_error_results_carry_their_code_and_path_beside_the_error(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(
        call("make_coffee", {}), call("read_file", {"path": "/indx.html"}), text("Sorry.")
    )

    client = llm_client()
    events = await turn_events(client, starter_project, "Read the index")

    unknown, not_found = results(events)
    assert unknown.result["code"] == "unknown_tool"
    assert unknown.result["available_tools"] == file_tools().names()
    assert not_found.result["code"] == "not_found"
    assert "context" not in not_found.result
    assert not_found.path == "/indx.html"


@pytest.mark.parametrize(
    ("arguments", "code", "says"),
    [
        ('{"path": "/index.html"', "invalid_json", "not valid JSON"),
        ('["/index.html"]', "invalid_arguments", "must be a JSON object, not an array"),
        ({"start_line": 1}, "invalid_arguments", "path: field required"),
    ],
    ids=["not-json", "json-array", "missing-path"],
)
async def test_bad_arguments_are_an_error_result_and_the_turn_goes_on(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    arguments: str | dict[str, Any],
    code: str,
    says: str,
    llm_client: Clients,
) -> None:
    fake_openrouter.script(call("read_file", arguments), tool_calls(READ_INDEX), text("Read it."))

    client = llm_client()
    events = await turn_events(client, starter_project, "What is on the page?")

    first, second = results(events)
    assert not first.ok
    assert first.result["code"] == code
    assert says in str(first.result["error"])
    assert second.ok  # the model read the error, corrected itself, and the turn went on
    assert done(events).status == "completed"
    assert len(fake_openrouter.requests) == 3
    closing = await closing_message(events)
    assert closing.content == "Read it."
    tool_rows = [row for row in await stored(closing.conversation_id) if row.role == "tool"]
    assert [row.metadata["ok"] for row in tool_rows] == [False, True]
    assert json.loads(tool_rows[0].content)["code"] == code


async def test_tool_that_raises_is_an_error_result_without_its_traceback(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    caplog: pytest.LogCaptureFixture,
    llm_client: Clients,
) -> None:
    fake_openrouter.script(call("explode", {}), text("That tool is broken; nothing changed."))
    tools = ToolRegistry([*FILE_TOOLS, exploding_tool()])

    client = llm_client()
    events = await turn_events(client, starter_project, "Try the tool", tools=tools)

    (result,) = results(events)
    assert not result.ok
    assert result.result["code"] == "tool_error"
    assert "internal error" in str(result.result["error"])
    assert done(events).status == "completed"
    assert done(events).finish_reason == "stop"
    closing = await closing_message(events)
    assert closing.content == "That tool is broken; nothing changed."
    seen_by_person = json.dumps([to_json(event) for event in events])
    seen_by_model = json.dumps(bodies(fake_openrouter))
    kept = json.dumps(
        [[row.content, row.metadata] for row in await stored(closing.conversation_id)]
    )
    for told in (seen_by_person, seen_by_model, kept):
        assert "hunter2" not in told
        assert "Traceback" not in told
        assert "RuntimeError" not in told
    assert SECRET in caplog.text  # the details go to the log instead


async def test_tool_that_outlives_its_timeout_is_an_error_result(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    release = threading.Event()
    tools = ToolRegistry([*FILE_TOOLS, hanging_tool(release)])
    fake_openrouter.script(call("hang", {}), text("The tool took too long."))

    try:
        client = llm_client()
        events = await turn_events(
            client,
            starter_project,
            "Try the slow tool",
            tools=tools,
            turn_limits=replace(LIMITS, tool_timeout=0.2),
        )
    finally:
        release.set()

    (result,) = results(events)
    assert not result.ok
    assert result.result["code"] == "timeout"
    assert "did not finish within 0.2 seconds" in str(result.result["error"])
    assert done(events).status == "completed"
    assert (await closing_message(events)).content == "The tool took too long."


# --- failing, repeating and spending are bounded ------------------------------------


def missing(number: int) -> Reply:
    return call("read_file", {"path": f"/missing-{number}.html"})


async def test_rounds_of_failing_calls_end_with_an_answer_without_tools(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    failing = [missing(number) for number in range(MAX_FAILED_ROUNDS)]
    fake_openrouter.script(*failing, text("I could not find those files."), text("never"))

    client = llm_client()
    events = await turn_events(client, starter_project, "Fix the missing pages")

    assert [result.ok for result in results(events)] == [False] * MAX_FAILED_ROUNDS
    sent = bodies(fake_openrouter)
    assert [body["tool_choice"] for body in sent] == ["auto"] * MAX_FAILED_ROUNDS + ["none"]
    assert "failed several rounds in a row" in sent[-1]["messages"][-1]["content"]
    assert fake_openrouter.pending == 1
    assert errors(events) == []
    assert done(events).finish_reason == "failures"
    assert done(events).iterations == MAX_FAILED_ROUNDS + 1
    closing = await closing_message(events)
    assert closing.content == "I could not find those files."
    assert closing.metadata["turn"]["finish_reason"] == "failures"


async def test_a_round_that_works_resets_the_count_of_failed_rounds(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    short_of_it = MAX_FAILED_ROUNDS - 1
    fake_openrouter.script(
        *[missing(number) for number in range(short_of_it)],
        tool_calls(READ_INDEX),
        *[missing(number) for number in range(short_of_it, 2 * short_of_it)],
        text("Done."),
    )

    client = llm_client()
    events = await turn_events(client, starter_project, "Fix the missing pages")

    assert {body["tool_choice"] for body in bodies(fake_openrouter)} == {"auto"}
    assert done(events).finish_reason == "stop"


async def test_the_same_call_with_the_same_result_is_warned_then_stopped(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(
        call("read_file", '{ "path" : "/index.html" }'),  # spelt differently, the same call
        *[tool_calls(READ_INDEX) for _ in range(3)],
        text("I kept reading the page; it already says what you asked for."),
    )

    client = llm_client()
    events = await turn_events(client, starter_project, "Look at the page")

    found = results(events)
    assert [result.ok for result in found] == [True, True, False, False]
    assert found[2].result["code"] == "repeated_call"
    assert found[2].path == "/index.html"
    assert "3 times" in str(found[2].result["error"])
    assert found[3].result["code"] == "repeated_call"
    # Then the model is asked once more, without tools, for its own last word.
    assert len(fake_openrouter.requests) == 5
    assert fake_openrouter.pending == 0
    last = bodies(fake_openrouter)[-1]
    assert last["tool_choice"] == "none"
    assert "switched off for the rest of this turn" in json.dumps(last["messages"][-1])
    assert errors(events) == []
    order = kinds(events)
    assert [kind for kind in order if kind != "usage"][-2:] == ["content", "done"]
    assert done(events).finish_reason == "stuck"
    assert done(events).status == "stopped", "stopped for repeating, not failed"
    closing = await closing_message(events)
    assert closing.content == "I kept reading the page; it already says what you asked for."
    assert closing.metadata["turn"]["finish_reason"] == "stuck"


async def test_running_out_of_rounds_ends_with_an_answer_without_tools(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(
        tool_calls(READ_INDEX),
        call("read_file", {"path": "/styles.css"}),
        text("Here is where I got to."),
        text("never"),
    )

    client = llm_client()
    events = await turn_events(
        client, starter_project, "Redo everything", turn_limits=limits(max_iterations=2)
    )

    sent = bodies(fake_openrouter)
    assert [body["tool_choice"] for body in sent] == ["auto", "auto", "none"]
    assert "last round" in sent[1]["messages"][-1]["content"]
    assert "limit of tool rounds" in sent[2]["messages"][-1]["content"]
    assert errors(events) == []
    assert done(events).finish_reason == "max_iterations"
    assert (await closing_message(events)).content == "Here is where I got to."


async def test_an_empty_answer_is_asked_for_again_once(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(Reply(content=""), text("Here it is."))

    client = llm_client()
    events = await turn_events(client, project, "Say something")

    assert len(fake_openrouter.requests) == 2
    assert errors(events) == []
    assert done(events).status == "completed"
    assert (await closing_message(events)).content == "Here it is."


async def test_two_empty_answers_end_the_turn_with_an_error(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(Reply(content=""), Reply(content=""), text("never"))

    client = llm_client()
    events = await turn_events(client, project, "Say something")

    assert len(fake_openrouter.requests) == 2
    (error,) = errors(events)
    assert error.code == "empty_reply"
    assert done(events).status == "failed"
    assert done(events).finish_reason == "empty"
    closing = await closing_message(events)
    assert closing.metadata["turn"]["error"]["code"] == "empty_reply"
    # Empty answers cost money too, and count against the project's cap.
    assert await sync_to_async(spent_on)(project) == 2 * Decimal(str(DEFAULT_USAGE["cost"]))


async def test_a_turn_near_its_spending_cap_ends_with_an_answer_without_tools(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    """$0.02 left: less than a round with tools needs, enough for a short answer."""
    fake_openrouter.script(
        costing(0.6),
        costing(0.38, "/styles.css"),
        text("I stopped at the spending limit."),
        text("never"),
    )

    client = llm_client()
    events = await turn_events(
        client,
        starter_project,
        "Build a big site",
        turn_limits=limits(turn_cost_limit=Decimal("1")),
    )

    assert [body["tool_choice"] for body in bodies(fake_openrouter)] == ["auto", "auto", "none"]
    assert "spending limit" in bodies(fake_openrouter)[-1]["messages"][-1]["content"]
    (error,) = errors(events)
    assert error.code == "cost_limit"
    assert "This turn is close to its spending limit ($0.9800 of $1.00)" in error.message
    assert not error.retryable
    assert kinds(events)[-4:] == ["content", "usage", "error", "done"]
    assert done(events).finish_reason == "cost_limit"
    closing = await closing_message(events)
    assert closing.content == "I stopped at the spending limit."
    assert closing.metadata["turn"]["error"] == {
        "code": "cost_limit",
        "message": error.message,
        "retryable": False,
    }
    # What counts against the project's cap: every request of the turn.
    spent = await sync_to_async(spent_on)(starter_project)
    assert spent == Decimal("0.98") + Decimal(str(DEFAULT_USAGE["cost"]))


async def test_a_turn_past_its_spending_cap_asks_nothing_more(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    """The provider reported more than was left: not even a closing answer is
    asked for, since it would spend past the cap again."""
    fake_openrouter.script(costing(0.6), costing(0.6, "/styles.css"), text("never"))

    client = llm_client()
    events = await turn_events(
        client,
        starter_project,
        "Build a big site",
        turn_limits=limits(turn_cost_limit=Decimal("1")),
    )

    assert [body["tool_choice"] for body in bodies(fake_openrouter)] == ["auto", "auto"]
    (error,) = errors(events)
    assert error.code == "cost_limit"
    assert "This turn reached its spending limit ($1.20 of $1.00), so it was ended" in (
        error.message
    )
    assert kinds(events)[-2:] == ["error", "done"]
    assert done(events).status == "failed"
    assert done(events).finish_reason == "cost_limit"
    closing = await closing_message(events)
    assert closing.metadata["turn"]["error"]["message"] == error.message
    assert await sync_to_async(spent_on)(starter_project) == Decimal("1.2")


async def test_a_project_over_its_spending_cap_sends_nothing(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    await seed_spending(starter_project, Decimal("5"))
    fake_openrouter.script(text("never"))

    client = llm_client()
    events = await turn_events(
        client,
        starter_project,
        "One more change",
        turn_limits=limits(project_cost_limit=Decimal("5")),
    )

    assert fake_openrouter.requests == []
    assert kinds(events) == ["turn_started", "context", "error", "done"]
    (error,) = errors(events)
    assert error.code == "cost_limit"
    assert "project reached its spending limit ($5.00 of $5.00)" in error.message
    assert done(events).status == "failed"
    assert done(events).finish_reason == "cost_limit"
    user_row, closing = await stored((await closing_message(events)).conversation_id)
    assert user_row.content == "One more change"
    assert closing.metadata["turn"]["error"]["code"] == "cost_limit"


async def test_a_projects_own_turn_cap_overrides_the_servers(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    settings: Settings,
    llm_client: Clients,
) -> None:
    settings.BUILTIT_TURN_COST_LIMIT = Decimal("100")
    starter_project.turn_cost_limit = Decimal("0.5")
    await sync_to_async(starter_project.save)()
    fake_openrouter.script(costing(0.6), text("That was the budget."), text("never"))
    conversation = await new_conversation(starter_project)

    async def collect() -> list[Event]:
        request = TurnRequest(starter_project, conversation, "Build it")
        return [event async for event in run_turn(request, client=client)]  # limits: the project's

    client = llm_client()
    events = await asyncio.wait_for(collect(), HANG)

    assert [body["tool_choice"] for body in bodies(fake_openrouter)] == ["auto"]
    assert done(events).finish_reason == "cost_limit"
    (error,) = errors(events)
    assert "$0.6000 of $0.5000" in error.message


@pytest.mark.parametrize(("own", "blocked"), [(None, True), (Decimal("0"), False)])
async def test_a_projects_own_project_cap_overrides_the_servers(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    settings: Settings,
    own: Decimal | None,
    blocked: bool,
    llm_client: Clients,
) -> None:
    settings.BUILTIT_PROJECT_COST_LIMIT = Decimal("1")
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal(0)  # the project's caps alone, here
    settings.BUILTIT_USER_MONTHLY_COST_LIMIT = Decimal(0)
    starter_project.project_cost_limit = own  # None: the server's; 0: no cap
    await sync_to_async(starter_project.save)()
    await seed_spending(starter_project, Decimal("5"))
    fake_openrouter.script(text("Done."))

    client = llm_client()
    events = await turn_events(
        client,
        starter_project,
        "Change the title",
        turn_limits=TurnLimits.for_project(starter_project),
    )

    assert len(fake_openrouter.requests) == (0 if blocked else 1)
    assert done(events).finish_reason == ("cost_limit" if blocked else "stop")


# --- the provider fails --------------------------------------------------------------

MAX_RETRIES = 2


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    says: str  # part of the message the person reads
    attempts: int = 1
    api_key: str = "sk-test"  # "": no key configured


REFUSALS = {
    "401": Refusal(401, "bad_api_key", "The provider refused the API key."),
    "401-no-key": Refusal(401, "no_api_key", NO_KEY, api_key=""),
    "402": Refusal(402, "no_credits", "run out of credits"),
    "429": Refusal(429, "rate_limited", "rate limited after 3 attempts", MAX_RETRIES + 1),
    "500": Refusal(500, "unavailable", "unavailable right now after 3 attempts", MAX_RETRIES + 1),
    "503": Refusal(503, "unavailable", "unavailable right now after 3 attempts", MAX_RETRIES + 1),
}


@pytest.mark.parametrize("refusal", REFUSALS.values(), ids=REFUSALS.keys())
async def test_provider_failure_ends_the_turn_with_one_readable_error(
    fake_openrouter: FakeOpenRouter, project: Project, refusal: Refusal, llm_client: Clients
) -> None:
    fake_openrouter.script(*[HttpError(refusal.status)] * (MAX_RETRIES + 1), text("never"))

    client = llm_client(api_key=refusal.api_key, max_retries=MAX_RETRIES)
    events = await turn_events(client, project, "Make me a site")

    assert len(fake_openrouter.requests) == refusal.attempts
    assert kinds(events) == ["turn_started", "context", "error", "done"]
    (error,) = errors(events)
    assert error.code == refusal.code
    assert refusal.says in error.message
    assert error.retryable is (refusal.attempts > 1)
    assert done(events).status == "failed"
    assert done(events).finish_reason == "error"
    user_row, closing = await stored((await closing_message(events)).conversation_id)
    assert user_row.role == "user"
    assert user_row.content == "Make me a site"
    assert closing.metadata["turn"]["status"] == "failed"
    assert closing.metadata["turn"]["error"] == {
        "code": refusal.code,
        "message": error.message,
        "retryable": error.retryable,
    }


async def test_no_key_sends_no_authorization_header(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(HttpError(401))

    client = llm_client(api_key="")
    await turn_events(client, project, "Make me a site")

    assert "authorization" not in fake_openrouter.requests[0].headers


async def test_a_persons_own_refused_key_is_a_bad_key_not_a_missing_one(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(HttpError(401))

    client = llm_client(api_key="")
    events = await turn_events(client, project, "Make me a site", api_key="sk-or-mine")

    assert fake_openrouter.requests[0].headers["authorization"] == "Bearer sk-or-mine"
    (error,) = errors(events)
    assert error.code == "bad_api_key"
    assert "sk-or-mine" not in error.message


# --- a stream that breaks is asked for again, once ------------------------------------


def broken(shown: str) -> Stream:
    return in_stream_error(502, "Provider disconnected", after=partial_answer(shown).events)


def cut(shown: str) -> Stream:
    return Stream([*partial_answer(shown).events, Drop()])


@pytest.mark.parametrize("failing", [broken, cut], ids=["in-stream-error", "dropped"])
async def test_a_stream_that_breaks_after_text_is_reset_and_asked_again(
    fake_openrouter: FakeOpenRouter,
    project: Project,
    failing: Callable[[str], Stream],
    llm_client: Clients,
) -> None:
    fake_openrouter.script(failing("Here is a dra"), text("Here is the whole answer."))

    client = llm_client(max_retries=MAX_RETRIES)
    events = await turn_events(client, project, "Explain the plan")

    assert kinds(events) == [
        "turn_started",
        "context",
        "content",
        "stream_reset",
        "content",
        "usage",
        "done",
    ]
    sent = bodies(fake_openrouter)
    assert len(sent) == 2
    assert sent[0] == sent[1]  # the same request, asked again
    assert done(events).status == "completed"
    closing = await closing_message(events)
    assert closing.content == "Here is the whole answer."
    assert closing.metadata["turn"]["error"] is None


@pytest.mark.parametrize(
    ("failing", "code", "says"),
    [
        (broken, "provider_error", "Provider disconnected"),
        (cut, "unavailable", "unavailable right now"),
    ],
    ids=["in-stream-error", "dropped"],
)
async def test_a_stream_that_breaks_twice_ends_the_turn_with_an_error(
    fake_openrouter: FakeOpenRouter,
    project: Project,
    failing: Callable[[str], Stream],
    code: str,
    says: str,
    llm_client: Clients,
) -> None:
    fake_openrouter.script(failing("Here is"), failing("Here it is again"), text("never"))

    client = llm_client(max_retries=MAX_RETRIES)
    events = await turn_events(client, project, "Explain the plan")

    assert kinds(events) == [
        "turn_started",
        "context",
        "content",
        "stream_reset",
        "content",
        "error",
        "done",
    ]
    assert len(fake_openrouter.requests) == 2
    (error,) = errors(events)
    assert error.code == code
    assert says in error.message
    assert done(events).status == "failed"
    assert done(events).finish_reason == "error"
    closing = await closing_message(events)
    assert closing.content == "Here it is again"  # what the person saw of it
    assert closing.metadata["turn"]["error"]["code"] == code


@pytest.mark.parametrize(
    ("script", "made"),
    [
        ((cut("Here is"), cut("Here it is again")), 2),
        ((HttpError(429, headers={"Retry-After": "3600"}),), 1),
    ],
    ids=["cut-twice", "long-retry-after"],
)
async def test_an_error_claims_no_attempts_that_were_not_made(
    fake_openrouter: FakeOpenRouter,
    project: Project,
    script: tuple[Scripted, ...],
    made: int,
    llm_client: Clients,
) -> None:
    fake_openrouter.script(*script, text("never"))

    client = llm_client(max_retries=MAX_RETRIES)
    events = await turn_events(client, project, "Explain the plan")

    assert len(fake_openrouter.requests) == made
    (error,) = errors(events)
    assert f"after {MAX_RETRIES + 1} attempts" not in error.message


async def test_a_stream_that_breaks_after_a_call_started_keeps_the_call(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    two_reads = tool_calls(READ_INDEX, ToolCallScript("read_file", {"path": "/styles.css"}))
    # The keep-alive, the four fragments of the first call, and the start of the
    # second: the first call is whole, so it has started.
    started = two_reads.to_stream().events[:6]
    fake_openrouter.script(
        in_stream_error(502, "Provider disconnected", after=started), text("Read the page.")
    )

    client = llm_client(max_retries=MAX_RETRIES)
    events = await turn_events(client, starter_project, "Read the page and styles")

    (result,) = results(events)
    assert result.ok
    assert result.path == "/index.html"
    assert "stream_reset" not in kinds(events)
    assert errors(events) == []
    assert done(events).status == "completed"
    answered = bodies(fake_openrouter)[1]["messages"]
    assert [item["id"] for item in answered[-2]["tool_calls"]] == [result.id]
    assert answered[-1]["tool_call_id"] == result.id


# --- stopping ------------------------------------------------------------------------


async def test_stop_while_streaming_closes_the_stream_and_keeps_what_was_shown(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(Stream([*partial_answer("Working on your pa").events, Stall()]))
    conversation = await new_conversation(project)

    client = llm_client()
    task, queue = start_turn(client, project, conversation, "Build a page")
    seen = await events_until(queue, "content")
    await cancelled(task)
    assert await asyncio.to_thread(fake_openrouter.wait_for_disconnect)

    assert shown_text(seen) == "Working on your pa"
    assert queue.empty()  # no error and no done after a stop
    user_row, closing = await stored(conversation.pk)
    assert user_row.content == "Build a page"
    assert closing.content == "Working on your pa"
    assert closing.metadata["turn"]["status"] == "stopped"
    assert closing.metadata["turn"]["finish_reason"] == "stopped"
    assert closing.metadata["turn"]["error"] is None


async def test_closing_the_turn_stops_it_like_cancelling(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(Stream([*partial_answer("Working on").events, Stall()]))
    conversation = await new_conversation(project)

    async def first_words() -> None:
        turn = run_turn(TurnRequest(project, conversation, "Build"), client=client, limits=LIMITS)
        async for event in turn:
            if event.type == "content":
                break
        await turn.aclose()

    client = llm_client()
    await asyncio.wait_for(first_words(), HANG)
    assert await asyncio.to_thread(fake_openrouter.wait_for_disconnect)

    closing = await last_message(conversation)
    assert closing.content == "Working on"
    assert closing.metadata["turn"]["status"] == "stopped"


async def stop_during_write(
    fake: FakeOpenRouter,
    project: Project,
    conversation: Conversation,
    page: str,
    client: LLMClient,
) -> None:
    """Stop the turn while a slow write runs; the stop waits for the write to end."""
    started, release = threading.Event(), threading.Event()
    tools = ToolRegistry([*FILE_TOOLS, slow_writer(started, release)])
    fake.script(call("slow_create", {"path": "/index.html", "content": page}), text("never"))
    task, queue = start_turn(client, project, conversation, "Make a page", tools=tools)
    try:
        await events_until(queue, "tool_executing")
        assert await asyncio.to_thread(started.wait, HANG)
        task.cancel()
        for _ in range(10):
            await asyncio.sleep(0)  # the stop reaches the write under way...
        assert not task.done()  # ...and waits for it
    finally:
        release.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, HANG)
    assert len(fake.requests) == 1


async def test_stop_during_a_write_lets_the_write_finish_whole(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    page = "<!doctype html>\n<h1>Hello</h1>\n" * 40
    conversation = await new_conversation(project)

    await stop_during_write(fake_openrouter, project, conversation, page, llm_client())

    assert await file_content(project, "/index.html") == page
    (revision,) = await revisions(project, "/index.html")
    assert revision.content_after == page
    rows = await stored(conversation.pk)
    (asked,) = [row for row in rows if row.role == "assistant" and row.tool_calls]
    assert asked.tool_calls[0]["function"]["name"] == "slow_create"
    assert revision.message_id == asked.pk
    closing = rows[-1]
    assert closing.metadata["turn"]["status"] == "stopped"
    assert closing.metadata["turn"]["finish_reason"] == "stopped"


async def test_stop_during_a_write_records_the_write_that_finished(
    fake_openrouter: FakeOpenRouter, project: Project, llm_client: Clients
) -> None:
    conversation = await new_conversation(project)

    await stop_during_write(
        fake_openrouter, project, conversation, "<h1>Hello</h1>\n", llm_client()
    )

    rows = await stored(conversation.pk)
    assert rows[-1].metadata["turn"]["files_changed"] == ["/index.html"]
    (tool_row,) = [row for row in rows if row.role == "tool"]
    assert tool_row.metadata["ok"] is True


# --- the person's work is guarded -------------------------------------------------------


TITLE_EDIT = {
    "path": "/index.html",
    "edits": [{"search": "<title>My site</title>", "replace": "<title>Ada's site</title>"}],
}


async def test_a_file_changed_since_the_model_read_it_is_not_overwritten(
    fake_openrouter: FakeOpenRouter, starter_project: Project, user: User, llm_client: Clients
) -> None:
    fake_openrouter.script(
        tool_calls(READ_INDEX),
        call("edit_file", TITLE_EDIT),
        tool_calls(READ_INDEX),
        call("edit_file", TITLE_EDIT),
        text("Changed the title, keeping your greeting."),
    )
    reads = 0

    async def person_edits_after_first_read(event: Event) -> None:
        nonlocal reads
        if isinstance(event, ToolResultEvent) and event.name == "read_file":
            reads += 1
            if reads == 1:
                await person_edits(
                    starter_project, user, "/index.html", "Hello, world", "Hello from Ada"
                )

    client = llm_client()
    events = await events_reacting(
        client, starter_project, "Change the title", person_edits_after_first_read
    )

    refused, read_again, edited = results(events)[1:]
    assert not refused.ok
    assert refused.result["code"] == "conflict"
    assert refused.result["current_version"] == 2
    assert refused.path == "/index.html"
    assert "changed since you read it" in str(refused.result["error"])
    assert read_again.ok
    assert edited.ok  # after reading it again, the same edit applies to the new content
    content = await file_content(starter_project, "/index.html")
    assert content is not None
    assert "Hello from Ada" in content
    assert "<title>Ada's site</title>" in content
    actors = [revision.actor for revision in await revisions(starter_project, "/index.html")]
    assert actors == ["user", "user", "assistant"]  # created, the person's edit, the model's
    assert done(events).status == "completed"


async def test_a_file_changed_since_the_turn_began_is_not_overwritten(
    fake_openrouter: FakeOpenRouter, starter_project: Project, user: User, llm_client: Clients
) -> None:
    fake_openrouter.script(
        call("list_project_files", {}),
        call("update_file", {"path": "/styles.css", "content": "body { color: red; }\n"}),
        text("I could not change the styles."),
    )

    async def person_edits_meanwhile(event: Event) -> None:
        if isinstance(event, ToolResultEvent) and event.name == "list_project_files":
            await person_edits(starter_project, user, "/styles.css", "body {", "body { margin: 0;")

    client = llm_client()
    events = await events_reacting(client, starter_project, "Make it red", person_edits_meanwhile)

    refused = results(events)[1]
    assert not refused.ok
    assert refused.result["code"] == "conflict"
    assert "changed since you read it" in str(refused.result["error"])
    content = await file_content(starter_project, "/styles.css")
    assert content is not None
    assert "body { margin: 0;" in content
    assert "color: red" not in content


# --- limits from the project ----------------------------------------------------------


def test_turn_limits_take_the_projects_caps_over_the_servers(
    starter_project: Project, settings: Settings
) -> None:
    settings.BUILTIT_TURN_COST_LIMIT = Decimal("1")
    settings.BUILTIT_PROJECT_COST_LIMIT = Decimal("25")
    starter_project.turn_cost_limit = Decimal("0.25")
    starter_project.project_cost_limit = Decimal("0")

    chosen = TurnLimits.for_project(starter_project)

    assert chosen.turn_cost_limit == Decimal("0.25")
    assert chosen.project_cost_limit is None  # 0: no cap at all
    starter_project.turn_cost_limit = None
    assert TurnLimits.for_project(starter_project).turn_cost_limit == Decimal("1")
