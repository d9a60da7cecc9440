"""Spending is a ledger that outlives projects, and no request can spend past a
cap by more than one bounded answer. The real loop
against the fake OpenRouter, whose model list gives the prices."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent.budget import MIN_ANSWER_TOKENS, answer_tokens, prompt_tokens, reserve
from chat.agent.events import ContentText
from chat.agent.loop import TurnRequest, run_turn
from chat.llm import ChatMessage, ModelInfo, ToolSpec
from chat.llm.catalog import catalog_from
from chat.models import Charge, Conversation, Message
from chat.records.reply import AssistantRecord
from chat.services import conversation_create, message_create, message_update
from chat.spending import person_spent, project_spent
from fakes.openrouter import FakeOpenRouter
from fakes.script import DEFAULT_USAGE, Stall, Stream, ToolCallScript, text, tool_calls
from projects.lifecycle import project_create, project_purge, project_trash
from projects.models import Project
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import done, errors, limits, turn_events
from tests.chat.live.tabs import settled

pytestmark = pytest.mark.django_db(transaction=True)

SONNET = "anthropic/claude-sonnet-4"  # in the fake's list: $3 / $15 per million tokens
PROMPT_PRICE = Decimal("0.000003")
ANSWER_PRICE = Decimal("0.000015")


@pytest.fixture(autouse=True)
async def no_turn_outlives_the_test() -> AsyncIterator[None]:
    yield
    await settled()


def costing(amount: float) -> Any:
    return tool_calls(
        ToolCallScript("read_file", {"path": "/index.html"}),
        usage={**DEFAULT_USAGE, "cost": amount},
    )


def max_tokens_sent(fake: FakeOpenRouter) -> list[int]:
    return [request.json["max_tokens"] for request in fake.requests]


@sync_to_async
def starter(user: User, name: str) -> Project:
    project = project_create(owner=user, name=name, starter=True)
    assert isinstance(project, Project)
    return project


@sync_to_async
def purge(project: Project) -> None:
    assert project_trash(project=project) is None
    assert project_purge(project=project) is None


async def test_deleting_a_project_for_good_does_not_give_its_spending_back(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    user: User,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal("5.00")
    fake_openrouter.script(text("An expensive answer.", usage={**DEFAULT_USAGE, "cost": 6}))
    client = llm_client()
    first = await turn_events(client, starter_project, "Build it all")
    assert done(first).status == "completed"

    await purge(starter_project)
    fresh = await starter(user, "Fresh start")
    fake_openrouter.script(text("Never sent", usage={**DEFAULT_USAGE, "cost": 6}))
    refused = await turn_events(client, fresh, "Again")

    (error,) = errors(refused)
    assert error.code == "cost_limit"
    assert "daily spending limit ($6.00 of $5.00)" in error.message
    assert len(fake_openrouter.requests) == 1, "nothing more was asked of the model"
    charge = await sync_to_async(Charge.objects.get)()
    assert (charge.project_id, charge.project_name, charge.cost) == (
        None,
        "Starter site",
        Decimal(6),
    )


async def test_every_request_asks_for_no_more_than_what_is_left_pays_for(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal("0.20")
    fake_openrouter.script(costing(0.05), text("Done."))
    client = llm_client()

    events = await turn_events(client, starter_project, "Read it", model=SONNET)

    assert done(events).status == "completed"
    first, second = fake_openrouter.requests
    for request, spent in ((first, Decimal(0)), (second, Decimal("0.05"))):
        body: dict[str, Any] = request.json
        prompt = prompt_tokens(
            [ChatMessage(m["role"], _text(m)) for m in body["messages"]],
            [
                ToolSpec(
                    t["function"]["name"], t["function"]["description"], t["function"]["parameters"]
                )
                for t in body["tools"]
            ],
        )
        left = Decimal("0.20") - spent - prompt * PROMPT_PRICE
        assert body["max_tokens"] == int(left / ANSWER_PRICE), "what is left pays for no more"
    assert max_tokens_sent(fake_openrouter)[1] < max_tokens_sent(fake_openrouter)[0]


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    calls = "".join(
        call["function"]["name"] + call["function"]["arguments"]
        for call in message.get("tool_calls") or []
    )
    return (content if isinstance(content, str) else "") + calls


async def test_a_turn_whose_rest_would_not_pay_for_a_request_asks_nothing(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    """$0.01 left: the prompt alone and a short answer at Sonnet's price cost more."""
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal("1.00")
    await sync_to_async(message_create)(
        conversation=await sync_to_async(conversation_create)(project=starter_project),
        sequence=1,
        role=Message.Role.ASSISTANT,
        cost=Decimal("0.99"),
    )
    fake_openrouter.script(text("never"))

    events = await turn_events(llm_client(), starter_project, "One more", model=SONNET)

    assert fake_openrouter.requests == []
    (error,) = errors(events)
    assert error.code == "cost_limit"
    assert (
        "You are close to your daily spending limit ($0.9900 of $1.00): what is left would not "
        "pay for another request." in error.message
    )
    assert done(events).finish_reason == "cost_limit"


async def test_a_turn_at_its_cap_ends_with_one_short_answer(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    """The only request past a cap is the closing answer, of MIN_ANSWER_TOKENS at most."""
    fake_openrouter.script(costing(0.6), text("I stopped at the spending limit."), text("never"))

    events = await turn_events(
        llm_client(),
        starter_project,
        "Build a big site",
        model=SONNET,
        turn_limits=limits(turn_cost_limit=Decimal("0.62")),
    )

    bodies = [request.json for request in fake_openrouter.requests]
    assert [body["tool_choice"] for body in bodies] == ["auto", "none"]
    assert bodies[1]["max_tokens"] == MIN_ANSWER_TOKENS
    (error,) = errors(events)
    assert "This turn is close to its spending limit ($0.6000 of $0.6200)" in error.message
    assert done(events).finish_reason == "cost_limit"


async def test_a_stopped_answer_is_charged_what_it_cost_so_far(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    """The provider reports a cost at the end of an answer: one stopped before it
    is counted at an estimate (its prompt and what it wrote), so a script that
    stops every turn just before it ends cannot spend past the caps for free."""
    shown = "Working on your page " * 50  # 1,050 characters, in one piece
    started = text(shown, content_pieces=1, finish_reason=None, usage=None, done=False)
    fake_openrouter.script(Stream([*started.to_stream().events, Stall()]))
    conversation = await sync_to_async(conversation_create)(project=starter_project)
    request = TurnRequest(starter_project, conversation, "Build a page", model=SONNET)

    async def until_stopped() -> None:
        turn = run_turn(request, client=llm_client(), limits=limits())
        async for event in turn:
            if isinstance(event, ContentText):
                break
        await turn.aclose()

    await asyncio.wait_for(until_stopped(), 15)

    charge = await sync_to_async(Charge.objects.get)()
    assert charge.cost >= ANSWER_PRICE * (len(shown) // 3) + PROMPT_PRICE * 1000
    assert charge.cost < Decimal("0.1")


async def test_an_unlisted_model_is_priced_as_the_dearest_listed_one(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    """An id the provider's list does not have (or a variant of one it has) is no
    way around the bound: it is priced as the dearest model listed, or as its base."""
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal("0.10")
    fake_openrouter.script(text("One."), text("Two."))
    client = llm_client()
    await turn_events(client, starter_project, "1", model="vendor/not-listed")
    await turn_events(client, starter_project, "2", model="openai/gpt-4o-mini:nitro")
    dearest, variant = max_tokens_sent(fake_openrouter)
    assert MIN_ANSWER_TOKENS < dearest < int(Decimal("0.10") / ANSWER_PRICE), "Sonnet's price"
    assert variant == 16_384, "gpt-4o-mini's price: the cap pays for more than the default"


async def test_an_empty_answer_is_asked_again_only_within_the_caps(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(text("", usage={**DEFAULT_USAGE, "cost": 0.6}), text("never"))
    events = await turn_events(
        llm_client(),
        starter_project,
        "Hello",
        model=SONNET,
        turn_limits=limits(turn_cost_limit=Decimal("0.62")),
    )
    assert len(fake_openrouter.requests) == 1
    (error,) = errors(events)
    assert error.code == "cost_limit"


async def test_a_model_without_a_listed_price_asks_for_the_default(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    """No price anywhere in the list (a local server's): the default, and no more."""
    settings.BUILTIT_MAX_ANSWER_TOKENS = 4096
    fake_openrouter.models = [{"id": "local-model", "max_model_len": 1_000_000}]
    fake_openrouter.script(text("Hello."))
    await turn_events(llm_client(), starter_project, "Hi", model="local-model")
    assert max_tokens_sent(fake_openrouter) == [4096]


async def test_the_model_list_is_read_once_for_many_turns(
    fake_openrouter: FakeOpenRouter, starter_project: Project, llm_client: Clients
) -> None:
    fake_openrouter.script(text("One."), text("Two."))
    client = llm_client()
    await turn_events(client, starter_project, "1", model=SONNET)
    await turn_events(client, starter_project, "2", model=SONNET)
    assert len(fake_openrouter.model_lists) == 1
    assert len(fake_openrouter.requests) == 2


# --- the ledger --------------------------------------------------------------------------


def test_a_reply_recorded_twice_is_charged_once(starter_project: Project, user: User) -> None:
    conversation = conversation_create(project=starter_project)
    draft = message_create(conversation=conversation, sequence=1, role=Message.Role.ASSISTANT)
    assert not Charge.objects.exists(), "no cost yet, no charge"
    for _ in range(2):
        message_update(
            message=draft,
            content="done",
            reasoning="",
            tool_calls=[],
            record=AssistantRecord.from_stored({}),
            cost=Decimal("0.25"),
        )
    (charge,) = Charge.objects.all()
    assert (charge.user_id, charge.project_id, charge.cost) == (
        user.pk,
        starter_project.pk,
        Decimal("0.25"),
    )
    assert project_spent(project_id=starter_project.pk) == Decimal("0.25")


def test_the_ledger_outlives_the_conversation_and_the_project(
    starter_project: Project, user: User
) -> None:
    conversation = conversation_create(project=starter_project)
    message_create(
        conversation=conversation, sequence=1, role=Message.Role.ASSISTANT, cost=Decimal("2")
    )
    since = Charge.objects.get().created_at
    Conversation.objects.filter(pk=conversation.pk).delete()
    assert person_spent(user_id=user.pk, since=since) == Decimal("2")
    assert project_trash(project=starter_project) is None
    assert project_purge(project=starter_project) is None
    assert person_spent(user_id=user.pk, since=since) == Decimal("2")
    assert Charge.objects.get().message_id is None


def test_staff_see_the_ledger_and_cannot_empty_it(
    starter_project: Project, admin_client: Client
) -> None:
    message_create(
        conversation=conversation_create(project=starter_project),
        sequence=1,
        role=Message.Role.ASSISTANT,
        cost=Decimal("1.5"),
    )
    charge = Charge.objects.get()
    page = admin_client.get("/admin/chat/charge/")
    assert page.status_code == 200
    assert "Starter site" in page.content.decode()
    assert "$1.50" in page.content.decode()
    assert admin_client.post(f"/admin/chat/charge/{charge.pk}/delete/").status_code == 403
    assert Charge.objects.filter(pk=charge.pk).exists()
    spending = admin_client.get("/admin/chat/projectspending/").content.decode()
    assert "$1.50" in spending
    changelist = admin_client.get("/admin/chat/charge/").content.decode()
    assert "delete_selected" not in changelist


def test_staff_can_still_delete_a_person_who_has_spent(
    project: Project, user: User, admin_client: Client
) -> None:
    """Their ledger goes with them (it is theirs); it is not what stops it."""
    message_create(
        conversation=conversation_create(project=project),
        sequence=1,
        role=Message.Role.ASSISTANT,
        cost=Decimal("1.5"),
    )
    assert project_trash(project=project) is None
    assert project_purge(project=project) is None
    url = f"/admin/auth/user/{user.pk}/delete/"
    assert "Are you sure" in admin_client.get(url).content.decode()
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not User.objects.filter(pk=user.pk).exists()
    assert not Charge.objects.exists()


# --- the numbers -------------------------------------------------------------------------


def test_answer_tokens_within_what_is_left_the_model_and_its_context() -> None:
    priced = ModelInfo(
        prompt_price=Decimal("0.000001"),
        completion_price=Decimal("0.00001"),
        context_length=100_000,
        max_answer_tokens=64_000,
    )
    assert answer_tokens(info=priced, prompt=10_000, left=None) == 64_000
    # Counted higher still against the context: 60,000 as 90,000, so 10,000 fit.
    assert answer_tokens(info=priced, prompt=60_000, left=None) == 10_000, "the context holds"
    assert answer_tokens(info=priced, prompt=90_000, left=None) == MIN_ANSWER_TOKENS
    assert answer_tokens(info=priced, prompt=10_000, left=Decimal("0.11")) == 10_000
    assert answer_tokens(info=priced, prompt=10_000, left=Decimal("0")) == MIN_ANSWER_TOKENS
    assert reserve(info=priced, prompt=10_000) == Decimal("0.01") + MIN_ANSWER_TOKENS * Decimal(
        "0.00001"
    )
    assert reserve(info=None, prompt=10_000) == 0
    assert answer_tokens(info=None, prompt=10, left=Decimal("0")) == 16_384


def test_prompt_tokens_count_a_picture_as_billed_not_as_its_url() -> None:
    url = "data:image/png;base64," + "A" * 4_000_000
    with_picture = prompt_tokens([ChatMessage("user", "Like this", images=(url,))], [])
    assert 1_600 <= with_picture < 2_000


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            {
                "id": "m",
                "pricing": {"prompt": "0.000003", "completion": "0.000015", "request": "0.01"},
                "context_length": 200_000,
                "top_provider": {"max_completion_tokens": 64_000},
                "architecture": {"input_modalities": ["text", "image"]},
            },
            ModelInfo(
                frozenset({"text", "image"}),
                Decimal("0.000003"),
                Decimal("0.000015"),
                Decimal("0.01"),
                200_000,
                64_000,
            ),
        ),
        ({"id": "m", "pricing": {"prompt": "-1", "completion": "-1"}}, ModelInfo()),
        ({"id": "m", "max_model_len": 8192}, ModelInfo(context_length=8192)),
        (
            {"id": "m", "pricing": {"prompt": "NaN", "completion": "1e9"}, "context_length": True},
            ModelInfo(),
        ),
    ],
)
def test_the_model_list_gives_prices_and_limits_or_nothing(
    entry: dict[str, Any], expected: ModelInfo
) -> None:
    assert catalog_from(json.dumps({"data": [entry]}).encode()) == {"m": expected}


def test_a_stored_reply_is_in_the_ledger_under_its_project_and_person(user: User) -> None:
    """One INSERT when the conversation came with its project (a turn's), the
    lookup when it did not; the same entry either way."""
    project = project_create(owner=user, name="Bakery", starter=True)
    assert isinstance(project, Project)
    with_project = conversation_create(project=project)
    alone = Conversation.objects.get(pk=conversation_create(project=project).pk)
    assert not Conversation.project.is_cached(alone)

    for sequence, conversation in enumerate((with_project, alone), start=1):
        message = message_create(
            conversation=conversation,
            sequence=sequence,
            role=Message.Role.ASSISTANT,
            content="Done.",
            cost=Decimal("0.25"),
        )
        charge = Charge.objects.get(message=message)
        assert (charge.cost, charge.user_id, charge.project_id, charge.project_name) == (
            Decimal("0.25"),
            user.pk,
            project.pk,
            "Bakery",
        )
