"""The ORM's pool thread: work run from the event loop, awaited, abandoned or finished on cancel."""

from __future__ import annotations

import asyncio
import threading

import pytest

from common import threads

# The work is framed by closing the thread's stale database connections, which
# a pool thread may hold from earlier work: that is database access.
pytestmark = pytest.mark.django_db


async def test_work_runs_in_a_pool_thread_and_returns_its_value() -> None:
    def where(prefix: str, *, end: str) -> str:
        return prefix + threading.current_thread().name + end

    said = await threads.run(where, "in ", end="!")
    assert said.startswith("in builtit-chat")
    assert said.endswith("!")
    assert threading.current_thread().name not in said


async def test_an_error_in_the_work_reaches_the_caller() -> None:
    def fails() -> None:
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        await threads.run(fails)


async def test_started_work_can_be_abandoned_when_it_takes_too_long() -> None:
    release = threading.Event()
    future = threads.start(release.wait, 5)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(asyncio.shield(future), 0.05)
    assert not future.done(), "the thread goes on on its own"
    release.set()
    assert await future is True


async def test_a_cancelled_caller_waits_for_the_work_to_finish() -> None:
    started = threading.Event()
    release = threading.Event()
    finished: list[bool] = []

    def job() -> int:
        started.set()
        release.wait(5)
        finished.append(True)
        return 1

    task = asyncio.create_task(threads.run(job))
    assert await asyncio.to_thread(started.wait, 5), "the work began"
    task.cancel()
    await asyncio.sleep(0.05)
    assert not task.done(), "still waiting for the work"
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert finished == [True], "the work was done, not half-done"
