"""A chat.llm client wired to a fake OpenRouter, for the client's tests.

Retries are recorded in `sleeps` instead of waited for, and every run is
guarded against a hang (a guard, never a measure of speed).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from chat.llm import (
    AssistantMessage,
    ChatMessage,
    ChatRequest,
    ClientConfig,
    ContentDelta,
    LLMClient,
    MessageAssembler,
    StreamEvent,
    ToolSpec,
)
from fakes.openrouter import FakeOpenRouter

WRITE = ToolSpec(
    "create_file",
    "Create a file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
REQUEST = ChatRequest(
    model="openai/gpt-4o-mini", messages=[ChatMessage.user("Build me a site")], tools=[WRITE]
)
HANG = 10.0


@dataclass
class Harness:
    fake: FakeOpenRouter
    client: LLMClient
    sleeps: list[float] = field(default_factory=list)

    async def run(
        self, request: ChatRequest = REQUEST
    ) -> tuple[list[StreamEvent], AssistantMessage]:
        """Every piece of one streamed answer, and the assembled message."""

        async def consume() -> tuple[list[StreamEvent], AssistantMessage]:
            events: list[StreamEvent] = []
            assembler = MessageAssembler()
            async with self.client.stream(request) as pieces:
                async for piece in pieces:
                    events.append(piece)
                    assembler.add(piece)
            return events, assembler.message()

        return await asyncio.wait_for(consume(), HANG)

    def bodies(self) -> list[Any]:
        return [request.json for request in self.fake.requests]


def make_harness(fake: FakeOpenRouter, **config: Any) -> Harness:
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    settings: dict[str, Any] = {
        "base_url": fake.base_url,
        "api_key": "sk-or-v1-test",
        "app_url": "https://builder.example.com",
        "app_title": "Built-It",
        "read_timeout": 5.0,
        "max_retries": 2,
        **config,
    }
    return Harness(fake, LLMClient(ClientConfig(**settings), sleep=sleep), sleeps)


def contents(events: list[StreamEvent]) -> list[str]:
    return [event.text for event in events if isinstance(event, ContentDelta)]
