"""The websocket side's one layer in front of the routes: the visitor's
address, who they are, and whether their address may hold one more socket.

Each rule is a plain function in its own module (builtit.server.client_address,
chat.live.socket_auth, chat.live.socket_limit), called here in one coroutine
with one copy of the scope: a layer each would keep its own suspended coroutine
and, for two of them, their own copy of the scope for every open socket, and
add a call to every connect (bench/README.md: "A connect without queries").
Pages go through `ClientAddress` alone (builtit.asgi)."""

from __future__ import annotations

from typing import Any

from channels.security.websocket import WebsocketDenier

from builtit.server.client_address import scope_client
from chat.live.socket_auth import socket_signed_in
from chat.live.socket_limit import Held, place_give_back, place_take, refused


class ChatSockets:
    """ASGI middleware in front of the chat socket's routes."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        signed_in = await socket_signed_in(scope)
        if signed_in is None:
            return await WebsocketDenier()(scope, receive, send)
        scope = {**scope, "client": scope_client(scope), **signed_in}
        held = await place_take(scope)
        if held is None:
            return await refused(receive, send)
        if not isinstance(held, Held):  # UNCOUNTED
            return await self.inner(scope, receive, send)
        try:
            return await self.inner(scope, receive, send)
        finally:
            await place_give_back(held)
