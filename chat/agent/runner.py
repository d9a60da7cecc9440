"""Running the model's tool calls as they arrive (DESIGN §6, steps 3 and 5).

Each call starts as soon as the loop submits it, while the answer may still be
streaming. Read-only calls run side by side; a writing call waits for every
call before it, and every call waits for the writes before it, so the model's
order is kept where it matters. Whatever happens (unknown tool, bad
arguments, an exception, a timeout) the call ends in a `ToolOutcome` the model
can read; the outcome is stored as a tool message before its event goes out.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from chat.agent.background import Background
from chat.agent.events import Event, FilesChanged, ToolExecuting, ToolResultEvent
from chat.agent.read_cache import Earlier, ReadCache, cached_outcome, canonical_arguments
from chat.agent.recorder import TurnRecorder
from chat.llm import ToolCall
from chat.tools import Tool, ToolContext, ToolOutcome, ToolRegistry
from common import threads
from common.jsontypes import NOT_JSON, decoded
from projects import selectors
from projects.models import Project
from projects.services import Author

logger = logging.getLogger(__name__)

_WARN_AT = 3  # the same call, arguments and result: told it is repeating itself
# Calls whose result is what they read, and so may stand for a later one.
_READS = frozenset({"list", "read", "search"})
_STOP_AT = 4  # and then the turn ends


@dataclass(frozen=True)
class Executed:
    index: int
    call: ToolCall
    outcome: ToolOutcome
    duration_ms: float
    content: str  # the result as JSON text: the tool message stored and sent back


class RepeatCounter:
    """Counts identical (call, arguments, result) triples within one turn."""

    def __init__(self) -> None:
        self._seen: Counter[tuple[str, str, str]] = Counter()
        self._lock = threading.Lock()

    def count(self, call: ToolCall, outcome: ToolOutcome, *, result: str | None = None) -> int:
        """`result`: what to count the outcome as (an earlier call's, for a read
        answered from it: the same call with the same result, again)."""
        result = result or json.dumps(outcome.result, sort_keys=True)
        key = (call.name, canonical_arguments(call.arguments), result)
        with self._lock:
            self._seen[key] += 1
            return self._seen[key]


class ToolRunner:
    def __init__(
        self,
        *,
        registry: ToolRegistry,
        project: Project,
        recorder: TurnRecorder,
        known_versions: dict[str, int],
        emit: Callable[[Event | RoundDone], None],
        timeout: float,
        max_calls: int = 30,
        may_change_instructions: bool = False,
    ) -> None:
        self._registry = registry
        self._project = project
        self._recorder = recorder
        self.known_versions = known_versions
        self._emit = emit
        self._timeout = timeout
        self._max_calls = max_calls
        self._may_change_instructions = may_change_instructions
        self._repeats = RepeatCounter()
        self._reads = ReadCache()
        self.background = Background()
        self._author = Author.assistant()
        self._tasks: list[asyncio.Task[Executed]] = []
        self._last_write: asyncio.Task[Executed] | None = None
        self._since_write: list[asyncio.Task[Executed]] = []
        self._closed = False
        self.stuck = False

    def begin_round(self, *, author: Author) -> None:
        """A new assistant message, whose calls `author` makes."""
        self._author = author
        self._tasks = []
        self._last_write = None
        self._since_write = []
        self._closed = False

    def submit(self, call: ToolCall, *, sequence: int) -> None:
        """Run `call`; its result is stored at `sequence` (reserved by the recorder)."""
        if len(self._tasks) >= self._max_calls:
            # Past the bound on one answer: answered, not run, so the model learns.
            task = asyncio.create_task(self._refuse(len(self._tasks), sequence, call))
            task.add_done_callback(self._maybe_done)
            self._tasks.append(task)
            return
        tool = self._registry.get(call.name)
        writes = tool is not None and tool.writes
        waits_for = [self._last_write] if self._last_write else []
        if writes:
            waits_for += self._since_write
        task = asyncio.create_task(self._run(len(self._tasks), sequence, call, tool, waits_for))
        task.add_done_callback(self._maybe_done)
        self._tasks.append(task)
        if writes:
            self._last_write, self._since_write = task, []
        else:
            self._since_write.append(task)

    def close_round(self) -> None:
        """No more calls this round; `RoundDone` is emitted once all have finished."""
        self._closed = True
        self._maybe_done()

    def results(self) -> list[Executed]:
        """The round's finished calls, in call order (all of them after `RoundDone`)."""
        return [
            task.result()
            for task in self._tasks
            if task.done() and not task.cancelled() and task.exception() is None
        ]

    async def abandon(self) -> None:
        """Cancel what has not finished; a write already under way completes first,
        and work left running in the background is stopped."""
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks)
        await self.background.cancel()

    async def _run(
        self,
        index: int,
        sequence: int,
        call: ToolCall,
        tool: Tool[Any] | None,
        waits_for: list[asyncio.Task[Executed]],
    ) -> Executed:
        if waits_for:
            await asyncio.wait(waits_for)
        self._emit(ToolExecuting(call.id, call.name))
        started = time.perf_counter()
        outcome, earlier = await self._read_or_run(call, tool)
        duration_ms = (time.perf_counter() - started) * 1000
        outcome = self._check_repeats(call, outcome, earlier)
        outcome = self._leave_running(call, outcome)
        for path, version in outcome.seen.items():
            if version is None:
                self.known_versions.pop(path, None)
            else:
                self.known_versions[path] = version
        content = json.dumps(outcome.result, ensure_ascii=False)
        await self._store_safely(sequence, call, outcome, content, duration_ms)
        self._emit(
            ToolResultEvent(
                call.id,
                call.name,
                outcome.ok,
                outcome.summary,
                outcome.result,
                round(duration_ms, 2),
                outcome.path,
            )
        )
        if outcome.changed:
            self._emit(FilesChanged(outcome.changed))
        return Executed(index, call, outcome, duration_ms, content)

    async def _read_or_run(
        self, call: ToolCall, tool: Tool[Any] | None
    ) -> tuple[ToolOutcome, Earlier | None]:
        """A read made again on unchanged files is answered from the earlier one
        (chat.agent.read_cache), which it names; anything else runs."""
        if tool is None or tool.category not in _READS:
            outcome = await self._outcome(call, tool)
            self._reads.forget(outcome.changed)
            return outcome, None
        stamps = await threads.run(selectors.file_stamps, self._project)
        earlier = self._reads.earlier(call, stamps)
        if earlier is not None:
            return cached_outcome(earlier), earlier
        outcome = await self._outcome(call, tool)
        self._reads.remember(call, outcome, stamps)
        return outcome, None

    def _leave_running(self, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        """Start the work a call hands over (chat.agent.background), one at a time."""
        work = outcome.background
        if work is None:
            return outcome
        running = self.background.busy()
        if running is not None:
            return ToolOutcome.failure(
                f"Not started: the {call.name} of call {running} is still running, and its "
                "result comes in your next round. Carry on meanwhile.",
                summary="Not started: one is already running",
                context={"code": "already_running", "call": running},
            )
        self.background.start(call.id, call.name, work)
        return replace(outcome, background=None)

    async def _refuse(self, index: int, sequence: int, call: ToolCall) -> Executed:
        outcome = ToolOutcome.failure(
            f"Not run: one answer may make at most {self._max_calls} tool calls. "
            "Make the remaining changes in your next answer, a few calls at a time.",
            summary="Not run: too many calls in one answer",
            context={"code": "too_many_calls", "limit": self._max_calls},
        )
        content = json.dumps(outcome.result, ensure_ascii=False)
        await self._store_safely(sequence, call, outcome, content, 0.0)
        self._emit(ToolResultEvent(call.id, call.name, False, outcome.summary, outcome.result, 0.0))
        return Executed(index, call, outcome, 0.0, content)

    async def _outcome(self, call: ToolCall, tool: Tool[Any] | None) -> ToolOutcome:
        if tool is None:
            return self._registry.unknown(call.name)
        arguments = tool.parse(call.arguments)
        if isinstance(arguments, ToolOutcome):
            return arguments
        context = ToolContext(
            self._project,
            self._author,
            dict(self.known_versions),
            may_change_instructions=self._may_change_instructions,
        )
        work = threads.start(_guarded_handler, tool, arguments, context)
        timeout = self._timeout
        try:
            done, _ = await asyncio.wait({work}, timeout=timeout)
        except asyncio.CancelledError:
            if not tool.writes:
                raise
            # A write under way completes (or rolls back) before the turn stops,
            # and one that completed is recorded like any other.
            await asyncio.wait({work}, timeout=timeout)
            if not work.done() or work.exception() is not None:
                raise
            return work.result()
        if done:
            return work.result()
        work.add_done_callback(_consume)
        hint = (
            " It may still complete: check with read_file or list_project_files before "
            "trying again."
            if tool.writes
            else ""
        )
        return ToolOutcome.failure(
            f"{tool.name} did not finish within {timeout:g} seconds and was abandoned.{hint}",
            summary=f"Timed out after {timeout:g} s",
            context={"code": "timeout"},
        )

    def _check_repeats(
        self, call: ToolCall, outcome: ToolOutcome, earlier: Earlier | None
    ) -> ToolOutcome:
        times = self._repeats.count(call, outcome, result=earlier.result if earlier else None)
        if times < _WARN_AT:
            return outcome
        if times >= _STOP_AT:
            self.stuck = True
        return replace(
            ToolOutcome.failure(
                f"You have made this exact call {times} times in this turn and got the same "
                "result each time. Repeating it will not help: do something different, or "
                "finish and tell the person what is in the way.",
                summary=f"Repeated the same call {times} times",
                context={"code": "repeated_call", "path": outcome.path},
            ),
            seen=outcome.seen,
        )

    async def _store_safely(
        self, sequence: int, call: ToolCall, outcome: ToolOutcome, content: str, duration_ms: float
    ) -> None:
        """The result goes to the model and the person even if storing it fails
        (a locked or lost database): a call without an answer would make the
        provider refuse the next request."""
        for attempt in (1, 2):
            try:
                await threads.run(
                    self._recorder.store_tool_result,
                    sequence,
                    call=call,
                    outcome=outcome,
                    content=content,
                    ms=duration_ms,
                )
            except Exception:
                logger.exception("Could not store the result of %s (attempt %d)", call.id, attempt)
                if attempt == 1:
                    await asyncio.sleep(0.05)
            else:
                return

    def _maybe_done(self, _task: object = None) -> None:
        if self._closed and all(task.done() for task in self._tasks):
            self._closed = False  # once per round
            self._emit(RoundDone())


@dataclass(frozen=True)
class RoundDone:
    """Every call of the round has finished and been stored."""


def _guarded_handler(tool: Tool[Any], arguments: Any, context: ToolContext) -> ToolOutcome:
    try:
        return tool.handler(arguments, context)
    except Exception:
        # The model sees that the tool broke, never how: details go to the log.
        logger.exception("Tool %s failed on project %s", tool.name, context.project.pk)
        return ToolOutcome.failure(
            f"{tool.name} failed because of an internal error (it has been logged). "
            "Check the file with read_file before trying another way.",
            summary="Failed with an internal error",
            context={"code": "tool_error"},
        )


def _consume(future: asyncio.Future[ToolOutcome]) -> None:
    if not future.cancelled():
        future.exception()


def whole_calls(calls: list[ToolCall]) -> list[ToolCall]:
    """Calls up to the first whose arguments are not whole JSON yet: a provider
    that interleaves fragments of several calls may still be writing it."""
    ready = []
    for call in calls:
        if decoded(call.arguments) is NOT_JSON:
            break
        ready.append(call)
    return ready
