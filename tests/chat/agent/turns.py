"""Running one turn of the loop and reading its events, for the agent tests."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from decimal import Decimal
from typing import Any

from asgiref.sync import sync_to_async

from chat.agent.events import Done, ErrorEvent, Event
from chat.agent.limits import TurnLimits
from chat.agent.loop import TurnRequest, run_turn
from chat.llm import LLMClient
from chat.models import Conversation
from chat.services import conversation_create
from chat.tools import ToolRegistry
from projects.models import Project

HANG = 15.0
LIMITS = TurnLimits(
    max_iterations=10,
    history_tokens=16_000,
    turn_cost_limit=None,
    project_cost_limit=None,
    tool_timeout=10.0,
)


def limits(**changes: Any) -> TurnLimits:
    return replace(LIMITS, **changes)


async def new_conversation(project: Project) -> Conversation:
    return await sync_to_async(conversation_create)(project=project)


async def turn_events(
    client: LLMClient,
    project: Project,
    text: str,
    *,
    conversation: Conversation | None = None,
    tools: ToolRegistry | None = None,
    turn_limits: TurnLimits = LIMITS,
    **request: Any,
) -> list[Event]:
    """Every event of one turn, in order (guarded against a hang)."""
    conversation = conversation or await new_conversation(project)

    async def collect() -> list[Event]:
        return [
            event
            async for event in run_turn(
                TurnRequest(project, conversation, text, **request),
                client=client,
                tools=tools,
                limits=turn_limits,
            )
        ]

    return await asyncio.wait_for(collect(), HANG)


def kinds(events: list[Event]) -> list[str]:
    """Event types, with runs of streamed text folded into one."""
    folded: list[str] = []
    for event in events:
        if event.type in ("content", "reasoning") and folded and folded[-1] == event.type:
            continue
        folded.append(event.type)
    return folded


def cost(value: str) -> Decimal:
    return Decimal(value)


def errors(events: list[Event]) -> list[ErrorEvent]:
    return [event for event in events if isinstance(event, ErrorEvent)]


def done(events: list[Event]) -> Done:
    last = events[-1]
    assert isinstance(last, Done)
    return last
