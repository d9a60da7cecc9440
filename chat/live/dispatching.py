"""A consumer's messages, from its socket and from the channel layer, handed
to its handlers one at a time, with one trip round the event loop each.

Channels' `await_many_dispatch` makes a task per message it waits for and
waits on them with `asyncio.wait`: a message put on the layer reaches its
handler three event-loop iterations later (the receiving task wakes, it ends,
the waiter wakes). On a busy server every iteration is long, so each of them
is latency for every frame of every tab (bench/ws_fanout.py). Here a
long-lived task per source receives and dispatches itself; a lock keeps
handlers one at a time, as Channels does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

Message = dict[str, Any]


async def dispatch_all(
    sources: list[Callable[[], Awaitable[Message]]],
    dispatch: Callable[[Message], Awaitable[None]],
) -> None:
    """Until a handler raises (StopConsumer when the socket closes), which is re-raised."""
    one_at_a_time = asyncio.Lock()

    async def pump(receive: Callable[[], Awaitable[Message]]) -> None:
        while True:
            message = await receive()
            async with one_at_a_time:
                await dispatch(message)

    pumps = [asyncio.ensure_future(pump(source)) for source in sources]
    try:
        done, _ = await asyncio.wait(pumps, return_when=asyncio.FIRST_EXCEPTION)
        for finished in done:
            finished.result()
    finally:
        for running in pumps:
            running.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)
