"""A consumer's messages, from its socket and from the channel layer, handed
to its handlers one at a time, with one trip round the event loop each.

Channels' `await_many_dispatch` makes a task per message it waits for and
waits on them with `asyncio.wait`: a message put on the layer reaches its
handler three event-loop iterations later (the receiving task wakes, it ends,
the waiter wakes). On a busy server every iteration is long, so each of them
is latency for every frame of every tab (bench/ws_fanout.py). Here each
source is pumped by a long-lived task of its own (the first by the caller's);
a lock keeps handlers one at a time, as Channels does.
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
    """Until a handler raises (StopConsumer when the socket closes), which is re-raised.

    The first source is pumped by the calling task itself and the others by a
    task each: an idle socket keeps one task fewer (bench/ws_fanout.py --idle)."""
    one_at_a_time = asyncio.Lock()
    caller = asyncio.current_task()
    failed: list[BaseException] = []

    async def pump(receive: Callable[[], Awaitable[Message]]) -> None:
        while True:
            message = await receive()
            async with one_at_a_time:
                await dispatch(message)

    def ended(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None and caller is not None:
            failed.append(task.exception())  # type: ignore[arg-type]
            caller.cancel()

    others = [asyncio.ensure_future(pump(source)) for source in sources[1:]]
    for other in others:
        other.add_done_callback(ended)
    try:
        await pump(sources[0])
    except asyncio.CancelledError:
        if failed:
            raise failed[0] from None
        raise
    finally:
        for other in others:
            other.remove_done_callback(ended)
            other.cancel()
        await asyncio.gather(*others, return_exceptions=True)
