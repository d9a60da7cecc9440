"""Without a key: the workspace says so before any message and offers
the offline demo, which is then the default model, so the first message works;
a real model without a key is refused at once as "no key", which reads
differently from a provider that cannot be reached."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent.events import Done, ErrorEvent, ToolCallsAnnounced
from chat.agent.loop import TurnRequest, run_turn
from chat.agent.model_choice import default_model, offered_models
from chat.llm.config import OPENROUTER_URL
from chat.personal_keys import KeyRefused, key_save
from demo.transport import DEMO_LABEL, DEMO_MODEL
from projects.models import Project
from tests.chat.agent.turns import new_conversation

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def no_key(settings: SettingsWrapper) -> SettingsWrapper:
    settings.OPENROUTER_BASE_URL = OPENROUTER_URL
    settings.OPENROUTER_API_KEY = ""
    settings.OPENROUTER_MAX_RETRIES = 3
    return settings


def test_without_a_key_the_workspace_says_so_and_the_demo_is_picked(
    no_key: SettingsWrapper, starter_project: Project, user_client: Client
) -> None:
    page = user_client.get(f"/projects/{starter_project.pk}/").content.decode()
    assert "No model connected" in page
    assert "offline demo" in page
    assert f'placeholder="{DEMO_MODEL}"' in page
    assert f'<option value="{DEMO_MODEL}" label="{DEMO_LABEL}">' in page


def test_with_a_key_the_demo_is_offered_but_not_the_default(
    no_key: SettingsWrapper, starter_project: Project, user: User, user_client: Client
) -> None:
    assert not isinstance(
        key_save(user=user, raw="sk-or-v1-abcdefghijklmnop0123456789"), KeyRefused
    )
    page = user_client.get(f"/projects/{starter_project.pk}/").content.decode()
    assert "Using your own OpenRouter key" in page
    assert default_model(personal_key=True) == no_key.BUILTIT_DEFAULT_MODEL
    assert DEMO_MODEL in offered_models(starter_project, personal_key=True)
    no_key.OPENROUTER_API_KEY = "sk-server"
    assert "Using your own" in user_client.get(f"/projects/{starter_project.pk}/").content.decode()


def test_the_demo_can_be_switched_off(no_key: SettingsWrapper, starter_project: Project) -> None:
    no_key.BUILTIT_DEMO_ENABLED = False
    assert DEMO_MODEL not in offered_models(starter_project)
    assert default_model(personal_key=False) == no_key.BUILTIT_DEFAULT_MODEL


async def test_the_first_message_without_a_key_goes_to_the_demo(
    no_key: SettingsWrapper, starter_project: Project
) -> None:
    conversation = await new_conversation(starter_project)
    order = TurnRequest(starter_project, conversation, "Build a site for a bakery called Crumb")
    events = [event async for event in run_turn(order)]
    done = events[-1]
    assert isinstance(done, Done)
    assert done.status == "completed"
    assert any(isinstance(event, ToolCallsAnnounced) for event in events)


async def test_a_real_model_without_a_key_is_no_key_at_once_not_an_outage(
    no_key: SettingsWrapper, starter_project: Project
) -> None:
    conversation = await new_conversation(starter_project)
    order = TurnRequest(starter_project, conversation, "Hello", "openai/gpt-5-mini")
    events = [event async for event in run_turn(order)]
    (error,) = [event for event in events if isinstance(event, ErrorEvent)]
    assert error.code == "no_api_key"
    assert "pick the offline demo model" in error.message


async def test_an_unreachable_provider_reads_differently(
    settings: SettingsWrapper, starter_project: Project
) -> None:
    settings.OPENROUTER_BASE_URL = "http://127.0.0.1:9/api/v1"  # nothing listens there
    settings.OPENROUTER_API_KEY = "sk-test"
    settings.OPENROUTER_MAX_RETRIES = 0
    conversation = await new_conversation(starter_project)
    order = TurnRequest(starter_project, conversation, "Hello", "openai/gpt-5-mini")
    events = [event async for event in run_turn(order)]
    (error,) = [event for event in events if isinstance(event, ErrorEvent)]
    assert error.code == "unavailable"
    assert "key" not in error.message.lower()
