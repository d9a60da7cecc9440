"""Work a turn leaves running beside its tool calls (DESIGN §6, point 12).

A tool may answer at once and hand the loop slower work to finish in the
background (check_site: a check of the whole site). The work runs in a pool
thread, tracked here from its start to its end: its result reaches the model
in its next round (chat.agent.loop), or, when no round is left, the turn's
end. A stopped turn cancels it: the work is told (a threading.Event it
polls) and awaited, so none outlives its turn.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from chat.llm import ChatMessage
from common.jsontypes import JSONObject

logger = logging.getLogger(__name__)

# Work the tool handed over: given an Event set when the turn stops.
Work = Callable[[threading.Event], JSONObject]
T = TypeVar("T")

# Slow work (a site check waits for a worker process, then for it: up to 40 s)
# runs on threads of its own, never the pool turns store and run tools on.
_APART = ThreadPoolExecutor(max_workers=4, thread_name_prefix="builtit-background")


async def run_apart(work: Callable[[threading.Event], T], stop: threading.Event) -> T:
    """`work(stop)` on a thread of its own; cancelled, it sets `stop` and waits
    for the work to notice (a site check looks every tenth of a second)."""
    future = asyncio.get_running_loop().run_in_executor(_APART, work, stop)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        stop.set()
        await asyncio.wait({future})
        raise


@dataclass(frozen=True)
class Finished:
    call_id: str
    name: str
    result: JSONObject


@dataclass
class _Running:
    name: str
    task: asyncio.Task[JSONObject]
    stop: threading.Event


class Background:
    """One turn's background work: at most one piece at a time (a second is
    refused while the first runs; its answer says which)."""

    def __init__(self) -> None:
        self._running: dict[str, _Running] = {}
        self._finished: list[Finished] = []
        self.last: Finished | None = None  # the latest to finish, handed on or not

    def busy(self) -> str | None:
        """The call whose work is still running, if any."""
        for call_id, running in self._running.items():
            if not running.task.done():
                return call_id
        return None

    def start(self, call_id: str, name: str, work: Work) -> None:
        stop = threading.Event()
        task = asyncio.create_task(run_apart(work, stop))
        self._running[call_id] = _Running(name, task, stop)

    def take_finished(self) -> list[Finished]:
        """Results not handed on yet, in the order their calls were made."""
        for call_id, running in list(self._running.items()):
            if running.task.done():
                del self._running[call_id]
                self.last = Finished(call_id, running.name, _result(running.task))
                self._finished.append(self.last)
        taken, self._finished = self._finished, []
        return taken

    def notes(self) -> list[ChatMessage]:
        """What finished, as notes for the model's next request."""
        return [
            ChatMessage.system(
                f"Your {done.name} (call {done.call_id}) has finished in the background. "
                f"Its result: {json.dumps(done.result, ensure_ascii=False)}"
            )
            for done in self.take_finished()
        ]

    async def settle(self, seconds: float) -> None:
        """Wait up to `seconds` for what still runs (the turn is ending)."""
        tasks = [running.task for running in self._running.values()]
        if tasks:
            await asyncio.wait(tasks, timeout=seconds)

    async def cancel(self) -> None:
        """The turn stops: tell every piece of work, and wait for each to end."""
        for running in self._running.values():
            running.stop.set()
        tasks = [running.task for running in self._running.values()]
        if tasks:
            await asyncio.wait(tasks)
        self._running.clear()


def _result(task: asyncio.Task[JSONObject]) -> JSONObject:
    if task.cancelled():
        return {"success": False, "error": "It was stopped before it finished."}
    error = task.exception()
    if error is not None:
        logger.error("Background work failed", exc_info=error)
        return {"success": False, "error": "It failed because of an internal error (logged)."}
    return task.result()
