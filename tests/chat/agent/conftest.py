"""Fixtures for the agent tests: model clients on the fake OpenRouter."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

import pytest

from chat.llm import ClientConfig, LLMClient
from fakes.openrouter import FakeOpenRouter


class Clients(Protocol):
    """Makes a client of the fake OpenRouter; `ClientConfig` fields override the
    test defaults (a key, a short read timeout, retries with almost no wait)."""

    def __call__(self, **config: Any) -> LLMClient: ...


@pytest.fixture
async def llm_client(fake_openrouter: FakeOpenRouter) -> AsyncIterator[Clients]:
    """Every client a test makes is closed when it ends, so no connection to the
    fake outlives its test."""
    made: list[LLMClient] = []

    def make(**config: Any) -> LLMClient:
        client = LLMClient(
            ClientConfig(
                base_url=fake_openrouter.base_url,
                api_key=config.pop("api_key", "sk-test"),
                read_timeout=config.pop("read_timeout", 5.0),
                backoff_initial=0.001,
                backoff_max=0.01,
                **config,
            )
        )
        made.append(client)
        return client

    yield make
    for client in made:
        await client.aclose()
