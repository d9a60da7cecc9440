"""The chat socket's one layer finds the route the path names, as Channels'
URLRouter did in its place: the route's arguments in `url_route`, the one
scope the application gets carrying them beside who is asking; a path no
route names fails as URLRouter's did. Real ASGI app, WebsocketCommunicator."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.urls import path

from builtit.sockets import ChatSockets
from chat.access_tokens import NewToken, token_create

pytestmark = pytest.mark.django_db(transaction=True)

SEEN: list[dict[str, Any]] = []


async def shown(scope: dict[str, Any], receive: Any, send: Any) -> None:
    SEEN.append(scope)
    await receive()
    await send({"type": "websocket.accept"})
    await receive()


ROUTES = [path("ws/projects/<uuid:project_id>/chat/", shown, {"kind": "chat"})]  # type: ignore[arg-type]


async def _token(user: User) -> bytes:
    made = await sync_to_async(token_create)(user=user, name="script")
    assert isinstance(made, NewToken)
    return f"Bearer {made.secret}".encode()


async def test_the_route_the_path_names_gets_its_arguments_and_who_asks(user: User) -> None:
    project_id = uuid.uuid4()
    headers = [(b"authorization", await _token(user))]
    socket = WebsocketCommunicator(
        ChatSockets(ROUTES), f"/ws/projects/{project_id}/chat/", headers=headers
    )
    SEEN.clear()

    assert (await socket.connect())[0]
    await socket.disconnect()

    (scope,) = SEEN
    assert scope["url_route"] == {"args": (), "kwargs": {"project_id": project_id, "kind": "chat"}}
    assert scope["path_remaining"] == ""
    assert scope["user"].pk == user.pk


async def test_a_path_no_route_names_fails_as_channels_router_did(user: User) -> None:
    headers = [(b"authorization", await _token(user))]
    socket = WebsocketCommunicator(ChatSockets(ROUTES), "/ws/projects/nope/chat/", headers=headers)

    with pytest.raises(ValueError, match="No route found for path"):
        await socket.connect()
