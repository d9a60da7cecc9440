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
or cancelled by the server. The websocket side's one layer (builtit.sockets)
calls these functions.
"""

from __future__ import annotations

import logging
from typing import Any, Final, Literal, NamedTuple

from django.conf import settings

from chat.live.closing import Close
from chat.live.socket_counts import Place, SocketCounts, socket_counts
from common.addresses import address_counted_as

logger = logging.getLogger(__name__)


class Held(NamedTuple):
    """A socket's place, and the counts to give it back to."""

    counts: SocketCounts
    place: Place


# A socket that holds no place (no bound, or its address not known).
UNCOUNTED: Final = "uncounted"


async def place_take(scope: dict[str, Any]) -> Held | Literal["uncounted"] | None:
    """A place for the socket of `scope` (its `client` already the visitor's),
    UNCOUNTED when none is counted, or None: its address holds all it may.
    A place taken is given back with `place_give_back` when the socket's
    application ends, however it ends (builtit.sockets: `finally`)."""
    limit = int(settings.BUILTIT_MAX_SOCKETS_PER_ADDRESS)
    client = scope.get("client")
    address = address_counted_as(str(client[0])) if client else None
    if limit <= 0 or address is None:
        return UNCOUNTED
    counts = socket_counts()
    place = await counts.take(address, limit)
    if place is None:
        logger.info("Refused a chat socket from %s: it holds %d already", address, limit)
        return None
    return Held(counts, place)


async def place_give_back(held: Held) -> None:
    await held.counts.give_back(held.place)


async def refused(receive: Any, send: Any) -> None:
    """Accepted, to be closed with a code the page explains."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": Close.TOO_MANY_SOCKETS})
