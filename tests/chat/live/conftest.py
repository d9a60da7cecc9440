"""What every socket test shares: the fake OpenRouter as the server's provider,
no turn left running into the next test, and two processes' layers."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.live.layer import LiveLayer, close_layer
from chat.live.presence import close_registry
from chat.llm import close_client
from fakes.openrouter import FakeOpenRouter
from tests.chat.live.tabs import settled


@pytest.fixture(autouse=True)
async def no_turn_outlives_the_test() -> AsyncIterator[None]:
    yield
    await settled()
    # The test's loop ends with it: its model client and channel layer close first, as a
    # server's do at shutdown (aiohttp says so of a pool left open).
    await close_client()
    await close_layer()
    await close_registry()


@pytest.fixture
def scripted(settings: SettingsWrapper, fake_openrouter: FakeOpenRouter) -> FakeOpenRouter:
    """The fake as the server's provider, with a key and no retries."""
    settings.OPENROUTER_BASE_URL = fake_openrouter.base_url
    settings.OPENROUTER_API_KEY = "sk-test"
    settings.OPENROUTER_MAX_RETRIES = 0
    return fake_openrouter


@pytest.fixture
async def two() -> AsyncIterator[tuple[LiveLayer, LiveLayer]]:
    """Two processes' layers on the same Redis (REDIS_URL; tests that use it skip
    without it)."""
    url = os.environ.get("REDIS_URL", "")
    here, there = LiveLayer(redis_url=url), LiveLayer(redis_url=url)
    yield here, there
    await here.close()
    await there.close()
