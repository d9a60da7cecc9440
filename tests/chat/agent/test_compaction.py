"""Compaction and the context gauge through the real loop and the
fake OpenRouter: when the earlier turns pass the history's budget the oldest
are summarised once, stored, and read instead of them from then on; the turns
themselves stay; the gauge adds up to the request that was sent."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, TypeVar

import pytest
from asgiref.sync import sync_to_async

from chat.agent import budget
from chat.agent.compaction import compact_by_hand
from chat.agent.events import CompactionEvent, ContextEvent, Done, Event
from chat.agent.one_shot import AskRefused
from chat.asks import SUMMARY_TASK
from chat.llm import ChatMessage
from chat.models import Charge, Compaction, Conversation, Message
from chat.render.export import conversation_markdown
from chat.selectors.past_turns import past_turns
from fakes.openrouter import FakeOpenRouter
from fakes.script import HttpError, Reply, text
from projects.locks import lock_acquire
from projects.models import Project
from projects.services import Author, file_create
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import limits, new_conversation, turn_events

_WHOLE = 1 << 20
# Each earlier turn costs about 60 tokens of history: three fit in 200.
_BUDGET = limits(history_tokens=200)
SUMMARY = "The site: a bakery called Crumb.\nDone: the menu page, a green header."


def whole(content: str) -> Reply:
    return text(content, piece_size=_WHOLE)


E = TypeVar("E")


def of_type(events: list[Event], kind: type[E]) -> list[E]:
    return [event for event in events if isinstance(event, kind)]


def is_summary(request_json: dict[str, Any]) -> bool:
    return str(request_json["messages"][0]["content"]).startswith(SUMMARY_TASK)


async def earlier_turns(
    client, project: Project, conversation: Conversation, fake: FakeOpenRouter, count: int
) -> None:
    fake.script(*(whole(f"Done: step {n} of the bakery site, as asked.") for n in range(count)))
    for n in range(count):
        request = f"Step {n}: add a section about our bread number {n}, with three lines."
        await turn_events(client, project, request, conversation=conversation)


@pytest.mark.django_db(transaction=True)
async def test_history_past_its_budget_is_summarised_once_and_read_instead(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    client = llm_client()
    conversation = await new_conversation(project)
    await earlier_turns(client, project, conversation, fake_openrouter, 8)
    asked_before = len(fake_openrouter.requests)
    fake_openrouter.script(whole(SUMMARY), whole("Made it blue."))

    events = await turn_events(
        client, project, "Make it blue", conversation=conversation, turn_limits=_BUDGET
    )

    summary_request, turn_request = (r.json for r in fake_openrouter.requests[asked_before:])
    assert is_summary(summary_request)
    assert "tools" not in summary_request or not summary_request["tools"]
    # The oldest turns go to the summary, as asked and answered.
    assert "Step 0: add a section" in summary_request["messages"][1]["content"]
    assert "Done: step 0 of the bakery site" in summary_request["messages"][1]["content"]
    # The turn's request reads the summary where those turns were, then the newest in full.
    sent = turn_request["messages"]
    assert sent[1]["role"] == "system"
    assert SUMMARY in sent[1]["content"]
    read = [m["content"] for m in sent if m["role"] == "user"]
    assert not any(item.startswith("Step 0:") for item in read)
    assert read[-2].startswith("Step 7:")
    assert read[-1] == "Make it blue"

    stored = await sync_to_async(
        lambda: list(Compaction.objects.filter(conversation=conversation))
    )()
    assert [(c.summary, c.by_hand) for c in stored] == [(SUMMARY, False)]
    (compaction,) = stored
    assert compaction.tokens_after < compaction.tokens_before
    running, finished = of_type(events, CompactionEvent)
    assert (running.state, finished.state) == ("running", "done")
    assert finished.turns == compaction.turns == 8 - len(read[:-1])
    (gauge,) = of_type(events, ContextEvent)
    assert gauge.summarised == compaction.turns
    assert gauge.left_out == 0
    # Nothing of the conversation is gone: every turn is still stored and shown.
    turns = await sync_to_async(past_turns)(conversation=conversation)
    assert [t.request.split(":")[0] for t in turns][:8] == [f"Step {n}" for n in range(8)]


@pytest.mark.django_db(transaction=True)
async def test_the_next_turn_reads_the_stored_summary_without_asking_again(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    client = llm_client()
    conversation = await new_conversation(project)
    await earlier_turns(client, project, conversation, fake_openrouter, 8)
    fake_openrouter.script(whole(SUMMARY), whole("Made it blue."), whole("Added a footer."))
    await turn_events(
        client, project, "Make it blue", conversation=conversation, turn_limits=_BUDGET
    )
    asked_before = len(fake_openrouter.requests)

    events = await turn_events(
        client, project, "Add a footer", conversation=conversation, turn_limits=_BUDGET
    )

    (request,) = (r.json for r in fake_openrouter.requests[asked_before:])
    assert not is_summary(request)
    assert SUMMARY in request["messages"][1]["content"]
    assert of_type(events, CompactionEvent) == []


@pytest.mark.django_db(transaction=True)
async def test_a_summary_that_fails_leaves_the_oldest_out_and_the_turn_goes_on(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    client = llm_client(max_retries=0)
    conversation = await new_conversation(project)
    await earlier_turns(client, project, conversation, fake_openrouter, 8)
    fake_openrouter.script(HttpError(400, "Bad request"), whole("Made it blue."))

    events = await turn_events(
        client, project, "Make it blue", conversation=conversation, turn_limits=_BUDGET
    )

    failed = of_type(events, CompactionEvent)[-1]
    assert failed.state == "failed"
    assert failed.message
    (gauge,) = of_type(events, ContextEvent)
    assert gauge.left_out > 0
    assert gauge.summarised == 0
    assert of_type(events, Done)[-1].status == "completed"
    assert not await sync_to_async(Compaction.objects.exists)()


@pytest.mark.django_db(transaction=True)
async def test_the_gauge_adds_up_to_the_request_sent_and_counts_the_instructions(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    await sync_to_async(
        lambda: file_create(
            project=project,
            path="/AGENTS.md",
            content="Use dark green as the main colour.\n" * 20,
            author=Author.person(project.owner),
        )
    )()
    client = llm_client()
    conversation = await new_conversation(project)
    await earlier_turns(client, project, conversation, fake_openrouter, 2)
    fake_openrouter.script(whole("Made it blue."))

    events = await turn_events(client, project, "Make it blue", conversation=conversation)

    (gauge,) = of_type(events, ContextEvent)
    record = gauge.record
    assert all(record.tokens(part) > 0 for part in ("system", "instructions", "files", "history"))
    assert record.tokens("attachments") == 0
    sent = fake_openrouter.requests[-1].json
    messages = [ChatMessage(m["role"], m["content"]) for m in sent["messages"]]
    whole_request = budget.prompt_tokens(messages, []) + record.tokens("tools")
    # Each part rounds up on its own: they add up to the request within a token each.
    assert abs(record.total - whole_request) <= len(record.parts)
    # The default model is not on the provider's list: a safe default window.
    assert (record.window, record.window_known) == (32_768, False)


@pytest.mark.django_db(transaction=True)
async def test_the_window_is_the_providers_and_the_turn_record_keeps_the_gauge(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(whole("Hello."))
    events = await turn_events(llm_client(), project, "Hi", model="anthropic/claude-sonnet-4")

    (gauge,) = of_type(events, ContextEvent)
    assert (gauge.window, gauge.window_known) == (200_000, True)
    closing = await sync_to_async(lambda: Message.objects.filter(metadata__has_key="turn").get())()
    assert closing.metadata["turn"]["context"]["window"] == 200_000


@pytest.mark.django_db(transaction=True)
async def test_compacting_by_hand_summarises_all_but_the_latest_and_charges_it(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    client = llm_client()
    conversation = await new_conversation(project)
    await earlier_turns(client, project, conversation, fake_openrouter, 3)
    fake_openrouter.script(whole(SUMMARY), whole("Made it blue."))

    done = await compact_by_hand(project=project, conversation=conversation, client=client)

    assert isinstance(done, Compaction)
    assert done.by_hand
    assert done.turns == 2
    assert await sync_to_async(Charge.objects.filter(message=None, project=project).exists)()
    await turn_events(client, project, "Make it blue", conversation=conversation)
    sent = fake_openrouter.requests[-1].json["messages"]
    assert SUMMARY in sent[1]["content"]
    assert next(m["content"] for m in sent if m["role"] == "user").startswith("Step 2:")
    # The export keeps every turn as it was, and says where the summary was made.
    exported = await sync_to_async(conversation_markdown)(conversation)
    assert "Step 0: add a section" in exported
    assert "Step 1: add a section" in exported
    assert exported.index("Summary of the 2 turns above") < exported.index("Step 2:")


@pytest.mark.django_db(transaction=True)
async def test_compacting_by_hand_refuses_with_nothing_to_summarise_or_while_a_turn_runs(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    client = llm_client()
    conversation = await new_conversation(project)
    await earlier_turns(client, project, conversation, fake_openrouter, 1)

    nothing = await compact_by_hand(project=project, conversation=conversation, client=client)

    assert isinstance(nothing, AskRefused)
    assert nothing.code == "nothing"
    await earlier_turns(client, project, conversation, fake_openrouter, 2)
    await sync_to_async(lock_acquire)(project=project, purpose="turn", details={}, ttl=60)
    busy = await compact_by_hand(project=project, conversation=conversation, client=client)
    assert isinstance(busy, AskRefused)
    assert busy.code == "busy"
    assert not await sync_to_async(Compaction.objects.exists)()


@pytest.mark.django_db(transaction=True)
async def test_compacting_again_says_the_earlier_turns_are_summarised_already(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    # As a second tab that did not hear of the first compaction asks: the
    # conversation has three turns, so "nothing yet" would not be true.
    client = llm_client()
    conversation = await new_conversation(project)
    await earlier_turns(client, project, conversation, fake_openrouter, 3)
    fake_openrouter.script(whole(SUMMARY))
    assert isinstance(
        await compact_by_hand(project=project, conversation=conversation, client=client),
        Compaction,
    )

    again = await compact_by_hand(project=project, conversation=conversation, client=client)

    assert isinstance(again, AskRefused)
    assert again.code == "nothing"
    assert "summarised already" in again.message
    assert "two turns or more" not in again.message


@pytest.mark.django_db(transaction=True)
async def test_a_summary_is_refused_at_the_spending_cap_and_nothing_is_asked(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients, settings
) -> None:
    client = llm_client()
    conversation = await new_conversation(project)
    await earlier_turns(client, project, conversation, fake_openrouter, 3)
    asked = len(fake_openrouter.requests)
    settings.BUILTIT_PROJECT_COST_LIMIT = Decimal("0.0000001")

    refused = await compact_by_hand(project=project, conversation=conversation, client=client)

    assert isinstance(refused, AskRefused)
    assert refused.code == "cost_limit"
    assert len(fake_openrouter.requests) == asked


@pytest.mark.django_db(transaction=True)
async def test_the_demo_summarises_honestly(project: Project, settings) -> None:
    conversation = await new_conversation(project)
    for request in (
        "Build a site for my bakery Crumb",
        "Make the header dark green",
        "Add a FAQ section",
    ):
        await turn_events(None, project, request, conversation=conversation, model="builtit/demo")  # type: ignore[arg-type]

    done = await compact_by_hand(project=project, conversation=conversation)

    assert isinstance(done, Compaction)
    assert "Build a site for my bakery Crumb" in done.summary
    assert "Make the header dark green" in done.summary
    assert "offline demo" in done.summary


@pytest.mark.django_db(transaction=True)
async def test_the_demos_later_summary_keeps_what_the_earlier_one_held(project: Project) -> None:
    # The model reads only the latest summary: a bakery named in the first turn
    # must not be forgotten at the second compaction.
    conversation = await new_conversation(project)
    first = ("Build a site for my bakery Crumb", "Make the header dark green")
    for request in first:
        await turn_events(None, project, request, conversation=conversation, model="builtit/demo")  # type: ignore[arg-type]
    assert isinstance(await compact_by_hand(project=project, conversation=conversation), Compaction)
    for request in ("Add a FAQ section", "Add an about page"):
        await turn_events(None, project, request, conversation=conversation, model="builtit/demo")  # type: ignore[arg-type]

    later = await compact_by_hand(project=project, conversation=conversation)

    assert isinstance(later, Compaction)
    assert later.turns == 3
    wishes = [line for line in later.summary.splitlines() if line.startswith("- ")]
    assert wishes[1:4] == [
        "- Build a site for my bakery Crumb",
        "- Make the header dark green",
        "- Add a FAQ section",
    ]
    assert "/index.html" in later.summary  # the files the first turns changed
