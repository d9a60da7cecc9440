"""One user turn: the model, the tools, and everything stored as it goes (DESIGN §6).

    async for event in run_turn(TurnRequest(project, conversation, "Make a site")):
        ...   # chat.agent.events dataclasses; nothing here knows websockets or HTML

Cancelling the task that iterates (or closing the generator) stops the turn at
once: the upstream stream is closed, a write under way completes, and the turn
is recorded as stopped.

This module decides: what to ask next (a round with tools, the same once more
after an empty answer, or a last answer without them) and how the turn ends.
The turn's state is one object (chat.agent.state); each model request is made
by chat.agent.asking, its calls run by chat.agent.runner.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import replace
from decimal import Decimal

from chat.agent import budget, context, prompt
from chat.agent.asking import Asking, Queued, turn_too_long
from chat.agent.attachments import to_json as attachments_json
from chat.agent.context import Opening
from chat.agent.events import SERVER_STOPPED, Done, ErrorEvent, Event, TurnStarted
from chat.agent.failures import INTERNAL_ERROR, error_event
from chat.agent.limits import TurnLimits
from chat.agent.model_choice import choose_model
from chat.agent.opening import turn_opened
from chat.agent.recorder import TurnRecorder
from chat.agent.runner import ToolRunner
from chat.agent.site_checks import BACKGROUND_WAIT, site_checked
from chat.agent.state import Asked, Outcome, Spend, StopCause, TurnRequest, TurnState, payer_id
from chat.llm import AnswerTooSlowError, CostCapError, LLMClient, LLMError, ModelInfo
from chat.models import Message
from chat.money import money
from chat.next_steps import split_next
from chat.providers import client_for
from chat.records.turn import TurnRecord
from chat.tools import ToolRegistry, asks_to_remember, file_tools, plan_tools
from common import threads

__all__ = ["MAX_FAILED_ROUNDS", "StopCause", "TurnRequest", "run_turn"]

logger = logging.getLogger(__name__)

# Rounds in a row in which every tool call failed, before the model is asked to stop.
MAX_FAILED_ROUNDS = 3


async def run_turn(
    request: TurnRequest,
    *,
    client: LLMClient | None = None,
    tools: ToolRegistry | None = None,
    limits: TurnLimits | None = None,
    on_stopped: Callable[[Done], None] | None = None,
    stopped_by: Callable[[], StopCause] | None = None,
) -> AsyncGenerator[Event, None]:
    """The turn's events. A cancelled turn cannot yield its `done`: it is handed
    to `on_stopped` instead, once the stop has been recorded, as `stopped_by()`
    says (the person, by default)."""
    model = choose_model(request.model, request.project, personal_key=bool(request.api_key))
    # A plan turn is read-only because it is given no tool that writes: a call
    # to one is answered as an unknown tool, whatever the model was told.
    registry = tools or file_tools()
    turn = _Turn(
        request,
        client or client_for(model),
        plan_tools(registry) if request.plan else registry,
        limits or TurnLimits.for_project(request.project),
        on_stopped=on_stopped,
        stopped_by=stopped_by,
        model=model,
    )
    try:
        async with aclosing(turn.run()) as events:
            async for event in events:
                yield event
    finally:
        if (allowance := turn.state.spend.allowance) is not None:
            await allowance.release()  # already, with the closing message, unless it failed


class _Turn:
    def __init__(
        self,
        request: TurnRequest,
        client: LLMClient,
        tools: ToolRegistry,
        limits: TurnLimits,
        *,
        on_stopped: Callable[[Done], None] | None = None,
        stopped_by: Callable[[], StopCause] | None = None,
        model: str,
    ) -> None:
        self.on_stopped = on_stopped
        self.stopped_by = stopped_by
        self.client = client
        self.tools = tools
        self.state = TurnState(request, model, limits, Spend(limits))
        self.opening: Opening  # what the first request is made of (set as the turn opens)
        queue: asyncio.Queue[Queued] = asyncio.Queue()
        self.recorder = TurnRecorder(request.conversation, model, sender_id=payer_id(request))
        self.runner = ToolRunner(
            registry=tools,
            project=request.project,
            recorder=self.recorder,
            known_versions={},
            emit=queue.put_nowait,
            timeout=limits.tool_timeout,
            max_calls=limits.max_tool_calls,
            # Decided once, from what the person wrote: nothing the model reads
            # or writes during the turn can widen it.
            may_change_instructions=asks_to_remember(request.text),
        )
        self.asking = Asking(
            self.state,
            client=client,
            tools=tools,
            recorder=self.recorder,
            runner=self.runner,
            queue=queue,
        )

    async def run(self) -> AsyncGenerator[Event, None]:
        request = self.state.request
        user_message, self.opening = await threads.run(
            turn_opened, self.state, self.runner, self.recorder
        )
        yield TurnStarted(
            request.conversation.pk,
            user_message.pk,
            self.state.model,
            request.text,
            tuple(attachments_json(request.attachments)),
            request.images,
            request.plan,
            self.state.asked_by,
            self.state.asked_by_id,
        )
        outcome = Outcome()
        try:
            async with aclosing(self._work(outcome)) as events:
                async for event in events:
                    yield event
        except (asyncio.CancelledError, GeneratorExit):
            done = await asyncio.shield(self._stop())
            if self.on_stopped is not None:
                self.on_stopped(done)
            raise
        except LLMError as error:
            capped = isinstance(error, CostCapError)
            outcome.fail("cost_limit" if capped else "error", self._describe(error))
        except Exception:
            logger.exception("Turn failed in conversation %s", request.conversation.pk)
            outcome.fail("error", INTERNAL_ERROR)
        if outcome.error is not None:
            yield outcome.error
        at = await self._settle_current()
        try:
            outcome.check = await site_checked(self.state, self.runner.background)
        except asyncio.CancelledError:
            # Stopped while the site was checked: the turn's work is done, and kept.
            closing = await asyncio.shield(threads.run(self._store_closing, outcome, at))
            if self.on_stopped is not None:
                self.on_stopped(self._done(outcome, closing.pk))
            raise
        closing = await threads.run(self._store_closing, outcome, at)
        yield self._done(outcome, closing.pk)

    def _done(self, outcome: Outcome, closing_id: int | None) -> Done:
        state = self.state
        return Done(
            outcome.finish_reason,
            outcome.status,
            state.iterations,
            closing_id,
            tuple(state.files_changed),
            state.spend.usage.total_tokens,
            money(state.spend.usage.cost),
            outcome.check,
            outcome.suggestions,
        )

    # --- what to ask next --------------------------------------------------------

    async def _work(self, outcome: Outcome) -> AsyncGenerator[Event, None]:
        """Ask, run the calls, decide, until the turn has its answer or a reason
        to end."""
        self.state.spend.model_info = await self._model_info()
        fitting = context.fitted(self.state, self.opening, self.tools.specs(), self.client)
        async with aclosing(fitting) as events:
            async for event in events:
                yield event
        asked = self._first(outcome)
        while asked is not None:
            await self._hand_on_background()
            async with aclosing(self.asking.ask(asked)) as events:
                async for event in events:
                    yield event
            asked = self._next(asked, outcome)

    async def _hand_on_background(self) -> None:
        """What the last round left running (a check of the site) reaches the
        model in this round: it is waited for, within its own bound, and kept
        in the messages of every later request too."""
        background = self.runner.background
        await background.settle(BACKGROUND_WAIT)
        self.state.messages += background.notes()

    def _first(self, outcome: Outcome) -> Asked | None:
        cap = self._cost_cap_reached()
        if cap:
            outcome.fail("cost_limit", ErrorEvent("cost_limit", cap, retryable=False))
            return None
        return self._round()

    def _next(self, asked: Asked, outcome: Outcome) -> Asked | None:
        """After `asked` was answered (and its calls ran): the next request, or
        None when the turn is over."""
        if asked.bound is not None:
            raise asked.bound  # one of our bounds ended the answer: the turn too
        if not asked.tools_allowed:
            outcome.final = asked  # the last answer, without tools
            return None
        reply = asked.reply
        assert reply is not None
        if not reply.tool_calls:
            if self._answered(asked, outcome):
                return None
            self.state.empty_retried = True
            return self._round()
        if self.runner.stuck:
            # Its own words, not a cut: asked once more, without tools.
            outcome.status, outcome.finish_reason = "stopped", "stuck"
            return self._last_answer(_STUCK_REASON)
        reason = self._reason_to_stop(outcome)
        return self._last_answer(reason) if reason else self._round()

    def _round(self) -> Asked:
        """A request with tools, within the turn's time."""
        state = self.state
        if time.monotonic() >= state.deadline:
            raise AnswerTooSlowError(turn_too_long(state))
        state.iterations += 1
        last = state.iterations == state.limits.max_iterations
        return Asked(tools_allowed=True, notes=[prompt.last_round_note(1)] if last else [])

    def _last_answer(self, reason: str) -> Asked:
        """One last request without tools, so the turn ends with words, not a cut."""
        self.state.iterations += 1
        return Asked(tools_allowed=False, notes=[prompt.final_answer_note(reason)])

    def _answered(self, asked: Asked, outcome: Outcome) -> bool:
        """A reply without tool calls ends the turn, unless it is the first empty
        one and the caps leave room to ask again."""
        reply = asked.reply
        assert reply is not None
        if reply.content.strip():
            outcome.finish_reason = "length" if reply.finish_reason == "length" else "stop"
            outcome.final = asked
            return True
        self.state.spend.unstored_cost += (reply.usage and reply.usage.cost) or Decimal(0)
        if self.state.empty_retried:
            outcome.fail("empty", _EMPTY)
            return True
        cap = self._cost_cap_reached()  # asked again only within the caps
        if cap:
            outcome.fail("cost_limit", ErrorEvent("cost_limit", cap, retryable=False))
        return cap is not None

    def _reason_to_stop(self, outcome: Outcome) -> str | None:
        state = self.state
        cap = self._cost_cap_reached()
        if cap:
            outcome.finish_reason = "cost_limit"
            outcome.error = ErrorEvent("cost_limit", cap, retryable=False)
            return "The spending limit for this turn has been reached."
        if state.failed_rounds >= MAX_FAILED_ROUNDS:
            outcome.finish_reason = "failures"
            return "Your tool calls have failed several rounds in a row."
        if state.iterations >= state.limits.max_iterations:
            outcome.finish_reason = "max_iterations"
            return "The limit of tool rounds for this turn has been reached."
        return None

    def _cost_cap_reached(self) -> str | None:
        return self.state.spend.cap_reached(self.state.messages, self.tools.specs())

    # --- how it ends -----------------------------------------------------------------

    async def _stop(self) -> Done:
        await self.runner.abandon()
        cause = self.stopped_by() if self.stopped_by is not None else "person"
        if cause == "taken":
            # A tab found this turn's lock lapsed and recorded it as interrupted;
            # another turn may be running now, so nothing more is written.
            return self._done(Outcome("interrupted", "server_stopped"), None)
        stopped = Outcome("stopped", "stopped")
        if cause == "server":
            stopped = Outcome("interrupted", "server_stopped", SERVER_STOPPED)
        closing = await threads.run(self._store_closing, stopped, await self._settle_current())
        return self._done(stopped, closing.pk)

    async def _settle_current(self) -> Message | int:
        """Where the closing message goes. A reply whose storing began (its
        first call fragment arrived) is completed with the calls it started,
        or, if it started none, becomes the closing message itself; otherwise
        the closing message takes the next number."""
        state = self.state
        asked = state.current
        if asked is not None and asked.row_task is not None and asked.row is None:
            await asyncio.wait({asked.row_task})
            if not asked.row_task.cancelled() and asked.row_task.exception() is None:
                asked.row = asked.row_task.result()
        if asked is None or asked.row is None or asked.stored:
            return self.recorder.reserve()
        if not asked.started:
            return asked.row
        state.record(self.runner.results())
        reply = asked.reply or asked.as_shown(state.partial)
        await threads.run(self.asking.store_reply, reply, asked.row, None)
        asked.stored = True
        state.partial = ""
        return self.recorder.reserve()

    def _describe(self, error: LLMError) -> ErrorEvent:
        config = self.client.config
        # The client retries only before any output, and not past a long Retry-After.
        client_retried = (
            error.retryable
            and not error.output_started
            and not (error.retry_after and error.retry_after > config.retry_max_wait)
        )
        return error_event(
            error,
            model=self.state.model,
            has_key=bool(self.state.request.api_key or config.api_key),
            attempts=self.state.attempts + (config.max_retries if client_retried else 0),
        )

    async def _model_info(self) -> ModelInfo | None:
        """The model's price and limits, from the provider's list (kept an hour)."""
        catalog = await self.client.model_catalog(api_key=self.state.request.api_key or None)
        return budget.model_info(catalog, self.state.model)

    # --- storage (these run in a pool thread) ------------------------------------------

    def _store_closing(self, outcome: Outcome, at: Message | int) -> Message:
        state = self.state
        final = outcome.final
        reply = final.reply if final else None
        if reply is not None:
            # The "Next:" line is for the chips under the turn, not the answer's text.
            content, outcome.suggestions = split_next(reply.content)
            reply = replace(reply, content=content)
        closing = self.recorder.store_closing(
            at,
            final=reply,
            final_seconds=final.seconds if final else None,
            text=state.partial,
            iteration=state.iterations,
            extra_cost=state.spend.unstored_cost + state.spend.estimated_cost,
            turn=TurnRecord.ended(
                status=outcome.status,
                finish_reason=outcome.finish_reason,
                iterations=state.iterations,
                usage=state.spend.usage,
                files_changed=list(state.files_changed),
                tool_timings=state.timings,
                seconds=time.perf_counter() - state.started,
                error=outcome.error,
                check=outcome.check,
                suggestions=outcome.suggestions,
                context=state.context,
            ),
        )
        if state.spend.allowance is not None:
            state.spend.allowance.released = True  # with the closing message
        return closing


_EMPTY = ErrorEvent(
    "empty_reply",
    "The model sent an empty answer twice. Try again, or pick another model.",
    retryable=True,
)
_STUCK_REASON = (
    "You made the same tool call with the same result several times in a row, so your "
    "tools are switched off for the rest of this turn."
)
