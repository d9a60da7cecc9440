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


async def test_a_drain_waits_for_what_was_queued_before_it_not_for_what_others_queue_after(
    sender: Relay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn's end drains the relay; other turns go on sending meanwhile, and a
    busy process's flushes would follow one another for as long as they do."""
    group = f"project.{uuid.uuid4().hex}"
    channel = group_channel(group)
    mine, theirs = uuid.uuid4().hex, uuid.uuid4().hex
    later_flushes = asyncio.Event()  # closed: the others' traffic has no end
    real_write = sender._write
    flushes = 0

    async def write(sending: list[Any]) -> None:
        nonlocal flushes
        flushes += 1
        if flushes == 1:
            # Another turn sends while this flush is on its way.
            sender.publish(channel, ("group", group), batch(theirs, 1, "theirs"))
        else:
            await later_flushes.wait()
        await real_write(sending)

    monkeypatch.setattr(sender, "_write", write)
    sender.publish(channel, ("group", group), batch(mine, 1, "mine"))

    async with asyncio.timeout(10):  # a bound for the failure, not a measure
        await sender.drain()

    assert await sender.since(mine, 0) == [batch(mine, 1, "mine")["events"][0]]
    assert await sender.since(theirs, 0) == []  # still on its way
    later_flushes.set()
    await sender.drain()
    assert await sender.since(theirs, 0) == [batch(theirs, 1, "theirs")["events"][0]]
