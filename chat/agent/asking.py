"""One model request of a turn (DESIGN §6, steps 2 to 5): the prompt and its
budget, the stream read into one queue with the tool runner's events, each
complete call started as soon as it is whole, a broken answer asked for once
more, and the reply stored with its calls' results.

The model's stream is read by a small task into the queue the tool runner
also writes to, so a tool's result goes out while the model is still writing
its next call. The loop (chat.agent.loop) decides what to ask; this says how.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import KW_ONLY, dataclass
from decimal import Decimal

from django.conf import settings

from chat.agent import budget
from chat.agent.events import (
    AnnouncedCall,
    ContentText,
    Event,
    ReasoningText,
    StreamReset,
    ToolCallsAnnounced,
    UsageEvent,
)
from chat.agent.meter import Meter
from chat.agent.recorder import TurnRecorder
from chat.agent.runner import RoundDone, ToolRunner, whole_calls
from chat.agent.state import Asked, TurnState
from chat.llm import (
    AnswerTooSlowError,
    AssistantMessage,
    ChatRequest,
    ContentDelta,
    Finish,
    InStreamError,
    LimitError,
    LLMClient,
    LLMError,
    MessageAssembler,
    ModelParameters,
    ReasoningDelta,
    StreamEvent,
    ToolCallDelta,
    Usage,
)
from chat.models import Message
from chat.money import money
from chat.tools import ToolRegistry
from common import threads
from projects.services import Author

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Piece:
    piece: StreamEvent


@dataclass
class End:
    error: BaseException | None = None


Queued = Piece | Event | RoundDone | End


@dataclass(eq=False)  # one per turn: compared by identity
class Asking:
    """Makes the turn's model requests, one at a time, on its state."""

    state: TurnState
    _: KW_ONLY
    client: LLMClient
    tools: ToolRegistry
    recorder: TurnRecorder
    runner: ToolRunner
    queue: asyncio.Queue[Queued]

    async def ask(self, asked: Asked) -> AsyncGenerator[Event, None]:
        """Stream `asked`'s answer (asked once more if it broke after part of it
        was shown), run its calls, and store it with their results."""
        state = self.state
        request = self._request(asked)
        state.current = asked
        started = time.perf_counter()
        for attempt in (1, 2):
            state.attempts = attempt
            async with aclosing(self._attempt(request, asked, attempt)) as events:
                async for event in events:
                    yield event
            if not asked.again:
                break
        asked.seconds = time.perf_counter() - started
        async with aclosing(self._finish(asked)) as events:
            async for event in events:
                yield event

    def _request(self, asked: Asked) -> ChatRequest:
        state = self.state
        messages = [*state.messages, *asked.notes]
        tools = self.tools.specs()
        asked.prompt_tokens = budget.prompt_tokens(messages, tools)
        answer_tokens = budget.answer_tokens(
            info=state.spend.model_info, prompt=asked.prompt_tokens, left=state.spend.left()
        )
        return ChatRequest(
            model=state.model,
            messages=messages,
            tools=tools,
            tool_choice="auto" if asked.tools_allowed else "none",
            parameters=ModelParameters(max_tokens=answer_tokens),
        )

    async def _attempt(
        self, request: ChatRequest, asked: Asked, attempt: int
    ) -> AsyncGenerator[Event, None]:
        """One try at the answer; `asked.again` says whether to try once more."""
        asked.again = False
        try:
            async with aclosing(self._stream(request, asked)) as events:
                async for event in events:
                    yield event
        except LLMError as error:
            asked.again = self._again(asked, error, attempt)
            if asked.again:
                self.state.partial = ""
                yield StreamReset("The answer was interrupted; asking the model again.")

    def _again(self, asked: Asked, error: LLMError, attempt: int) -> bool:
        """Whether to ask again after `error`; raises it when the turn cannot go on."""
        if asked.started:
            # Calls already ran: keep them and their results, and let the model
            # carry on from there in the next round -- unless one of our bounds
            # ended the answer: then the turn ends too.
            logger.warning("Answer broke off after tools started: %s", error)
            asked.reply = asked.as_shown(self.state.partial)
            asked.bound = error if isinstance(error, LimitError) else None
            return False
        if not _worth_retrying(error, attempt):
            raise error
        return True

    async def _stream(self, request: ChatRequest, asked: Asked) -> AsyncGenerator[Event, None]:
        assembler = MessageAssembler()
        reader = asyncio.create_task(self._read(request, asked))
        try:
            while not isinstance(item := await self.queue.get(), End):
                if isinstance(item, Piece):
                    event = await self._on_piece(item.piece, asked, assembler)
                else:
                    event = None if isinstance(item, RoundDone) else item  # a tool's progress
                if event is not None:
                    yield event
            if item.error is not None:
                raise item.error
            if announced := await self._start_calls(asked, assembler, settled=False):
                yield announced
            asked.reply = assembler.message()
        finally:
            self.state.partial = assembler.content  # what the person has seen of it
            self.state.spend.estimated_cost += self._unreported(asked, assembler)
            if not reader.done():
                reader.cancel()
                await asyncio.wait({reader})

    def _unreported(self, asked: Asked, assembler: MessageAssembler) -> Decimal:
        """An answer that wrote something but ended without its cost reported
        (stopped, cut off, capped, to be asked again) is counted at an estimate."""
        return budget.cut_short_cost(
            info=self.state.spend.model_info,
            prompt=asked.prompt_tokens,
            written=assembler.written,
            usage=assembler.usage,
        )

    async def _on_piece(
        self, piece: StreamEvent, asked: Asked, assembler: MessageAssembler
    ) -> Event | None:
        assembler.add(piece)
        if isinstance(piece, ToolCallDelta) and asked.row_task is None and asked.tools_allowed:
            self._draft_row(asked, assembler)
        match piece:
            case ContentDelta(text):
                return ContentText(text)
            case ReasoningDelta(text):
                return ReasoningText(text)
            case ToolCallDelta() if assembler.call_count > len(asked.started) + 1:
                return await self._start_calls(asked, assembler, settled=True)
            case Finish():
                return await self._start_calls(asked, assembler, settled=False)
        return None

    async def _read(self, request: ChatRequest, asked: Asked) -> None:
        state = self.state
        put = self.queue.put_nowait
        # One request, its retries included, within its own limit and the turn's.
        seconds = min(state.limits.request_time_limit, state.deadline - time.monotonic())
        meter = Meter(
            state.spend,
            prompt_tokens=asked.prompt_tokens,
            max_tokens=request.parameters.max_tokens or settings.BUILTIT_MAX_ANSWER_TOKENS,
        )
        try:
            api_key = state.request.api_key or None
            async with (
                asyncio.timeout(max(seconds, 0)),
                self.client.stream(request, api_key=api_key) as pieces,
            ):
                await meter.begin()  # the request is sent on the first piece asked for
                async for piece in pieces:
                    put(Piece(piece))
                    if meter.passed(piece):
                        await meter.settle()  # raises to close the stream
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            put(End(self._too_slow(seconds)))
            return
        except Exception as error:  # handed to the loop, which raises it there
            put(End(error))
            return
        put(End())

    def _too_slow(self, seconds: float) -> AnswerTooSlowError:
        state = self.state
        if seconds < state.limits.request_time_limit:
            error = AnswerTooSlowError(turn_too_long(state))
        else:
            error = AnswerTooSlowError(
                f"The model took longer than {minutes(seconds)} to answer one request"
            )
        error.output_started = bool(state.partial) or bool(state.current and state.current.started)
        return error

    async def _start_calls(
        self, asked: Asked, assembler: MessageAssembler, *, settled: bool
    ) -> ToolCallsAnnounced | None:
        """Start the calls that are complete in the stream and not started yet."""
        if not asked.tools_allowed:
            return None
        calls = assembler.settled_calls() if settled else assembler.message().tool_calls
        fresh = list(calls[len(asked.started) :])
        if settled:
            fresh = whole_calls(fresh)
        if not fresh:
            return None
        if asked.row is None:
            # Stored before the first call runs, so its file changes can point to it.
            asked.row = await (asked.row_task or self._draft_row(asked, assembler))
            self.runner.begin_round(
                author=Author.assistant(self.state.request.user, message_id=asked.row.pk)
            )
        asked.started += fresh
        for call in fresh:
            self.runner.submit(call, sequence=self.recorder.reserve())
        return ToolCallsAnnounced(
            tuple(AnnouncedCall.of(call.id, call.name, call.arguments) for call in fresh)
        )

    def _draft_row(self, asked: Asked, assembler: MessageAssembler) -> asyncio.Task[Message]:
        draft = AssistantMessage(content=assembler.content)
        at = self.recorder.reserve()
        asked.row_task = asyncio.create_task(threads.run(self.store_reply, draft, at, None))
        return asked.row_task

    async def _finish(self, asked: Asked) -> AsyncGenerator[Event, None]:
        """The answer's usage, then (if it made calls) their results as they
        come, and the reply stored with them."""
        state = self.state
        reply = asked.reply
        assert reply is not None
        usage = reply.usage or Usage()
        state.spend.usage = state.spend.usage + usage
        yield UsageEvent(
            reply.model or state.model,
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens,
            money(usage.cost),
            state.spend.usage.total_tokens,
            money(state.spend.usage.cost),
        )
        if not asked.started:
            return  # an answer: the closing message stores it
        self.runner.close_round()
        while not isinstance(item := await self.queue.get(), RoundDone):
            if not isinstance(item, Piece | End):
                yield item
        assert asked.row is not None  # stored before its first call started
        await threads.run(self.store_reply, reply, asked.row, asked.seconds)
        asked.stored = True
        state.partial = ""
        state.messages.append(reply.to_chat_message())
        state.record(self.runner.results())

    def store_reply(
        self, reply: AssistantMessage, at: Message | int, seconds: float | None
    ) -> Message:
        """In a pool thread."""
        return self.recorder.store_reply(
            reply, at, iteration=self.state.iterations, seconds=seconds
        )


def turn_too_long(state: TurnState) -> str:
    return f"The turn took longer than its limit of {minutes(state.limits.turn_time_limit)}"


def minutes(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:g} seconds"
    return f"{seconds / 60:g} minutes"


def _worth_retrying(error: LLMError, attempt: int) -> bool:
    """Once per request, when the answer broke after part of it was shown."""
    return (
        attempt == 1
        and error.output_started
        and (error.retryable or isinstance(error, InStreamError))
    )
