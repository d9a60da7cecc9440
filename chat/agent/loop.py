"""One user turn: the model, the tools, and everything stored as it goes (DESIGN §6).

    async for event in run_turn(TurnRequest(project, conversation, "Make a site")):
        ...   # chat.agent.events dataclasses; nothing here knows websockets or HTML

Cancelling the task that iterates (or closing the generator) stops the turn at
once: the upstream stream is closed, a write under way completes, and the turn
is recorded as stopped.

The model's stream is read by a small task into one queue, which the tool
runner's events join: so a tool's result goes out while the model is still
writing its next call.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from django.contrib.auth.models import User

from chat import spending
from chat.agent import budget, prompt
from chat.agent.attachments import Attachment, for_model
from chat.agent.attachments import to_json as attachments_json
from chat.agent.events import (
    AnnouncedCall,
    ContentText,
    Done,
    ErrorEvent,
    Event,
    ReasoningText,
    StreamReset,
    ToolCallsAnnounced,
    TurnStarted,
    UsageEvent,
)
from chat.agent.failures import INTERNAL_ERROR, SERVER_STOPPED, error_event
from chat.agent.limits import TurnLimits, cap_reached, cost_left
from chat.agent.model_choice import choose_model
from chat.agent.person_limits import PersonBudget, person_budget
from chat.agent.recorder import TurnRecorder
from chat.agent.runner import Executed, RoundDone, ToolRunner, whole_calls
from chat.demo.transport import demo_client, is_demo
from chat.images import images_as_urls
from chat.llm import (
    AnswerTooSlowError,
    AssistantMessage,
    ChatMessage,
    ChatRequest,
    ContentDelta,
    Finish,
    InStreamError,
    LimitError,
    LLMClient,
    LLMError,
    MessageAssembler,
    ModelInfo,
    ModelParameters,
    ReasoningDelta,
    StreamEvent,
    ToolCall,
    ToolCallDelta,
    ToolChoice,
    Usage,
    get_client,
)
from chat.models import Conversation, Message
from chat.money import money
from chat.records import FinishReason, ToolTiming, TurnRecord, TurnStatus
from chat.selectors import past_turns
from chat.tools import ToolRegistry, file_tools
from common import threads
from projects import selectors
from projects.files.limits import current_limits
from projects.models import Project
from projects.services import Author

logger = logging.getLogger(__name__)

# Rounds in a row in which every tool call failed, before the model is asked to stop.
MAX_FAILED_ROUNDS = 3


@dataclass(frozen=True)
class TurnRequest:
    project: Project
    conversation: Conversation
    text: str
    model: str | None = None  # None: the project's, then the server's default
    user: User | None = None
    api_key: str | None = None  # a person's own key, over the server's
    attachments: tuple[Attachment, ...] = ()  # what the preview gave the message
    images: tuple[int, ...] = ()  # pictures with the message (chat.images), checked


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
    own_client = demo_client() if client is None and is_demo(model) else None
    turn = _Turn(
        request,
        client or own_client or get_client(),
        tools or file_tools(),
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
        if own_client is not None:
            await own_client.aclose()


@dataclass
class _Request:
    """One model request of the turn, as it stands."""

    tools_allowed: bool
    reply: AssistantMessage | None = None
    row: Message | None = None  # stored as soon as its first call is started
    # Storing `row` begins with the first fragment of a call, so the call need
    # not wait for it once complete.
    row_task: asyncio.Task[Message] | None = None
    started: list[ToolCall] = field(default_factory=list)
    stored: bool = False
    prompt_tokens: int = 0  # its prompt, estimated (chat.agent.budget)
    seconds: float = 0.0
    bound: LLMError | None = None  # one of our limits ended it after calls had started

    def as_shown(self, text: str) -> AssistantMessage:
        """The reply as far as it got: the text shown and the calls started."""
        return AssistantMessage(content=text, tool_calls=tuple(self.started))


# Who stopped a cancelled turn: the person (Stop); the server, shutting down; or
# nobody in time (its lock lapsed and a tab recorded it already).
StopCause = Literal["person", "server", "taken"]


@dataclass(frozen=True, slots=True)
class _Piece:
    piece: StreamEvent


@dataclass
class _End:
    error: BaseException | None = None


@dataclass
class _Outcome:
    status: TurnStatus = "completed"
    finish_reason: FinishReason = "stop"
    error: ErrorEvent | None = None
    final: _Request | None = None  # the reply that answers the person, if any

    def fail(self, reason: FinishReason, error: ErrorEvent | None) -> None:
        self.status, self.finish_reason, self.error = "failed", reason, error


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
        self.request = request
        self.on_stopped = on_stopped
        self.stopped_by = stopped_by
        self.client = client
        self.tools = tools
        self.limits = limits
        self.model = model
        self.queue: asyncio.Queue[_Piece | Event | RoundDone | _End] = asyncio.Queue()
        self.recorder = TurnRecorder(request.conversation, self.model)
        self.runner = ToolRunner(
            registry=tools,
            project=request.project,
            recorder=self.recorder,
            known_versions={},
            emit=self.queue.put_nowait,
            timeout=limits.tool_timeout,
            max_calls=limits.max_tool_calls,
        )
        self.messages: list[ChatMessage] = []
        self.iterations = 0
        self.usage = Usage()
        self.unstored_cost = Decimal(0)  # of replies kept on no message (empty ones)
        # Answers that ended before the provider reported their cost (stopped, cut,
        # asked again): counted at an estimate, so stopping cannot dodge the caps.
        self.estimated_cost = Decimal(0)
        self.spent_before = Decimal(0)
        self.person: PersonBudget | None = None  # the project owner's, read at the start
        self.model_info: ModelInfo | None = None  # from the provider's list: price, limits
        self.files_changed: dict[str, None] = {}
        self.timings: list[ToolTiming] = []
        self.partial = ""  # text shown to the person and stored on no message yet
        self.current: _Request | None = None
        self.started = time.perf_counter()
        self.deadline = time.monotonic() + limits.turn_time_limit
        self.failed_rounds = 0
        self.attempts = 0  # requests made for the current model answer

    async def run(self) -> AsyncGenerator[Event, None]:
        user_message = await threads.run(self._begin)
        yield TurnStarted(
            self.request.conversation.pk,
            user_message.pk,
            self.model,
            self.request.text,
            tuple(attachments_json(self.request.attachments)),
            self.request.images,
        )
        outcome = _Outcome()
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
            outcome.fail("error", self._describe(error))
        except Exception:
            logger.exception("Turn failed in conversation %s", self.request.conversation.pk)
            outcome.fail("error", INTERNAL_ERROR)
        if outcome.error is not None:
            yield outcome.error
        closing = await threads.run(self._store_closing, outcome, await self._settle_current())
        yield self._done(outcome, closing.pk)

    def _done(self, outcome: _Outcome, closing_id: int | None) -> Done:
        return Done(
            outcome.finish_reason,
            outcome.status,
            self.iterations,
            closing_id,
            tuple(self.files_changed),
            self.usage.total_tokens,
            money(self.usage.cost),
        )

    # --- the turn --------------------------------------------------------------

    async def _work(self, outcome: _Outcome) -> AsyncGenerator[Event, None]:
        self.model_info = await self._model_info()
        cap = self._cost_cap_reached()
        if cap:
            outcome.fail("cost_limit", ErrorEvent("cost_limit", cap, retryable=False))
            return
        empty_retried = False
        while True:
            asked = _Request(tools_allowed=True)
            async with aclosing(self._round(asked)) as events:
                async for event in events:
                    yield event
            reply = asked.reply
            assert reply is not None
            if not reply.tool_calls:
                if self._answered(asked, outcome, retried=empty_retried):
                    return
                empty_retried = True
                continue
            if self.runner.stuck:
                # Its own words, not a cut: asked once more, without tools.
                outcome.status, outcome.finish_reason = "stopped", "stuck"
                async with aclosing(self._final_answer(_STUCK_REASON, outcome)) as events:
                    async for event in events:
                        yield event
                return
            reason = self._reason_to_stop(outcome)
            if reason:
                async with aclosing(self._final_answer(reason, outcome)) as events:
                    async for event in events:
                        yield event
                return

    async def _round(self, asked: _Request) -> AsyncGenerator[Event, None]:
        """One request with tools, within the turn's time; one of our bounds
        reached in it ends the turn (after its calls and results were kept)."""
        if time.monotonic() >= self.deadline:
            raise AnswerTooSlowError(self._turn_too_long())
        self.iterations += 1
        notes = []
        if self.iterations == self.limits.max_iterations:
            notes.append(prompt.last_round_note(1))
        async with aclosing(self._ask(asked, notes, "auto")) as events:
            async for event in events:
                yield event
        if asked.bound is not None:
            raise asked.bound

    def _answered(self, asked: _Request, outcome: _Outcome, *, retried: bool) -> bool:
        """A reply without tool calls ends the turn, unless it is the first empty
        one and the caps leave room to ask again."""
        reply = asked.reply
        assert reply is not None
        if reply.content.strip():
            outcome.finish_reason = "length" if reply.finish_reason == "length" else "stop"
            outcome.final = asked
            return True
        self.unstored_cost += (reply.usage and reply.usage.cost) or Decimal(0)
        if retried:
            outcome.fail("empty", _EMPTY)
            return True
        cap = self._cost_cap_reached()  # asked again only within the caps
        if cap:
            outcome.fail("cost_limit", ErrorEvent("cost_limit", cap, retryable=False))
        return cap is not None

    def _reason_to_stop(self, outcome: _Outcome) -> str | None:
        cap = self._cost_cap_reached()
        if cap:
            outcome.finish_reason = "cost_limit"
            outcome.error = ErrorEvent("cost_limit", cap, retryable=False)
            return "The spending limit for this turn has been reached."
        if self.failed_rounds >= MAX_FAILED_ROUNDS:
            outcome.finish_reason = "failures"
            return "Your tool calls have failed several rounds in a row."
        if self.iterations >= self.limits.max_iterations:
            outcome.finish_reason = "max_iterations"
            return "The limit of tool rounds for this turn has been reached."
        return None

    async def _final_answer(self, reason: str, outcome: _Outcome) -> AsyncGenerator[Event, None]:
        """One last request without tools, so the turn ends with words, not a cut."""
        self.iterations += 1
        asked = _Request(tools_allowed=False)
        note = prompt.final_answer_note(reason)
        async with aclosing(self._ask(asked, [note], "none")) as events:
            async for event in events:
                yield event
        outcome.final = asked

    # --- one model request ---------------------------------------------------------

    async def _ask(
        self, asked: _Request, notes: list[ChatMessage], choice: ToolChoice
    ) -> AsyncGenerator[Event, None]:
        messages = [*self.messages, *notes]
        tools = self.tools.specs()
        asked.prompt_tokens = budget.prompt_tokens(messages, tools)
        answer_tokens = budget.answer_tokens(
            info=self.model_info, prompt=asked.prompt_tokens, left=self._cost_left()
        )
        request = ChatRequest(
            model=self.model,
            messages=messages,
            tools=tools,
            tool_choice=choice,
            parameters=ModelParameters(max_tokens=answer_tokens),
        )
        self.current = asked
        started = time.perf_counter()
        for attempt in (1, 2):
            self.attempts = attempt
            try:
                async with aclosing(self._stream(request, asked)) as events:
                    async for event in events:
                        yield event
                break
            except LLMError as error:
                if asked.started:
                    # Calls already ran: keep them and their results, and let the
                    # model carry on from there in the next round -- unless one
                    # of our bounds ended the answer: then the turn ends too.
                    logger.warning("Answer broke off after tools started: %s", error)
                    asked.reply = asked.as_shown(self.partial)
                    asked.bound = error if isinstance(error, LimitError) else None
                    break
                if not _worth_retrying(error, attempt):
                    raise
                self.partial = ""
                yield StreamReset("The answer was interrupted; asking the model again.")
        asked.seconds = time.perf_counter() - started
        async with aclosing(self._finish(asked)) as events:
            async for event in events:
                yield event

    async def _stream(self, request: ChatRequest, asked: _Request) -> AsyncGenerator[Event, None]:
        assembler = MessageAssembler()
        reader = asyncio.create_task(self._read(request))
        try:
            while True:
                item = await self.queue.get()
                if isinstance(item, _Piece):
                    if event := await self._on_piece(item.piece, asked, assembler):
                        yield event
                elif isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    break
                elif not isinstance(item, RoundDone):
                    yield item  # a tool's progress, while the model writes on
            if announced := await self._start_calls(asked, assembler, settled=False):
                yield announced
            asked.reply = assembler.message()
        finally:
            self.partial = assembler.content  # what the person has seen of it
            self.estimated_cost += self._unreported(asked, assembler)
            if not reader.done():
                reader.cancel()
                await asyncio.wait({reader})

    def _unreported(self, asked: _Request, assembler: MessageAssembler) -> Decimal:
        """An answer that wrote something but ended without its cost reported
        (stopped, cut off, to be asked again) is counted at an estimate."""
        usage = assembler.usage
        if (usage is not None and usage.cost is not None) or not (assembler.written or usage):
            return Decimal(0)
        return budget.unreported_cost(
            info=self.model_info, prompt=asked.prompt_tokens, written=assembler.written, usage=usage
        )

    async def _on_piece(
        self, piece: StreamEvent, asked: _Request, assembler: MessageAssembler
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

    async def _read(self, request: ChatRequest) -> None:
        put = self.queue.put_nowait
        # One request, its retries included, within its own limit and the turn's.
        seconds = min(self.limits.request_time_limit, self.deadline - time.monotonic())
        try:
            async with asyncio.timeout(max(seconds, 0)):
                async with self.client.stream(
                    request, api_key=self.request.api_key or None
                ) as pieces:
                    async for piece in pieces:
                        put(_Piece(piece))
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            put(_End(self._too_slow(seconds)))
            return
        except Exception as error:  # handed to the loop, which raises it there
            put(_End(error))
            return
        put(_End())

    def _too_slow(self, seconds: float) -> AnswerTooSlowError:
        if seconds < self.limits.request_time_limit:
            error = AnswerTooSlowError(self._turn_too_long())
        else:
            error = AnswerTooSlowError(
                f"The model took longer than {_minutes(seconds)} to answer one request"
            )
        error.output_started = bool(self.partial) or bool(self.current and self.current.started)
        return error

    def _turn_too_long(self) -> str:
        return f"The turn took longer than its limit of {_minutes(self.limits.turn_time_limit)}"

    async def _start_calls(
        self, asked: _Request, assembler: MessageAssembler, *, settled: bool
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
                author=Author.assistant(self.request.user, message_id=asked.row.pk)
            )
        asked.started += fresh
        for call in fresh:
            self.runner.submit(call, sequence=self.recorder.reserve())
        return ToolCallsAnnounced(
            tuple(AnnouncedCall.of(call.id, call.name, call.arguments) for call in fresh)
        )

    def _draft_row(self, asked: _Request, assembler: MessageAssembler) -> asyncio.Task[Message]:
        draft = AssistantMessage(content=assembler.content)
        at = self.recorder.reserve()
        asked.row_task = asyncio.create_task(threads.run(self._store_reply, draft, at, None))
        return asked.row_task

    async def _finish(self, asked: _Request) -> AsyncGenerator[Event, None]:
        reply = asked.reply
        assert reply is not None
        usage = reply.usage or Usage()
        self.usage = self.usage + usage
        yield UsageEvent(
            reply.model or self.model,
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens,
            money(usage.cost),
            self.usage.total_tokens,
            money(self.usage.cost),
        )
        if not asked.started:
            return  # an answer: the closing message stores it
        self.runner.close_round()
        while not isinstance(item := await self.queue.get(), RoundDone):
            if not isinstance(item, _Piece | _End):
                yield item
        assert asked.row is not None  # stored before its first call started
        await threads.run(self._store_reply, reply, asked.row, asked.seconds)
        asked.stored = True
        self.partial = ""
        self.messages.append(reply.to_chat_message())
        self._record(self.runner.results())

    def _record(self, executed: list[Executed]) -> None:
        for done in executed:
            self.messages.append(ChatMessage.tool(done.call.id, done.content))
            self.files_changed.update(dict.fromkeys(done.outcome.changed))
            ms = round(done.duration_ms, 2)
            self.timings.append(ToolTiming(done.call.id, done.call.name, done.outcome.ok, ms))
        all_failed = bool(executed) and not any(done.outcome.ok for done in executed)
        self.failed_rounds = self.failed_rounds + 1 if all_failed else 0

    async def _stop(self) -> Done:
        await self.runner.abandon()
        cause = self.stopped_by() if self.stopped_by is not None else "person"
        if cause == "taken":
            # A tab found this turn's lock lapsed and recorded it as interrupted;
            # another turn may be running now, so nothing more is written.
            return self._done(_Outcome("interrupted", "server_stopped"), None)
        stopped = _Outcome("stopped", "stopped")
        if cause == "server":
            stopped = _Outcome("interrupted", "server_stopped", SERVER_STOPPED)
        closing = await threads.run(self._store_closing, stopped, await self._settle_current())
        return self._done(stopped, closing.pk)

    async def _settle_current(self) -> Message | int:
        """Where the closing message goes. A reply whose storing began (its
        first call fragment arrived) is completed with the calls it started,
        or, if it started none, becomes the closing message itself; otherwise
        the closing message takes the next number."""
        asked = self.current
        if asked is not None and asked.row_task is not None and asked.row is None:
            await asyncio.wait({asked.row_task})
            if not asked.row_task.cancelled() and asked.row_task.exception() is None:
                asked.row = asked.row_task.result()
        if asked is None or asked.row is None or asked.stored:
            return self.recorder.reserve()
        if not asked.started:
            return asked.row
        self._record(self.runner.results())
        reply = asked.reply or asked.as_shown(self.partial)
        await threads.run(self._store_reply, reply, asked.row, None)
        asked.stored = True
        self.partial = ""
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
            model=self.model,
            has_key=bool(self.request.api_key or config.api_key),
            attempts=self.attempts + (config.max_retries if client_retried else 0),
        )

    def _cost_cap_reached(self) -> str | None:
        """Why no more requests with tools may be sent: a cap reached, or what it
        has left would not pay for the next one (chat.agent.budget)."""
        turn_cost = self._turn_cost()
        prompt_tokens = budget.prompt_tokens(self.messages, self.tools.specs())
        reserve = budget.reserve(info=self.model_info, prompt=prompt_tokens)
        own = cap_reached(
            self.limits, turn_cost=turn_cost, spent_before=self.spent_before, reserve=reserve
        )
        person = self.person.reached(turn_cost, reserve) if self.person is not None else None
        return own or person

    def _cost_left(self) -> Decimal | None:
        """What the tightest spending cap has left; None: no cap applies."""
        turn_cost = self._turn_cost()
        left = [
            cost_left(self.limits, turn_cost=turn_cost, spent_before=self.spent_before),
            self.person.left(turn_cost) if self.person is not None else None,
        ]
        return min((value for value in left if value is not None), default=None)

    def _turn_cost(self) -> Decimal:
        """What the turn has cost so far: as reported, and estimated where not."""
        return (self.usage.cost or Decimal(0)) + self.estimated_cost

    async def _model_info(self) -> ModelInfo | None:
        """The model's price and limits, from the provider's list (kept an hour)."""
        if is_demo(self.model):
            return ModelInfo(prompt_price=Decimal(0), completion_price=Decimal(0))
        catalog = await self.client.model_catalog(api_key=self.request.api_key or None)
        return budget.model_info(catalog, self.model)

    # --- storage (these run in a pool thread) ------------------------------------------

    def _store_reply(
        self, reply: AssistantMessage, at: Message | int, seconds: float | None
    ) -> Message:
        return self.recorder.store_reply(reply, at, iteration=self.iterations, seconds=seconds)

    def _begin(self) -> Message:
        project = self.request.project
        conversation = self.request.conversation
        files = selectors.file_list(project)
        self.runner.known_versions.update({info.path: info.version for info in files})
        self.spent_before = spending.project_spent(project_id=project.pk)
        self.person = person_budget(user_id=project.owner_id)
        history = past_turns(conversation=conversation)  # before this turn's message exists
        system = prompt.system_prompt(
            project_name=project.name,
            description=project.description,
            files=files,
            limits=current_limits(),
        )
        self.messages = [
            ChatMessage.system(system),
            *prompt.history_messages(history, budget_tokens=self.limits.history_tokens),
            ChatMessage(
                "user",
                for_model(self.request.text, self.request.attachments),
                images=tuple(images_as_urls(list(self.request.images))),
            ),
        ]
        return self.recorder.begin(
            self.request.text,
            attachments=attachments_json(self.request.attachments),
            images=list(self.request.images),
        )

    def _store_closing(self, outcome: _Outcome, at: Message | int) -> Message:
        final = outcome.final
        return self.recorder.store_closing(
            at,
            final=final.reply if final else None,
            final_seconds=final.seconds if final else None,
            text=self.partial,
            iteration=self.iterations,
            extra_cost=self.unstored_cost + self.estimated_cost,
            turn=TurnRecord.ended(
                status=outcome.status,
                finish_reason=outcome.finish_reason,
                iterations=self.iterations,
                usage=self.usage,
                files_changed=list(self.files_changed),
                tool_timings=self.timings,
                seconds=time.perf_counter() - self.started,
                error=outcome.error,
            ),
        )


_EMPTY = ErrorEvent(
    "empty_reply",
    "The model sent an empty answer twice. Try again, or pick another model.",
    retryable=True,
)
_STUCK_REASON = (
    "You made the same tool call with the same result several times in a row, so your "
    "tools are switched off for the rest of this turn."
)


def _minutes(seconds: float) -> str:
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
