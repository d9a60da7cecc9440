"""One address holds no more than BUILTIT_MAX_SOCKETS_PER_ADDRESS chat sockets:
the next is accepted and closed with a code the page explains; a place is
given back when its socket closes, fails or is cancelled; the address is the
one the edge decided (the proxy's entry of X-Forwarded-For, an IPv6 /64 as
one). With Redis (`make test-services`) the count is shared by every process
and a dead process's places lapse. Real ASGI app, WebsocketCommunicator."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings as SettingsWrapper

from builtit.sockets import ChatSockets
from chat.access_tokens import NewToken, token_create
from chat.live.closing import Close, for_the_page
from chat.live.socket_counts import RedisCounts, close_socket_counts, socket_counts
from projects.models import Project
from tests.chat.live.tabs import communicator, socket_path

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 2


@pytest.fixture(autouse=True)
async def _bounded(settings: SettingsWrapper) -> AsyncIterator[None]:
    settings.BUILTIT_MAX_SOCKETS_PER_ADDRESS = LIMIT
    settings.BUILTIT_TRUSTED_PROXIES = 1  # the visitor is the entry our proxy added
    yield
    await close_socket_counts()


def addresses() -> tuple[str, str]:
    """Two addresses of this run's own: a run of the suite elsewhere, on the
    same Redis, counts others."""
    network = random.randrange(1 << 16)
    return f"2001:db8:{network:x}:1::5", f"2001:db8:{network:x}:2::5"


async def tab(project: Project, user: User, forwarded: str) -> WebsocketCommunicator:
    socket = await communicator(socket_path(project), user=user)
    socket.scope["headers"].append((b"x-forwarded-for", forwarded.encode()))
    return socket


async def opens(socket: WebsocketCommunicator) -> bool:
    """Whether the socket opened and stays open (a refused one is accepted,
    then closed with Close.TOO_MANY_SOCKETS)."""
    connected, _ = await socket.connect()
    assert connected
    # A refusal's close is sent with its accept, before connect() returns.
    if await socket.receive_nothing(timeout=0.05, interval=0.01):
        return True
    closing = await socket.receive_output()
    if closing["type"] != "websocket.close":  # the page's opening frames: open
        return True
    assert closing["code"] == Close.TOO_MANY_SOCKETS
    return False


async def test_the_next_socket_past_the_bound_is_closed_with_words_for_the_page(
    project: Project, user: User
) -> None:
    mine, neighbour = addresses()
    first, second = await tab(project, user, mine), await tab(project, user, mine)
    assert await opens(first)
    assert await opens(second)
    assert not await opens(await tab(project, user, mine))
    # What the client wrote to the left of our proxy's entry changes nothing.
    assert not await opens(await tab(project, user, f"198.51.100.1, {mine}"))
    # Another address of the same /64: the same customer.
    assert not await opens(await tab(project, user, mine.replace("::5", "::6")))
    assert await opens(await tab(project, user, neighbour))
    # A place is given back when its socket closes.
    await first.disconnect()
    third = await tab(project, user, mine)
    assert await opens(third)
    await second.disconnect()
    await third.disconnect()
    # The page is given the words for the code (chat/connection.js shows them).
    reasons = for_the_page()["reasons"]
    assert isinstance(reasons, dict)
    assert reasons[str(Close.TOO_MANY_SOCKETS)].startswith("Too many Built-It tabs are open")


async def failing(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    raise RuntimeError("a consumer's bug")


async def held_open(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    await asyncio.Event().wait()


def through_the_edge(app: Any, address: str, token: str) -> WebsocketCommunicator:
    """`app` behind the websocket side's one layer, as a script signed in with `token`."""
    headers = [
        (b"x-forwarded-for", address.encode()),
        (b"authorization", f"Bearer {token}".encode()),
    ]
    return WebsocketCommunicator(ChatSockets(app), "/ws/", headers=headers)


async def test_a_place_is_given_back_when_its_socket_fails_or_is_cancelled(user: User) -> None:
    mine, _ = addresses()
    made = await sync_to_async(token_create)(user=user, name="script")
    assert isinstance(made, NewToken)
    token = made.secret
    for _ in range(LIMIT + 1):  # each failure gives its place back
        broken = through_the_edge(failing, mine, token)
        await broken.send_input({"type": "websocket.connect"})
        assert (await broken.receive_output())["type"] == "websocket.accept"
        with pytest.raises(RuntimeError):
            await broken.wait()
    for _ in range(LIMIT + 1):  # as does the server cancelling one (a shutdown)
        cancelled = through_the_edge(held_open, mine, token)
        assert (await cancelled.connect())[0]
        cancelled.future.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled.future
    held = [through_the_edge(held_open, mine, token) for _ in range(LIMIT)]
    for socket in held:
        assert await opens(socket)
    assert not await opens(through_the_edge(held_open, mine, token))
    for socket in held:
        await socket.disconnect()


async def test_a_socket_without_a_known_address_is_not_counted(
    project: Project, user: User
) -> None:
    """No peer (a Unix socket without a proxy's header): no address to bound."""
    sockets = [await communicator(socket_path(project), user=user) for _ in range(LIMIT + 1)]
    for socket in sockets:
        assert await opens(socket)
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.skipif(not settings.BUILTIT_LIVE_REDIS_URL, reason="needs Redis: make test-services")
async def test_with_redis_every_process_counts_and_a_dead_ones_places_lapse() -> None:
    mine, _ = addresses()
    url = settings.BUILTIT_LIVE_REDIS_URL
    first, second = RedisCounts(url, lapse=1.0, renew=0.2), RedisCounts(url, lapse=1.0)
    try:
        held = [await first.take(mine, LIMIT), await second.take(mine, LIMIT)]
        assert all(held)
        assert await first.take(mine, LIMIT) is None
        assert await second.take(mine, LIMIT) is None
        # The first renews its place; the second, as if its process died, does not.
        await asyncio.sleep(1.5)
        assert await first.take(mine, LIMIT) is not None
        assert await second.take(mine, LIMIT) is None
    finally:
        await first.aclose()
        await second.aclose()


async def test_the_count_is_the_loops_own() -> None:
    """Redis when the deployment has it, this process's own count otherwise."""
    counts = socket_counts()
    assert isinstance(counts, RedisCounts) == bool(settings.BUILTIT_LIVE_REDIS_URL)
