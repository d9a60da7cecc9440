"""The websocket side's one layer in front of the chat socket: the visitor's
address, who they are, whether their address may hold one more socket, and
which route the path names.

Each rule is a plain function in its own module (builtit.server.client_address,
chat.live.socket_auth, chat.live.socket_limit), called here in one coroutine
with one copy of the scope: a layer each would keep its own suspended coroutine
and, for two of them, their own copy of the scope for every open socket, and
add a call to every connect (bench/README.md: "A connect without queries").
The routes (builtit.routing) are matched here too, as Channels' `URLRouter`
matches them, for the same reason: the router was one more suspended coroutine
and one more copy of the scope a socket (bench/README.md: "Memory a socket").
Pages go through `ClientAddress` alone (builtit.asgi)."""

from __future__ import annotations

from typing import Any

from channels.security.websocket import WebsocketDenier
from django.urls import URLPattern

from builtit.server.client_address import scope_client
from chat.live.socket_auth import socket_signed_in
from chat.live.socket_limit import Held, place_give_back, place_take, refused


class ChatSockets:
    """ASGI application for the chat socket's routes."""

    def __init__(self, routes: list[URLPattern]) -> None:
        self.routes = routes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        signed_in = await socket_signed_in(scope)
        if signed_in is None:
            return await WebsocketDenier()(scope, receive, send)
        application, path_remaining, url_route = self._route(scope)
        scope = {
            **scope,
            "client": scope_client(scope),
            **signed_in,
            "path_remaining": path_remaining,
            "url_route": url_route,
        }
        held = await place_take(scope)
        if held is None:
            return await refused(receive, send)
        if not isinstance(held, Held):  # UNCOUNTED
            return await application(scope, receive, send)
        try:
            return await application(scope, receive, send)
        finally:
            await place_give_back(held)

    def _route(self, scope: dict[str, Any]) -> tuple[Any, str, dict[str, Any]]:
        """The application the path names, what is left of the path, and the
        route's arguments, as Channels' outermost `URLRouter` finds them."""
        path = scope["path"]
        root_path = scope.get("root_path", "")
        if root_path and not path.startswith(root_path):
            raise ValueError(f"No route found for path {path!r}.")
        path = path[len(root_path) :].lstrip("/")
        for route in self.routes:
            match = route.pattern.match(path)
            if match:
                path_remaining, args, kwargs = match
                kwargs.update(route.default_args)
                return route.callback, path_remaining, {"args": args, "kwargs": kwargs}
        raise ValueError(f"No route found for path {path!r}.")
