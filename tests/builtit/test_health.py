"""`/healthz`: a load balancer asks whether this process reaches the
database and the channel layer; no sign-in needed, nothing cached."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from channels.layers import get_channel_layer
from django.conf import settings
from django.test import AsyncClient, Client
from pytest_django.fixtures import Settings as SettingsWrapper
from redis.asyncio import Redis

from chat.live import layer as layer_module
from chat.live import turns
from chat.live.layer import LiveLayer, close_layer
from chat.live.relay import Relay

pytestmark = pytest.mark.django_db


def test_a_healthy_process_says_ok_without_a_session(client: Client) -> None:
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}
    assert "no-cache" in answer["Cache-Control"]


def test_an_unreachable_channel_layer_is_a_503_that_says_which(
    client: Client, settings: SettingsWrapper
) -> None:
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "chat.live.layer.LiveLayer",
            "CONFIG": {"redis_url": "redis://127.0.0.1:9/0"},
        }
    }
    answer = client.get("/healthz")
    assert answer.status_code == 503
    assert answer.json()["channel_layer"] == "down"
    assert answer.json()["database"] == "ok"


def test_a_process_shutting_down_is_a_503_draining(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "_PROCESS", turns._Process(accepting=False))
    answer = client.get("/healthz")
    assert answer.status_code == 503
    assert answer.json() == {"status": "draining"}


async def _cut(relay: Relay) -> None:
    """Redis drops the relay's subscription connection, as when it restarts."""
    assert relay._pubsub is not None
    assert relay._pubsub.connection is not None
    host, port = relay._pubsub.connection._writer.get_extra_info("sockname")[:2]
    async with Redis.from_url(settings.BUILTIT_LIVE_REDIS_URL) as redis:
        assert await redis.client_kill_filter(addr=f"{host}:{port}") == 1


@pytest.mark.skipif(not settings.BUILTIT_LIVE_REDIS_URL, reason="needs Redis: make test-services")
@pytest.mark.django_db(transaction=True)
async def test_a_process_whose_redis_subscription_broke_is_a_503_until_it_hears_again(
    async_client: AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(layer_module, "RETRY_FIRST", 0.001)
    layer = get_channel_layer()
    assert isinstance(layer, LiveLayer)
    try:
        tab = await layer.new_channel()
        group = f"project.{uuid.uuid4().hex}"
        await layer.group_add(group, tab)
        relay = layer._remote().relay  # type: ignore[union-attr]
        # Redis takes the subscriptions again only once the test says so.
        back = asyncio.Event()
        subscribe = relay.subscribe

        async def subscribe_once_back(channel: str) -> bool:
            await back.wait()
            return await subscribe(channel)

        monkeypatch.setattr(relay, "subscribe", subscribe_once_back)
        lost = asyncio.Event()
        on_lost = relay.on_lost

        def noticed() -> None:
            on_lost()
            lost.set()

        relay.on_lost = noticed
        assert (await async_client.get("/healthz")).status_code == 200

        await _cut(relay)
        await asyncio.wait_for(lost.wait(), 10)

        answer = await async_client.get("/healthz")
        assert answer.status_code == 503
        assert answer.json()["channel_layer"] == "resubscribing"
        back.set()
        assert await asyncio.wait_for(layer.receive(tab), 10) == {
            "type": "turn.resync",
            "group": group,
        }
        answer = await async_client.get("/healthz")
        assert answer.status_code == 200
        assert answer.json()["channel_layer"] == "ok"
    finally:
        await close_layer()
