"""Bounds per person across all their projects: spending
per day and per month, turns running at once, and sign-up closed in production
unless turned on, with `check --deploy` warnings. Real database, the real loop
against the fake OpenRouter."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from decimal import Decimal

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent.events import Done, ErrorEvent
from chat.agent.loop import TurnRequest
from chat.checks import check_deploy
from chat.live import turns
from chat.models import PersonLimits
from chat.services import conversation_create
from fakes.openrouter import FakeOpenRouter
from fakes.script import DEFAULT_USAGE, Reply, ToolCallScript, text, tool_calls
from projects.lifecycle import project_create
from projects.models import Project
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import limits, turn_events
from tests.chat.live.tabs import settled
from tests.fakes.held import Held

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def no_turn_outlives_the_test() -> AsyncIterator[None]:
    yield
    await settled()


@sync_to_async
def another_project(user: User, name: str) -> Project:
    project = project_create(owner=user, name=name, starter=True)
    assert isinstance(project, Project)
    return project


def costing(amount: float) -> Reply:
    return tool_calls(
        ToolCallScript("read_file", {"path": "/index.html"}),
        usage={**DEFAULT_USAGE, "cost": amount},
    )


async def test_a_daily_cap_counts_every_project_of_the_person(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    user: User,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal("1.00")
    fake_openrouter.script(text("First.", usage={**DEFAULT_USAGE, "cost": 0.7}))
    client = llm_client()
    first = await turn_events(client, starter_project, "One")
    assert isinstance(first[-1], Done)
    assert first[-1].status == "completed"
    second_project = await another_project(user, "Second")
    fake_openrouter.script(costing(0.4), text("Never sent"))
    second = await turn_events(client, second_project, "Two", turn_limits=limits())
    (error,) = [e for e in second if isinstance(e, ErrorEvent)]
    assert error.code == "cost_limit"
    assert "daily spending limit ($1.10 of $1.00)" in error.message
    assert "resets at midnight" in error.message
    refused = await turn_events(client, second_project, "Three")
    (again,) = [e for e in refused if isinstance(e, ErrorEvent)]
    assert again.code == "cost_limit"
    assert len(fake_openrouter.requests) == 2, "a capped turn asks the model nothing"


async def test_staffs_override_for_one_person_wins(
    fake_openrouter: FakeOpenRouter,
    starter_project: Project,
    user: User,
    settings: SettingsWrapper,
    llm_client: Clients,
) -> None:
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal("100")
    await sync_to_async(PersonLimits.objects.create)(user=user, monthly_cost_limit=Decimal("0.5"))
    fake_openrouter.script(text("Spent.", usage={**DEFAULT_USAGE, "cost": 0.6}))
    client = llm_client()
    await turn_events(client, starter_project, "One")
    refused = await turn_events(client, starter_project, "Two")
    (error,) = [e for e in refused if isinstance(e, ErrorEvent)]
    assert "monthly spending limit" in error.message
    assert isinstance(refused[-1], Done)


async def test_only_so_many_turns_of_one_person_run_at_once(
    fake_openrouter: FakeOpenRouter, user: User, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_MAX_TURNS_PER_PERSON = 2
    settings.OPENROUTER_BASE_URL = fake_openrouter.base_url
    settings.OPENROUTER_API_KEY = "sk-test"
    held = Held(text("a"), text("b"), text("c"))
    fake_openrouter.responder = held
    projects = [await another_project(user, f"Site {n}") for n in range(3)]

    async def order(project: Project) -> turns.LiveTurn | turns.TurnRefused:
        conversation = await sync_to_async(conversation_create)(project=project)
        return await turns.start(TurnRequest(project, conversation, "Go", user=user))

    started = await asyncio.gather(*(order(project) for project in projects))
    held.release()
    refused = [item for item in started if isinstance(item, turns.TurnRefused)]
    assert len(refused) == 1
    assert "You already have 2 turns running" in refused[0].message


def test_deploy_checks_warn_about_open_sign_up_without_a_cap_and_any_host(
    settings: SettingsWrapper,
) -> None:
    settings.BUILTIT_ALLOW_SIGNUP = True
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal(0)
    settings.BUILTIT_USER_MONTHLY_COST_LIMIT = Decimal(0)
    settings.ALLOWED_HOSTS = ["builder.example.com", "*"]
    assert [message.id for message in check_deploy()] == ["chat.W003", "chat.W004"]
    settings.BUILTIT_USER_MONTHLY_COST_LIMIT = Decimal(50)
    settings.ALLOWED_HOSTS = ["builder.example.com"]
    assert check_deploy() == []
