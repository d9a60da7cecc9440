"""No address holds more than BUILTIT_MAX_SOCKETS_PER_ADDRESS chat sockets.

Each open socket holds a task, a channel and its groups on the channel layer, and
its memory, for as long as it stays open. A person opens one per tab; past the
bound the next is accepted and closed at once with Close.TOO_MANY_SOCKETS,
whose words the page shows (chat.live.closing): a refusal before accepting
would reach the page as a bare 1006, and it would retry.

The address is the visitor's as the edge decided it (builtit.server.client_address:
the entry our own proxies added to X-Forwarded-For, never one the client
wrote), an IPv6 /64 counted as one (common.addresses); a socket whose address
is not known is not counted. Counted across processes with Redis, in each
process otherwise (chat.live.socket_counts). A socket's place is given back
when its application ends, however it ends: closed by either side, failed,
or cancelled by the server.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from chat.live.closing import Close
from chat.live.socket_counts import socket_counts
from common.addresses import address_counted_as

logger = logging.getLogger(__name__)


class SocketLimit:
    """ASGI middleware in front of the chat socket's routes."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        limit = int(settings.BUILTIT_MAX_SOCKETS_PER_ADDRESS)
        client = scope.get("client")
        address = address_counted_as(str(client[0])) if client else None
        if limit <= 0 or address is None:
            return await self.inner(scope, receive, send)
        counts = socket_counts()
        place = await counts.take(address, limit)
        if place is None:
            logger.info("Refused a chat socket from %s: it holds %d already", address, limit)
            return await _refused(receive, send)
        try:
            return await self.inner(scope, receive, send)
        finally:
            await counts.give_back(place)


async def _refused(receive: Any, send: Any) -> None:
    """Accepted, to be closed with a code the page explains."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": Close.TOO_MANY_SOCKETS})
