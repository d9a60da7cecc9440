"""Caps that hold whatever the provider does: a provider that ignores
`max_tokens` and never stops is cut, as its answer streams, at the cap it
passes (the turn's, the person's per day, staff's own for the person, the
project's), within one piece of it; the connection is closed, the turn says
which cap stopped it, what was written is kept and charged at the estimate,
and the next turn asks nothing. Turns of one person running at once share
what is left. The real loop over real HTTP to the fake OpenRouter."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent.events import Event, ToolResultEvent
from chat.agent.one_shot import AskRefused, ask_once
from chat.llm import ChatMessage
from chat.models import Charge, Message, PersonLimits, SpendingHold
from fakes.openrouter import FakeOpenRouter
from fakes.script import (
    ENDLESS_PIECE,
    Endlessly,
    RecordedRequest,
    Scripted,
    never_stops,
)
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import done, errors, kinds, limits, turn_events
from tests.chat.live.tabs import settled

pytestmark = pytest.mark.django_db(transaction=True)

SONNET = "anthropic/claude-sonnet-4"  # in the fake's list: $3 / $15 per million tokens
ANSWER_PRICE = Decimal("0.000015")
# One streamed piece at Sonnet's price, three characters a token, and a token
# more for the rounding: how far past a cap an answer may be charged.
PIECE = (math.ceil(len(ENDLESS_PIECE) / 3) + 1) * ANSWER_PRICE
CAP = Decimal("0.05")  # about 10,000 characters of answer after the prompt


@pytest.fixture(autouse=True)
async def no_turn_outlives_the_test() -> AsyncIterator[None]:
    yield
    await settled()


@dataclass(frozen=True)
class Capped:
    """A cap set to CAP, and how the turn's words name it."""

    name: str
    words: str

    async def set(self, *, user: User, settings: SettingsWrapper) -> dict[str, Any]:
        """Set the cap; the turn limits to run with."""
        settings.BUILTIT_USER_DAILY_COST_LIMIT = CAP if self.name == "day" else Decimal(100)
        settings.BUILTIT_USER_MONTHLY_COST_LIMIT = Decimal(100)
        if self.name == "person":
            await PersonLimits.objects.acreate(user=user, monthly_cost_limit=CAP)
        turn_cap = CAP if self.name == "turn" else None
        project_cap = CAP if self.name == "project" else None
        return {"turn_limits": limits(turn_cost_limit=turn_cap, project_cost_limit=project_cap)}


TURN = Capped("turn", "This turn reached its spending limit")
DAY = Capped("day", "You reached your daily spending limit")
PERSON = Capped("person", "You reached your monthly spending limit")  # staff's, for this person
PROJECT = Capped("project", "This project reached its spending limit")


async def charged(project: Project) -> Decimal:
    total = Decimal(0)
    async for charge in Charge.objects.filter(project=project):
        total += charge.cost
    return total


async def closing_message(events: list[Event]) -> Message:
    message_id = done(events).message_id
    assert message_id is not None
    return await Message.objects.aget(pk=message_id)


async def another_project(user: User, name: str) -> Project:
    made = await sync_to_async(project_create)(owner=user, name=name)
    assert isinstance(made, Project)
    return made


@pytest.mark.parametrize(
    ("cap", "kind"),
    [
        (TURN, "content"),
        (TURN, "reasoning"),
        (TURN, "arguments"),
        (DAY, "content"),
        (PERSON, "reasoning"),
        (PROJECT, "arguments"),
    ],
    ids=["turn-content", "turn-reasoning", "turn-arguments", "day", "person", "project"],
)
async def test_an_answer_that_never_stops_is_cut_at_the_cap(
    cap: Capped,
    kind: Endlessly,
    fake_openrouter: FakeOpenRouter,
    project: Project,
    user: User,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    run_with = await cap.set(user=user, settings=settings)
    fake_openrouter.script(never_stops(kind))

    events = await turn_events(llm_client(), project, "Build it", model=SONNET, **run_with)

    assert fake_openrouter.wait_for_disconnect(), "the stream's connection was closed"
    (error,) = errors(events)
    assert error.code == "cost_limit"
    assert cap.words in error.message
    assert "while the model was still writing, so its answer was stopped there" in error.message
    assert done(events).finish_reason == "cost_limit"
    spent = await charged(project)
    assert CAP - PIECE <= spent <= CAP + PIECE, "charged the estimate, within a piece of the cap"
    closing = await closing_message(events)
    if kind == "content":
        assert closing.content.startswith(ENDLESS_PIECE * 10), "what was written is kept"
    # A call whose arguments never ended was never run: nothing half-written.
    assert not any(isinstance(event, ToolResultEvent) for event in events)
    assert not await ProjectFile.objects.filter(project=project).aexists()
    assert not await SpendingHold.objects.aexists(), "the turn's hold went with it"
    if cap is TURN:
        return  # the next turn has a cap of its own

    again = await turn_events(llm_client(), project, "Go on", model=SONNET, **run_with)

    assert len(fake_openrouter.requests) == 1, "nothing is left: the model is not asked"
    assert kinds(again) == ["turn_started", "context", "error", "done"]
    assert errors(again)[0].code == "cost_limit"


async def test_two_turns_of_one_person_at_once_share_what_is_left(
    fake_openrouter: FakeOpenRouter,
    project: Project,
    user: User,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    """Both answers stream together (the fake holds each until both are asked
    for): each may spend only what it holds, so together they stop at the
    person's daily cap, not at twice it."""
    settings.BUILTIT_USER_DAILY_COST_LIMIT = CAP
    both = threading.Barrier(2, timeout=10)

    def together(request: RecordedRequest) -> Scripted:
        both.wait()
        return never_stops()

    fake_openrouter.responder = together
    second = await another_project(user, "Second site")
    client = llm_client()

    runs = await asyncio.gather(
        turn_events(client, project, "Build it", model=SONNET, turn_limits=limits()),
        turn_events(client, second, "Build it", model=SONNET, turn_limits=limits()),
    )

    assert fake_openrouter.wait_for_requests(2)
    for events in runs:
        (error,) = errors(events)
        assert error.code == "cost_limit"
        assert "daily spending limit" in error.message
    spent = await charged(project) + await charged(second)
    assert CAP - 2 * PIECE <= spent <= CAP + 2 * PIECE


async def test_a_one_off_request_is_cut_at_the_cap_too(
    fake_openrouter: FakeOpenRouter,
    project: Project,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    """Improve and summaries (chat.agent.one_shot) stream through the same meter."""
    settings.BUILTIT_TURN_COST_LIMIT = CAP
    fake_openrouter.script(never_stops())

    answer = await ask_once(
        project=project,
        model=SONNET,
        api_key=None,
        messages=[ChatMessage.user("Rewrite my request")],
        max_tokens=4000,  # longer than the cap pays for: the cap binds first
        seconds=10,
        client=llm_client(),
    )

    assert isinstance(answer, AskRefused)
    assert answer.code == "cost_limit"
    assert answer.message.startswith("This turn reached its spending limit ($0.05")
    assert "what it wrote is kept" not in answer.message, "a rewrite cut short is not kept"
    assert fake_openrouter.wait_for_disconnect()
    assert CAP - PIECE <= await charged(project) <= CAP + PIECE
    assert not await SpendingHold.objects.aexists()


async def test_a_one_off_request_is_bounded_by_length_under_a_loose_cap(
    fake_openrouter: FakeOpenRouter,
    project: Project,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    """A summary or an improved request is thrown away when cut: a priced model
    that ignores `max_tokens` is ended at three times the length asked for, not
    let run to what the caps leave (here $100 a turn and a day) on words nobody
    sees."""
    settings.BUILTIT_TURN_COST_LIMIT = Decimal(100)
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal(100)
    fake_openrouter.script(never_stops())

    answer = await ask_once(
        project=project,
        model=SONNET,
        api_key=None,
        messages=[ChatMessage.user("Summarise this")],
        max_tokens=800,
        seconds=10,
        client=llm_client(),
    )

    assert isinstance(answer, AskRefused)
    assert answer.code == "answer_too_large"
    assert "far past the 800 tokens it was asked for" in answer.message
    assert fake_openrouter.wait_for_disconnect()
    written = 800 * 3 * 3 + len(ENDLESS_PIECE)  # three times the tokens, three characters each
    assert await charged(project) <= (math.ceil(written / 3) + 1000) * ANSWER_PRICE
    assert not await SpendingHold.objects.aexists()


async def test_a_model_without_a_price_is_bounded_by_length(
    fake_openrouter: FakeOpenRouter,
    project: Project,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    """No price anywhere in the list (a local server): nothing to count in money,
    so the answer may not run far past the tokens it was asked for."""
    settings.BUILTIT_MAX_ANSWER_TOKENS = 2000
    fake_openrouter.models = [{"id": "local-model"}]
    fake_openrouter.script(never_stops())

    events = await turn_events(llm_client(), project, "Hi", model="local-model")

    assert fake_openrouter.wait_for_disconnect()
    (error,) = errors(events)
    assert error.code == "answer_too_large"
    assert "The model wrote far past the 2,000 tokens it was asked for" in error.message
    closing = await closing_message(events)
    assert 18_000 < len(closing.content) <= 18_000 + len(ENDLESS_PIECE), "three times as long"


async def test_the_last_model_list_read_still_prices_answers(
    fake_openrouter: FakeOpenRouter, llm_client: Clients, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An hour on, the provider's list cannot be read: the prices read before
    still hold, rather than none (and answers bounded only by length)."""
    client = llm_client()
    first = await client.model_catalog()
    assert first is not None
    fake_openrouter.models = "not a list"  # type: ignore[assignment]
    later = time.monotonic() + 3601
    monkeypatch.setattr("chat.llm.client.time.monotonic", lambda: later)

    assert await client.model_catalog() == first
    assert len(fake_openrouter.model_lists) == 2, "asked again, and again in a minute"
