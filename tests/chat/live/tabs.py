"""Tabs on the chat socket, as a browser opens them: a session cookie, an Origin,
channels' WebsocketCommunicator on the real ASGI application."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client

from builtit.asgi import application
from chat.live import turns
from projects.models import Project

ORIGIN = "http://localhost"
HOST = "localhost"
# Longer than any scripted turn that is meant to finish; shorter than a hang.
TURN_TIMEOUT = 15.0


@sync_to_async
def session_cookie(user: User) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def socket_path(project: Project | str, *, as_json: bool = True, query: str = "") -> str:
    project_id = project.pk if isinstance(project, Project) else project
    params = "&".join(part for part in ("format=json" if as_json else "", query) if part)
    return f"/ws/projects/{project_id}/chat/" + (f"?{params}" if params else "")


async def communicator(
    path: str, *, user: User | None = None, origin: str | None = ORIGIN, host: str = HOST
) -> WebsocketCommunicator:
    """A tab of the page at `host` (as a browser sends it), from `origin`."""
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if user is not None:
        headers.append((b"cookie", f"sessionid={await session_cookie(user)}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


@asynccontextmanager
async def opened(
    project: Project, user: User, *, as_json: bool = True, query: str = ""
) -> AsyncIterator[WebsocketCommunicator]:
    """A connected socket on `project` as `user`, disconnected afterwards."""
    socket = await communicator(socket_path(project, as_json=as_json, query=query), user=user)
    # Channels' own bound is a second, which a connect on a busy machine (a
    # session read, the project and role query) outlasted: a hang still fails.
    connected, _ = await socket.connect(timeout=TURN_TIMEOUT)
    assert connected, "the socket was refused"
    try:
        yield socket
    finally:
        await socket.disconnect()


async def send(socket: WebsocketCommunicator, **frame: Any) -> None:
    await socket.send_to(text_data=json.dumps(frame))


async def next_event(socket: WebsocketCommunicator, timeout: float = TURN_TIMEOUT) -> Any:
    return json.loads(await socket.receive_from(timeout=timeout))


async def events_until(
    socket: WebsocketCommunicator, kind: str, timeout: float = TURN_TIMEOUT
) -> list[dict[str, Any]]:
    """JSON events up to and including the first of type `kind`."""
    received: list[dict[str, Any]] = []

    async def collect() -> None:
        while not received or received[-1]["type"] != kind:
            received.append(await next_event(socket, timeout))

    await asyncio.wait_for(collect(), timeout)
    return received


async def frames_until(
    socket: WebsocketCommunicator, needle: str, timeout: float = TURN_TIMEOUT
) -> list[str]:
    """HTML frames up to and including the first that contains `needle`."""
    received: list[str] = []

    async def collect() -> None:
        while not received or needle not in received[-1]:
            received.append(await socket.receive_from(timeout=timeout))

    await asyncio.wait_for(collect(), timeout)
    return received


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


async def settled() -> None:
    """What a socket test's event loop must see finish before it closes: every
    turn of this process. The channel layer is closed after it
    (tests/chat/live/conftest.py) and dropped after every test (tests/conftest.py)."""
    await asyncio.wait_for(turns.wait_all(), 60)
