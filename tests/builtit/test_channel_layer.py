"""The channel layers (builtit.channel_layer): the one used without REDIS_URL,
Redis's pool under a burst, and how a chat socket's messages reach its handlers
(chat.live.dispatching)."""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from typing import Any

import pytest
from channels.exceptions import ChannelFull, StopConsumer
from channels_redis.core import RedisChannelLayer
from redis.exceptions import MaxConnectionsError

from builtit.channel_layer import LocalChannelLayer, RedisLayer
from chat.live.dispatching import dispatch_all


async def _members(layer: LocalChannelLayer, count: int, group: str = "project.a") -> list[str]:
    names = [await layer.new_channel() for _ in range(count)]
    for name in names:
        await layer.group_add(group, name)
    return names


async def test_a_group_message_reaches_every_member_and_no_one_else() -> None:
    layer = LocalChannelLayer()
    members = await _members(layer, 3)
    outsider = await layer.new_channel()
    await layer.group_add("project.b", outsider)

    await layer.group_send("project.a", {"type": "turn.events", "events": [1]})

    for name in members:
        assert await layer.receive(name) == {"type": "turn.events", "events": [1]}
    assert outsider not in layer.channels  # nothing waits for it


async def test_the_sender_changing_a_message_afterwards_changes_nothing_received() -> None:
    layer = LocalChannelLayer()
    [member] = await _members(layer, 1)
    message: dict[str, Any] = {"type": "turn.events", "events": [{"seq": 1}]}

    await layer.group_send("project.a", message)
    message["events"][0]["seq"] = 99
    message["events"].append({"seq": 2})

    assert await layer.receive(member) == {"type": "turn.events", "events": [{"seq": 1}]}


async def test_a_full_channel_loses_the_message_with_a_warning_and_others_still_get_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    layer = LocalChannelLayer(capacity=2)
    slow, quick = await _members(layer, 2)
    for number in range(2):
        await layer.send(slow, {"type": "turn.events", "n": number})

    with caplog.at_level(logging.WARNING, logger="builtit.channel_layer"):
        await layer.group_send("project.a", {"type": "turn.events", "n": 2})

    assert await layer.receive(quick) == {"type": "turn.events", "n": 2}
    assert [(await layer.receive(slow))["n"] for _ in range(2)] == [0, 1]
    assert f"Channel {slow} is full" in caplog.text


async def test_a_waiting_receiver_gets_what_is_sent_later_and_a_cancelled_one_takes_none() -> None:
    layer = LocalChannelLayer()
    [member] = await _members(layer, 1)
    waiting = asyncio.ensure_future(layer.receive(member))
    given_up = asyncio.ensure_future(layer.receive(member))
    await asyncio.sleep(0)
    given_up.cancel()
    await asyncio.gather(given_up, return_exceptions=True)

    await layer.send(member, {"type": "turn.events", "n": 1})
    await layer.group_send("project.a", {"type": "turn.events", "n": 2})

    assert await asyncio.wait_for(waiting, 1) == {"type": "turn.events", "n": 1}
    assert await asyncio.wait_for(layer.receive(member), 1) == {"type": "turn.events", "n": 2}
    assert member not in layer.channels  # read empty, nobody waiting: nothing kept


async def test_a_full_channel_refuses_a_direct_send() -> None:
    layer = LocalChannelLayer(capacity=1)
    [member] = await _members(layer, 1)
    await layer.send(member, {"type": "turn.events"})

    with pytest.raises(ChannelFull):
        await layer.send(member, {"type": "turn.events"})


async def test_expired_messages_and_memberships_are_swept() -> None:
    layer = LocalChannelLayer(expiry=60)
    gone, kept = await _members(layer, 2)
    await layer.send(gone, {"type": "turn.events"})
    expired = layer.channels[gone]._queue[0]
    layer.channels[gone]._queue[0] = (time.time() - 1, expired[1])  # sent over a minute ago

    await layer.group_send("project.a", {"type": "turn.events", "fresh": True})

    # The stale message went, and with it the tab's membership (as in Channels).
    assert gone not in layer.groups["project.a"]
    assert gone not in layer.channels
    assert await layer.receive(kept) == {"type": "turn.events", "fresh": True}


async def test_the_sweep_runs_at_most_once_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    layer = LocalChannelLayer()
    await _members(layer, 1)
    sweeps: list[int] = []
    monkeypatch.setattr(layer, "_clean_expired", lambda: sweeps.append(1))

    for _ in range(50):
        await layer.group_send("project.a", {"type": "turn.events"})

    assert len(sweeps) == 1


# --- chat.live.dispatching ----------------------------------------------------------------


class _Source:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def receive(self) -> dict[str, Any]:
        return await self.queue.get()


async def test_a_message_reaches_its_handler_one_loop_iteration_after_it_is_put() -> None:
    socket, layer = _Source(), _Source()
    handled: list[str] = []

    async def dispatch(message: dict[str, Any]) -> None:
        handled.append(message["type"])

    running = asyncio.ensure_future(dispatch_all([socket.receive, layer.receive], dispatch))
    for _ in range(3):
        await asyncio.sleep(0)  # the pumps are waiting
    layer.queue.put_nowait({"type": "turn.events"})
    await asyncio.sleep(0)
    await asyncio.sleep(0)

    # channels.utils.await_many_dispatch needs three more iterations.
    assert handled == ["turn.events"]
    running.cancel()
    await asyncio.gather(running, return_exceptions=True)


async def test_handlers_run_one_at_a_time_in_the_order_messages_arrive() -> None:
    socket, layer = _Source(), _Source()
    log: list[str] = []
    release = asyncio.Event()

    async def dispatch(message: dict[str, Any]) -> None:
        log.append(f"start {message['type']}")
        if message["type"] == "websocket.receive":
            await release.wait()
        log.append(f"end {message['type']}")

    running = asyncio.ensure_future(dispatch_all([socket.receive, layer.receive], dispatch))
    socket.queue.put_nowait({"type": "websocket.receive"})
    await asyncio.sleep(0.01)
    layer.queue.put_nowait({"type": "turn.events"})
    await asyncio.sleep(0.01)
    assert log == ["start websocket.receive"]  # the layer's message waits its turn

    release.set()
    await asyncio.sleep(0.01)

    assert log == [
        "start websocket.receive",
        "end websocket.receive",
        "start turn.events",
        "end turn.events",
    ]
    running.cancel()
    await asyncio.gather(running, return_exceptions=True)


async def test_stop_consumer_ends_the_loop_and_stops_every_source() -> None:
    socket, layer = _Source(), _Source()

    async def dispatch(message: dict[str, Any]) -> None:
        if message["type"] == "websocket.disconnect":
            raise StopConsumer

    running = asyncio.ensure_future(dispatch_all([socket.receive, layer.receive], dispatch))
    socket.queue.put_nowait({"type": "websocket.disconnect"})

    with pytest.raises(StopConsumer):
        await asyncio.wait_for(running, 2)
    layer.queue.put_nowait({"type": "turn.events"})
    await asyncio.sleep(0.01)
    assert layer.queue.qsize() == 1  # nobody reads it any more


async def test_a_failing_handler_fails_the_consumer() -> None:
    socket = _Source()

    async def dispatch(message: dict[str, Any]) -> None:
        raise ValueError("No handler for message type nonsense")

    running = asyncio.ensure_future(dispatch_all([socket.receive], dispatch))
    socket.queue.put_nowait({"type": "nonsense"})

    with pytest.raises(ValueError, match="nonsense"):
        await asyncio.wait_for(running, 2)


# --- Redis (REDIS_URL: make test-services) ----------------------------------------------

_REDIS = os.environ.get("REDIS_URL", "")
needs_redis = pytest.mark.skipif(not _REDIS, reason="needs Redis (REDIS_URL): make test-services")


async def _burst(layer: Any, sends: int) -> list[BaseException | None]:
    """`sends` group messages at once, each to its own group of two members."""
    groups = [f"burst.{index}.{uuid.uuid4().hex}" for index in range(sends)]
    for group in groups:
        for _ in range(2):
            await layer.group_add(group, await layer.new_channel())
    sent = await asyncio.gather(
        *(layer.group_send(group, {"type": "turn.events"}) for group in groups),
        return_exceptions=True,
    )
    return sent


@needs_redis
async def test_a_burst_of_sends_past_the_pool_size_waits_for_connections_and_all_arrive() -> None:
    """redis-py's own pool fails a send past its size ("Too many connections"),
    and the frame was lost for every tab of the project; this one waits."""
    host = {"address": _REDIS, "socket_timeout": None, "max_connections": 3, "timeout": 10}
    layer = RedisLayer(hosts=[host])
    try:
        assert await _burst(layer, 40) == [None] * 40
    finally:
        await layer.close_pools()


@needs_redis
async def test_channels_redis_own_pool_fails_the_same_burst() -> None:
    """What the test above guards against: without RedisLayer, sends fail."""
    layer = RedisChannelLayer(hosts=[{"address": _REDIS, "max_connections": 3}])
    try:
        failed = [error for error in await _burst(layer, 40) if error is not None]
    finally:
        await layer.close_pools()
    assert failed
    assert all(isinstance(error, MaxConnectionsError) for error in failed)


async def test_a_handler_failing_on_another_source_ends_the_loop_with_its_error() -> None:
    socket, layer = _Source(), _Source()

    async def dispatch(message: dict[str, Any]) -> None:
        if message["type"] == "turn.events":
            raise ValueError("No handler for message type turn.events")

    running = asyncio.ensure_future(dispatch_all([socket.receive, layer.receive], dispatch))
    layer.queue.put_nowait({"type": "turn.events"})

    with pytest.raises(ValueError, match="No handler"):
        await asyncio.wait_for(running, 2)
    socket.queue.put_nowait({"type": "websocket.receive"})
    await asyncio.sleep(0.01)
    assert socket.queue.qsize() == 1  # the socket's pump stopped too
