"""A turn's state as data (DESIGN §6, point 9): what was asked, what it has
cost, how far it got. The loop (chat.agent.loop) decides, the model request
(chat.agent.asking) streams, the tool runner (chat.agent.runner) runs the
calls; each reads and writes this one object, and nothing else is kept
between their steps."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from django.contrib.auth.models import User

from chat.agent import budget
from chat.agent.allowance import Allowance
from chat.agent.attachments import Attachment
from chat.agent.events import ErrorEvent
from chat.agent.limits import CapLeft, TurnLimits, turn_caps
from chat.agent.runner import Executed
from chat.llm import AssistantMessage, ChatMessage, LLMError, ModelInfo, ToolCall, ToolSpec, Usage
from chat.models import Conversation, Message
from chat.records.context_window import ContextRecord
from chat.records.site_check import SiteCheckRecord
from chat.records.turn import FinishReason, ToolTiming, TurnStatus
from projects.models import Project

# Who stopped a cancelled turn: the person (Stop); the server, shutting down; or
# nobody in time (its lock lapsed and a tab recorded it already).
StopCause = Literal["person", "server", "taken"]


@dataclass(frozen=True)
class TurnRequest:
    project: Project
    conversation: Conversation
    text: str
    model: str | None = None  # None: the project's, then the server's default
    user: User | None = None  # who sent it (and pays: payer_id); the socket's person
    api_key: str | None = None  # a person's own key, over the server's
    attachments: tuple[Attachment, ...] = ()  # what the preview gave the message
    images: tuple[int, ...] = ()  # pictures with the message (chat.images), checked
    plan: bool = False  # a plan turn: the model may look, not change (chat.tools.plan_tools)


def payer_id(request: TurnRequest) -> int:
    """Who pays for the turn, under whose caps: the person who sent it (a
    project may be shared), or its owner when no person is named."""
    return request.user.pk if request.user is not None else request.project.owner_id


@dataclass
class Asked:
    """One model request of the turn, as it stands."""

    tools_allowed: bool
    notes: list[ChatMessage] = field(default_factory=list)  # said after the history
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
    again: bool = False  # its answer broke after part was shown: asked once more

    def as_shown(self, text: str) -> AssistantMessage:
        """The reply as far as it got: the text shown and the calls started."""
        return AssistantMessage(content=text, tool_calls=tuple(self.started))


@dataclass
class Spend:
    """What the turn has cost, and what it may still spend."""

    limits: TurnLimits
    usage: Usage = field(default_factory=Usage)
    unstored_cost: Decimal = Decimal(0)  # of replies kept on no message (empty ones)
    # Answers that ended before the provider reported their cost (stopped, cut,
    # asked again): counted at an estimate, so stopping cannot dodge the caps.
    estimated_cost: Decimal = Decimal(0)
    # The caps shared with the person's other turns, held in the ledger (None: none set).
    allowance: Allowance | None = None
    model_info: ModelInfo | None = None  # from the provider's list: price, limits

    def turn_cost(self) -> Decimal:
        """What the turn has cost so far: as reported, and estimated where not."""
        return (self.usage.cost or Decimal(0)) + self.estimated_cost

    def caps(self, extra: Decimal = Decimal(0)) -> list[CapLeft]:
        """Every cap set, as the turn stands against it with `extra` more spent:
        the turn's, the project's, the person's per day and per month."""
        turn_cost = self.turn_cost() + extra
        allowance = self.allowance
        spent_before = allowance.project_before() if allowance is not None else Decimal(0)
        caps = turn_caps(self.limits, turn_cost=turn_cost, spent_before=spent_before)
        person = allowance.person() if allowance is not None else None
        return caps + (person.caps(turn_cost) if person is not None else [])

    def cap_reached(self, messages: list[ChatMessage], tools: list[ToolSpec]) -> str | None:
        """Why no more requests with tools may be sent: a cap reached, or what it
        has left would not pay for the next one (chat.agent.budget)."""
        reserve = budget.reserve(info=self.model_info, prompt=budget.prompt_tokens(messages, tools))
        for cap in self.caps():
            if cap.left <= reserve:
                return cap.words(False)
        return None

    def left(self) -> Decimal | None:
        """What the tightest spending cap has left; None: no cap applies."""
        return min((cap.left for cap in self.caps()), default=None)

    def stopped_by(self, extra: Decimal, *, writing: bool) -> str:
        """Why an answer that would bring the turn's cost `extra` higher stops: the
        words of the cap it passes first."""
        tightest = min(self.caps(extra), key=lambda cap: cap.left)
        return tightest.words(writing)


@dataclass
class Outcome:
    status: TurnStatus = "completed"
    finish_reason: FinishReason = "stop"
    error: ErrorEvent | None = None
    final: Asked | None = None  # the reply that answers the person, if any
    check: SiteCheckRecord | None = None  # the site checked at the end
    suggestions: tuple[str, ...] = ()  # from the answer's "Next:" line (chat.next_steps)

    def fail(self, reason: FinishReason, error: ErrorEvent | None) -> None:
        self.status, self.finish_reason, self.error = "failed", reason, error


@dataclass
class TurnState:
    request: TurnRequest
    model: str
    limits: TurnLimits
    spend: Spend
    messages: list[ChatMessage] = field(default_factory=list)  # what the model is sent
    context: ContextRecord | None = None  # how full the first request was (chat.agent.context)
    iterations: int = 0  # requests made, the final answer's included
    files_changed: dict[str, None] = field(default_factory=dict)  # in order, once each
    timings: list[ToolTiming] = field(default_factory=list)
    partial: str = ""  # text shown to the person and stored on no message yet
    current: Asked | None = None
    failed_rounds: int = 0  # in a row, every call of the round failed
    empty_retried: bool = False  # an empty answer was asked for again
    attempts: int = 0  # requests made for the current model answer
    started: float = field(default_factory=time.perf_counter)
    deadline: float = 0.0  # time.monotonic() past which no request is made
    asked_by: str = ""  # the sender's name, for a shared project (chat.selectors.askers)
    asked_by_id: int = 0  # and their id, when named

    def __post_init__(self) -> None:
        if not self.deadline:
            self.deadline = time.monotonic() + self.limits.turn_time_limit

    def record(self, executed: list[Executed]) -> None:
        """A round's results, for the model and for the turn's record."""
        for done in executed:
            self.messages.append(ChatMessage.tool(done.call.id, done.content))
            self.files_changed.update(dict.fromkeys(done.outcome.changed))
            ms = round(done.duration_ms, 2)
            self.timings.append(ToolTiming(done.call.id, done.call.name, done.outcome.ok, ms))
        all_failed = bool(executed) and not any(done.outcome.ok for done in executed)
        self.failed_rounds = self.failed_rounds + 1 if all_failed else 0
