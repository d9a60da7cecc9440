"""A turn's batches published only where another process listens
(chat.live.listeners), through a real Redis (REDIS_URL: make test-services):
nothing is lost for a process that starts listening mid-turn, a turn's end and
a stop still cross, and Redis going away and coming back loses nothing."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from redis import Redis as SyncRedis
from redis.asyncio import Redis

from chat.live.layer import LiveLayer
from chat.live.relay import group_channel

_REDIS = os.environ.get("REDIS_URL", "")
pytestmark = pytest.mark.skipif(not _REDIS, reason="needs Redis (REDIS_URL): make test-services")

WAIT = 30.0  # seconds: a bound for a failure, not a measure


def _events(turn: str, *seqs: int, done: bool = False) -> dict[str, Any]:
    events = [{"seq": seq, "event": {"type": "content", "text": str(seq)}} for seq in seqs]
    if done:
        events[-1]["event"] = {"type": "done", "status": "completed"}
    return {"type": "turn.events", "turn": turn, "conversation": 1, "events": events}


def _seqs(message: dict[str, Any]) -> list[int]:
    return [item["seq"] for item in message["events"]]


class Heard:
    """Raw publications on a group's Redis channel, each with a wake."""

    def __init__(self) -> None:
        self.heard: list[bytes] = []
        self._wake = asyncio.Event()

    def add(self, data: bytes) -> None:
        self.heard.append(data)
        self._wake.set()

    async def until(self, count: int) -> list[bytes]:
        async with asyncio.timeout(WAIT):
            while len(self.heard) < count:
                await self._wake.wait()
                self._wake.clear()
        return self.heard


@pytest.fixture
async def echoes(two: tuple[LiveLayer, LiveLayer], monkeypatch: pytest.MonkeyPatch) -> Heard:
    """What the first layer's own subscription hears back of its publications
    (it drops them: its members had them already): what it published, and not
    what it skipped."""
    remote = two[0]._remote()  # the running loop's way to Redis
    assert remote is not None
    relay = remote.relay
    echoes = Heard()
    hear = relay._heard

    def heard(message: dict[str, Any]) -> None:
        if message.get("type") == "message":
            echoes.add(bytes(message["data"]))
        hear(message)

    monkeypatch.setattr(relay, "_heard", heard)
    return echoes


async def test_a_process_listening_mid_turn_reads_what_was_skipped_and_hears_the_rest(
    two: tuple[LiveLayer, LiveLayer], echoes: Heard
) -> None:
    here, there = two
    group, turn = f"project.{uuid.uuid4().hex}", uuid.uuid4().hex
    await here.group_add(group, await here.new_channel())  # the tab running the turn
    await here.group_send(group, _events(turn, 1))
    await here.drain()
    await here.group_send(group, _events(turn, 2))
    await here.drain()

    joined = await there.new_channel()
    await there.group_add(group, joined)  # then it reads the log, as a tab does
    caught_up = await there.since(turn, 0)
    await here.group_send(group, _events(turn, 3))
    await here.drain()

    assert caught_up == [
        {"seq": 1, "event": {"type": "content", "text": "1"}},
        {"seq": 2, "event": {"type": "content", "text": "2"}},
    ]
    assert _seqs(await asyncio.wait_for(there.receive(joined), WAIT)) == [3]
    # Only the batch sent once another process listened was published.
    [published] = await echoes.until(1)
    assert b'"seq":3' in published


async def test_a_turns_end_and_a_stop_cross_while_no_other_process_listens(
    two: tuple[LiveLayer, LiveLayer], echoes: Heard
) -> None:
    here, there = two
    group, turn = f"project.{uuid.uuid4().hex}", uuid.uuid4().hex
    await here.group_add(group, await here.new_channel())
    control = await there.new_channel()  # a turn's channel, in the other process

    await here.group_send(group, _events(turn, 1))
    await here.drain()
    await here.send(control, {"type": "turn.stop"})
    await here.group_send(group, _events(turn, 2, done=True))
    await here.drain()

    assert await asyncio.wait_for(there.receive(control), WAIT) == {"type": "turn.stop"}
    [ended] = await echoes.until(1)
    assert b'"type":"done"' in ended
    assert b'"seq":1' not in ended


async def test_a_subscriber_in_no_set_still_hears_every_batch(
    two: tuple[LiveLayer, LiveLayer],
) -> None:
    """A process of an earlier version, during a rolling deploy, or one whose
    entry Redis lost (a FLUSHALL, an eviction), listens without being listed."""
    here, _ = two
    group, turn = f"project.{uuid.uuid4().hex}", uuid.uuid4().hex
    await here.group_add(group, await here.new_channel())
    redis = Redis.from_url(_REDIS)
    pubsub = redis.pubsub()
    heard = Heard()
    try:
        await pubsub.subscribe(group_channel(group))
        assert (await pubsub.get_message(timeout=5) or {}).get("type") == "subscribe"
        await here.group_send(group, _events(turn, 1))
        await here.drain()
        async with asyncio.timeout(WAIT):
            while not heard.heard:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if message is not None:
                    heard.add(bytes(message["data"]))
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await redis.aclose()

    assert b'"seq":1' in heard.heard[0]


# --- Redis going away -------------------------------------------------------------------


def _free_port() -> int:
    # redis-server cannot be asked for any free port ("--port 0" turns its TCP
    # listener off) and the test restarts it on the same port, so a port is
    # found here and bound by redis-server just after: the window between is
    # as short as it can be, and a port taken meanwhile fails `start` in words.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class OwnRedis:
    """A Redis server of this test's own, to stop and start again (an outage and a
    restart that lost its data), leaving the shared one alone."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603 (a fixed command)
            [
                *(str(shutil.which("redis-server")), "--port", str(self.port)),
                *("--bind", "127.0.0.1", "--save", "", "--appendonly", "no"),
            ],
            stdout=subprocess.DEVNULL,
        )
        for _ in range(200):
            assert self.process.poll() is None, f"redis-server ended (port {self.port} taken?)"
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            time.sleep(0.05)
        else:
            raise AssertionError("redis-server did not start")
        # Ours, not another process's that took the port in the window.
        with SyncRedis.from_url(self.url) as redis:
            found = redis.info("server")["process_id"]
        assert found == self.process.pid, f"port {self.port} was taken by another server"

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server on PATH")
    server = OwnRedis()
    server.start()
    yield server
    server.stop()


async def test_redis_going_away_and_coming_back_empty_loses_nothing(
    own_redis: OwnRedis,
) -> None:
    here, there = LiveLayer(redis_url=own_redis.url), LiveLayer(redis_url=own_redis.url)
    group, turn = f"project.{uuid.uuid4().hex}", uuid.uuid4().hex
    try:
        await here.group_add(group, await here.new_channel())
        following = await there.new_channel()
        await there.group_add(group, following)
        await here.group_send(group, _events(turn, 1))
        await here.drain()
        assert _seqs(await asyncio.wait_for(there.receive(following), WAIT)) == [1]

        own_redis.stop()
        own_redis.start()  # with nothing in it: no log, no listeners
        # Sent before the other process has subscribed again: logged, not published.
        await here.group_send(group, _events(turn, 2))
        await here.drain()
        live: list[int] = []
        while (heard := await asyncio.wait_for(there.receive(following), WAIT))["type"] != (
            "turn.resync"
        ):
            live += _seqs(heard)  # only if it subscribed again before batch 2 went
        missed = await there.since(turn, 1)  # what a tab does on `turn.resync`
        await here.group_send(group, _events(turn, 3))
        await here.drain()
        after = await asyncio.wait_for(there.receive(following), WAIT)
    finally:
        await here.close()
        await there.close()

    assert heard == {"type": "turn.resync", "group": group}
    assert missed is not None
    assert 2 in live + [item["seq"] for item in missed]
    assert _seqs(after) == [3]
