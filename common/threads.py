"""Running the synchronous ORM and file service from an event loop (the agent's
turns, the chat's sockets).

One small pool of threads, not asgiref's `sync_to_async`: a tool that hangs
must be abandoned when its timeout passes, and `sync_to_async` waits for the
thread even when cancelled or timed out.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import ParamSpec, TypeVar

from django.db import close_old_connections

logger = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")

# Enough for a few turns' concurrent reads; each thread holds one database connection.
_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="builtit-chat")


def start(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[T]:
    """Start `fn` in a pool thread; the future can be awaited, waited on with a
    timeout, or abandoned (the thread then finishes on its own)."""
    return asyncio.get_running_loop().run_in_executor(_POOL, partial(_job, fn, *args, **kwargs))


async def run(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """Run `fn` in a pool thread. If the caller is cancelled meanwhile, the
    database work still finishes (never half-recorded) before the cancellation
    goes on."""
    future = start(fn, *args, **kwargs)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait({future})
        raise


def _job(fn: Callable[..., T], *args: object, **kwargs: object) -> T:
    # As Channels' database_sync_to_async does: a pool thread keeps its own
    # connection, which must not outlive CONN_MAX_AGE or a dropped server.
    close_old_connections()
    try:
        return fn(*args, **kwargs)
    finally:
        close_old_connections()


class Background:
    """A few threads of their own for work that follows a request (mail to
    send once the visitor has their answer): the request never waits for it,
    the chat's pool is never taken by it, and at most `pending` jobs wait."""

    def __init__(self, *, name: str, workers: int, pending: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._room = threading.BoundedSemaphore(pending)

    def submit(self, fn: Callable[P, object], /, *args: P.args, **kwargs: P.kwargs) -> bool:
        """Start `fn` later; False (nothing started) when `pending` jobs already wait."""
        if not self._room.acquire(blocking=False):
            return False
        future = self._pool.submit(partial(_job, fn, *args, **kwargs))
        future.add_done_callback(self._done)
        return True

    def _done(self, future: Future[object]) -> None:
        self._room.release()
        error = future.exception()
        if error is not None:
            # A bug: nobody awaits these jobs, so it would go unseen.
            logger.error("A background job failed", exc_info=error)
