"""The relay (chat.live.relay): what one process sends to the others, through a
real Redis (REDIS_URL: make test-services)."""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from chat.live import messages
from chat.live.relay import Relay, Target, group_channel

_REDIS = os.environ.get("REDIS_URL", "")
pytestmark = pytest.mark.skipif(not _REDIS, reason="needs Redis (REDIS_URL): make test-services")


def batch(turn: str, seq: int, text: str) -> messages.TurnEvents:
    event: messages.NumberedEvent = {"seq": seq, "event": {"type": "content", "text": text}}
    return messages.turn_events(turn=turn, conversation=1, events=[event])


class Heard:
    """What a process subscribed to a group hears, with a wake for each message."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self._wake = asyncio.Event()

    def deliver(self, target: Target, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self._wake.set()

    async def until(self, count: int) -> list[dict[str, Any]]:
        while len(self.messages) < count:
            await self._wake.wait()
            self._wake.clear()
        return self.messages


@pytest.fixture
async def sender() -> AsyncIterator[Relay]:
    relay = Relay(_REDIS, deliver=lambda target, message: None)
    yield relay
    await relay.aclose()


async def test_a_message_that_is_not_json_is_skipped_with_a_warning_and_the_rest_go_out(
    sender: Relay, caplog: pytest.LogCaptureFixture
) -> None:
    heard = Heard()
    listener = Relay(_REDIS, deliver=heard.deliver)
    group, turn = f"project.{uuid.uuid4().hex}", uuid.uuid4().hex
    channel = group_channel(group)
    try:
        assert await listener.subscribe(channel)
        with caplog.at_level(logging.WARNING, logger="chat.live.relay"):
            # All three wait for the same flush; a set is not JSON.
            sender.publish(channel, ("group", group), batch(turn, 1, "before"))
            sender.publish(channel, ("group", group), {"type": "files.moved", "paths": {"/a"}})
            sender.publish(channel, ("group", group), {"type": "files.moved", "paths": ["/b"]})
            await sender.drain()
        got = await asyncio.wait_for(heard.until(2), 5)
    finally:
        await listener.aclose()

    assert got == [batch(turn, 1, "before"), {"type": "files.moved", "paths": ["/b"]}]
    assert await sender.since(turn, 0) == [batch(turn, 1, "before")["events"][0]]
    warnings = [record for record in caplog.records if record.name == "chat.live.relay"]
    assert [record.levelno for record in warnings] == [logging.WARNING]
    assert "files.moved" in warnings[0].getMessage()
    assert "Traceback" not in caplog.text
