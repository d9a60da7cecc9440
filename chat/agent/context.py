"""A turn's first request by part: what the opening gathered (chat.agent.opening),
the history fitted to the model's context window once its size is known, and
the gauge of how full it is (chat.records.context_window.ContextRecord, shown under the turn).

Every part is counted as chat.agent.budget counts a prompt (high), so the
parts add up to the request the caps are checked against.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field

from django.conf import settings

from chat.agent import budget, compaction
from chat.agent.compaction import History, Summary
from chat.agent.events import CompactionEvent, ContextEvent, Event
from chat.agent.limits import TurnLimits
from chat.agent.one_shot import AskRefused
from chat.agent.prompt import SystemPrompt
from chat.agent.state import TurnState
from chat.llm import ChatMessage, LLMClient, ModelInfo, ToolSpec
from chat.records.context_window import ContextPart, ContextRecord
from chat.selectors.past_turns import PastTurn

# The history takes at most this share of the model's context window.
HISTORY_SHARE_OF_WINDOW = 4


@dataclass
class Opening:
    """What a turn's first request is made of, before the history is fitted."""

    system: SystemPrompt
    turns: list[PastTurn]  # the conversation's earlier turns, oldest first
    summary: Summary | None  # what the model reads for the oldest (chat.agent.compaction)
    message: ChatMessage  # the person's, with its attachments and pictures
    attachment_chars: int  # the attachments' share of the message's text
    notes: list[ChatMessage] = field(default_factory=list)  # after it (a plan turn's)

    def messages(self, history: History, *, budget_tokens: int) -> list[ChatMessage]:
        return [
            ChatMessage.system(self.system.text),
            *history.messages(budget=budget_tokens),
            self.message,
            *self.notes,
        ]


def window_of(info: ModelInfo | None) -> tuple[int, bool]:
    """The model's context window in tokens, and whether its provider said it."""
    if info is not None and info.context_length:
        return info.context_length, True
    return settings.BUILTIT_DEFAULT_CONTEXT_TOKENS, False


def history_budget(limits: TurnLimits, window: int) -> int:
    """What the earlier turns may take: the server's budget, within the window."""
    return min(limits.history_tokens, window // HISTORY_SHARE_OF_WINDOW)


def gauge(
    opening: Opening,
    history: History,
    *,
    budget_tokens: int,
    tools: Sequence[ToolSpec],
    info: ModelInfo | None,
) -> ContextRecord:
    """How full the first request is, by part, against the model's window."""
    system = opening.system
    separators = sum(1 for part in (system.instructions, system.files) if part)
    message = opening.message
    parts: dict[ContextPart, int] = {
        "system": budget.message_tokens(ChatMessage.system(system.base)) + separators,
        "instructions": budget.chars_tokens(len(system.instructions)),
        "files": budget.chars_tokens(len(system.files)),
        "history": sum(
            budget.message_tokens(item) for item in history.messages(budget=budget_tokens)
        ),
        "message": budget.message_tokens(message)
        - budget.chars_tokens(opening.attachment_chars)
        + sum(budget.message_tokens(note) for note in opening.notes),
        "attachments": budget.chars_tokens(opening.attachment_chars)
        + budget.image_tokens(len(message.images)),
        "tools": budget.tools_tokens(tools),
    }
    window, known = window_of(info)
    return ContextRecord(
        tuple(parts.items()),
        window,
        known,
        summarised=history.summary.turns if history.summary else 0,
        left_out=history.left_out,
    )


async def fitted(
    state: TurnState, opening: Opening, tools: Sequence[ToolSpec], client: LLMClient
) -> AsyncGenerator[Event, None]:
    """The first request's messages (`state.messages`): the earlier turns fitted
    to the history's budget within the model's window, the oldest summarised
    first when they no longer fit (chat.agent.compaction); then how full the
    context is (`state.context`, and its event)."""
    info = state.spend.model_info
    budget_tokens = history_budget(state.limits, window_of(info)[0])
    history = compaction.history_for(opening.turns, summary=opening.summary, budget=budget_tokens)
    part = compaction.due(history, budget=budget_tokens) if history.left_out else None
    if part is not None and settings.BUILTIT_COMPACTION:
        yield CompactionEvent("running", part.turns)
        stored = await compaction.compacted(
            project=state.request.project,
            conversation=state.request.conversation,
            part=part,
            model=state.model,
            api_key=state.request.api_key or None,
            spend=state.spend,
            client=client,
        )
        if isinstance(stored, AskRefused):
            yield CompactionEvent("failed", part.turns, message=stored.message)
        else:
            opening.summary = compaction.Summary.of(stored)
            history = compaction.history_for(
                opening.turns, summary=opening.summary, budget=budget_tokens
            )
            yield CompactionEvent("done", stored.turns, stored.tokens_before, stored.tokens_after)
    state.messages = opening.messages(history, budget_tokens=budget_tokens)
    state.context = gauge(opening, history, budget_tokens=budget_tokens, tools=tools, info=info)
    yield ContextEvent.of(state.context)
