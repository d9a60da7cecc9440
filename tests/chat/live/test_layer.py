"""The channel layer (chat.live.layer): the one route to every tab, as Channels
documents a layer, in one process and, with REDIS_URL, across processes."""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.exceptions import ChannelFull

from chat.live.layer import LiveLayer


async def _members(layer: LiveLayer, count: int, group: str = "project.a") -> list[str]:
    names = [await layer.new_channel() for _ in range(count)]
    for name in names:
        await layer.group_add(group, name)
    return names


def _events(turn: str, *seqs: int) -> dict[str, Any]:
    return {
        "type": "turn.events",
        "turn": turn,
        "conversation": 1,
        "events": [{"seq": seq, "event": {"type": "content", "text": str(seq)}} for seq in seqs],
    }


async def test_a_group_message_reaches_every_member_and_no_one_else() -> None:
    layer = LiveLayer()
    members = await _members(layer, 3)
    outsider = await layer.new_channel()
    await layer.group_add("project.b", outsider)

    await layer.group_send("project.a", {"type": "files.moved", "paths": ["/a"]})

    for name in members:
        assert await layer.receive(name) == {"type": "files.moved", "paths": ["/a"]}
    assert not len(layer.channels.get(outsider, ()))  # nothing waits for it


async def test_what_one_member_merges_changes_nothing_another_receives() -> None:
    layer = LiveLayer()
    busy, idle = await _members(layer, 2)

    await layer.group_send("project.a", _events("t", 1))
    assert await layer.receive(idle) == _events("t", 1)
    await layer.group_send("project.a", _events("t", 2))  # merged into busy's waiting one

    assert await layer.receive(busy) == _events("t", 1, 2)
    assert await layer.receive(idle) == _events("t", 2)


async def test_a_busy_tabs_waiting_batches_of_one_turn_are_one_message_in_order() -> None:
    layer = LiveLayer()
    busy, other = await _members(layer, 2)
    for seq in (1, 2, 3):
        await layer.group_send("project.a", _events("t", seq))
    await layer.group_send("project.a", {"type": "files.moved", "paths": []})
    await layer.group_send("project.a", _events("t", 4))

    assert await layer.receive(busy) == _events("t", 1, 2, 3)
    assert (await layer.receive(busy))["type"] == "files.moved"
    assert await layer.receive(busy) == _events("t", 4)
    # What one member merged, the other received as it was sent.
    assert await layer.receive(other) == _events("t", 1, 2, 3)


async def test_a_full_channel_loses_a_group_message_with_a_warning_and_others_still_get_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    layer = LiveLayer(capacity=2)
    slow, quick = await _members(layer, 2)
    for number in range(2):
        await layer.send(slow, {"type": "files.moved", "n": number})

    with caplog.at_level(logging.WARNING, logger="chat.live.layer"):
        await layer.group_send("project.a", {"type": "files.moved", "n": 2})

    assert await layer.receive(quick) == {"type": "files.moved", "n": 2}
    assert [(await layer.receive(slow))["n"] for _ in range(2)] == [0, 1]
    assert f"Channel {slow} is full" in caplog.text


async def test_a_full_channel_refuses_a_direct_send() -> None:
    layer = LiveLayer(capacity=1)
    [member] = await _members(layer, 1)
    await layer.send(member, {"type": "turn.stop"})

    with pytest.raises(ChannelFull):
        await layer.send(member, {"type": "turn.stop"})


async def test_a_waiting_receiver_gets_what_is_sent_later_and_a_cancelled_one_takes_none() -> None:
    layer = LiveLayer()
    [member] = await _members(layer, 1)
    waiting = asyncio.ensure_future(layer.receive(member))
    given_up = asyncio.ensure_future(layer.receive(member))
    await asyncio.sleep(0)
    given_up.cancel()
    await asyncio.gather(given_up, return_exceptions=True)

    await layer.send(member, {"type": "turn.stop", "n": 1})
    await layer.group_send("project.a", {"type": "turn.stop", "n": 2})

    assert await asyncio.wait_for(waiting, 1) == {"type": "turn.stop", "n": 1}
    assert await asyncio.wait_for(layer.receive(member), 1) == {"type": "turn.stop", "n": 2}
    assert member not in layer.channels  # read empty, nobody waiting: nothing kept


async def test_a_reader_woken_then_cancelled_leaves_the_message_for_the_next() -> None:
    layer = LiveLayer()
    [member] = await _members(layer, 1)
    first = asyncio.ensure_future(layer.receive(member))
    second = asyncio.ensure_future(layer.receive(member))
    await asyncio.sleep(0)

    await layer.send(member, {"type": "turn.stop"})
    first.cancel()  # woken, but cancelled before it ran

    assert await asyncio.wait_for(second, 1) == {"type": "turn.stop"}
    assert first.cancelled()


async def test_unread_messages_expire_with_the_channels_memberships() -> None:
    layer = LiveLayer(expiry=60)
    gone, kept = await _members(layer, 2)
    await layer.send(gone, {"type": "files.moved"})
    layer.channels[gone].since = time.monotonic() - 61  # sent over a minute ago
    layer._swept = 0.0

    await layer.group_send("project.a", {"type": "files.moved", "fresh": True})

    # The stale message went, and with it the tab's membership (as in Channels).
    assert gone not in layer.groups["project.a"]
    assert gone not in layer.channels
    assert await layer.receive(kept) == {"type": "files.moved", "fresh": True}


async def test_a_message_unread_while_its_reader_was_busy_expires_too() -> None:
    layer = LiveLayer(expiry=60)
    (reader,) = await _members(layer, 1)
    waiting = asyncio.ensure_future(layer.receive(reader))
    await asyncio.sleep(0)
    await layer.group_send("project.a", {"type": "files.moved"})  # taken at once
    assert await waiting == {"type": "files.moved"}
    await layer.group_send("project.a", {"type": "files.moved", "late": True})  # nobody waits
    layer.channels[reader].since = time.monotonic() - 61
    layer._swept = 0.0

    await layer.group_send("project.b", {"type": "files.moved"})

    assert reader not in layer.channels
    assert reader not in layer.groups["project.a"]


async def test_a_channel_made_and_never_read_goes_at_the_sweep() -> None:
    layer = LiveLayer()
    made = await layer.new_channel()
    layer._swept = 0.0
    await layer.group_send("project.a", {"type": "files.moved"})
    assert made not in layer.channels


async def test_a_channel_read_now_is_left_alone_by_the_sweep() -> None:
    layer = LiveLayer(expiry=60)
    (reader,) = await _members(layer, 1)
    waiting = asyncio.ensure_future(layer.receive(reader))
    await asyncio.sleep(0)
    layer._swept = 0.0
    await layer.group_send("project.b", {"type": "files.moved"})
    await layer.group_send("project.a", {"type": "files.moved"})
    assert await asyncio.wait_for(waiting, 1) == {"type": "files.moved"}


async def test_memberships_lapse_after_group_expiry(monkeypatch: pytest.MonkeyPatch) -> None:
    layer = LiveLayer(group_expiry=3600)
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now - 3601)  # joined over an hour ago
    old = await layer.new_channel()
    await layer.group_add("project.a", old)
    monkeypatch.setattr(time, "time", lambda: now)
    new = await layer.new_channel()
    await layer.group_add("project.a", new)
    layer._swept = 0.0

    await layer.group_send("project.b", {"type": "files.moved"})

    assert old not in layer.groups["project.a"]
    assert new in layer.groups["project.a"]


async def test_a_channel_no_process_made_is_served_here() -> None:
    layer = LiveLayer()
    await layer.send("health.check", {"type": "probe"})
    assert await layer.receive("health.check") == {"type": "probe"}


# --- across processes (REDIS_URL: make test-services) ---------------------------------

_REDIS = os.environ.get("REDIS_URL", "")
needs_redis = pytest.mark.skipif(not _REDIS, reason="needs Redis (REDIS_URL): make test-services")


@needs_redis
async def test_a_group_message_reaches_the_members_of_every_process_once(
    two: tuple[LiveLayer, LiveLayer],
) -> None:
    here, there = two
    group = f"project.{uuid.uuid4().hex}"
    mine, theirs = await here.new_channel(), await there.new_channel()
    await here.group_add(group, mine)
    await there.group_add(group, theirs)

    await here.group_send(group, {"type": "files.moved", "paths": ["/a"]})
    await here.drain()

    assert await asyncio.wait_for(there.receive(theirs), 5) == {
        "type": "files.moved",
        "paths": ["/a"],
    }
    assert await asyncio.wait_for(here.receive(mine), 5) == {"type": "files.moved", "paths": ["/a"]}
    await asyncio.sleep(0.1)
    assert not len(here.channels.get(mine, ())), "its own publication is not delivered twice"


@needs_redis
async def test_a_message_reaches_a_channel_of_another_process(
    two: tuple[LiveLayer, LiveLayer],
) -> None:
    here, there = two
    control = await there.new_channel()  # a turn's, in the other process

    await here.send(control, {"type": "turn.stop"})
    await here.drain()

    assert await asyncio.wait_for(there.receive(control), 5) == {"type": "turn.stop"}


@needs_redis
async def test_sync_code_that_sends_and_ends_its_loop_still_reaches_the_server(
    two: tuple[LiveLayer, LiveLayer],
) -> None:
    """A command or a shell sends through async_to_sync, on a loop that ends with
    the call: the message reaches Redis first, and the loop's connection goes."""
    command, server = two
    group = f"user.{uuid.uuid4().hex}"
    tab = await server.new_channel()
    await server.group_add(group, tab)

    await asyncio.to_thread(async_to_sync(command.group_send), group, {"type": "session.check"})

    assert await asyncio.wait_for(server.receive(tab), 5) == {"type": "session.check"}
    assert not command._remotes, "the command's loop let its connection go"


@needs_redis
async def test_a_turns_events_are_logged_for_tabs_that_come_later(
    two: tuple[LiveLayer, LiveLayer],
) -> None:
    here, there = two
    turn, group = uuid.uuid4().hex, f"project.{uuid.uuid4().hex}"
    await here.new_channel()  # a server's loop (it has channels): it sends in the background
    await here.group_send(group, _events(turn, 1, 2))
    await here.group_send(group, _events(turn, 3))
    await here.drain()

    found = await there.since(turn, 1)

    # Sent in one flush, the turn's text is one piece, numbered by its last.
    assert found == [{"seq": 3, "event": {"type": "content", "text": "123"}}]
