"""The loop's limits for one turn: the server's settings, with the project's overrides."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import partial

from django.conf import settings

from chat.money import dollars
from projects.models import Project


@dataclass(frozen=True)
class TurnLimits:
    max_iterations: int
    history_tokens: int
    # None: no cap.
    turn_cost_limit: Decimal | None
    project_cost_limit: Decimal | None
    tool_timeout: float
    # Bounds against a broken or hostile model server (builtit/settings_chat.py says why).
    max_tool_calls: int = 30
    request_time_limit: float = 600.0
    turn_time_limit: float = 1800.0

    @classmethod
    def for_project(cls, project: Project) -> TurnLimits:
        return cls(
            max_iterations=settings.BUILTIT_MAX_ITERATIONS,
            history_tokens=settings.BUILTIT_HISTORY_TOKENS,
            turn_cost_limit=_cap(project.turn_cost_limit, settings.BUILTIT_TURN_COST_LIMIT),
            project_cost_limit=_cap(
                project.project_cost_limit, settings.BUILTIT_PROJECT_COST_LIMIT
            ),
            tool_timeout=settings.BUILTIT_TOOL_TIMEOUT,
            max_tool_calls=settings.BUILTIT_MAX_TOOL_CALLS_PER_ANSWER,
            request_time_limit=settings.BUILTIT_REQUEST_TIME_LIMIT,
            turn_time_limit=settings.BUILTIT_TURN_TIME_LIMIT,
        )


def _cap(own: Decimal | None, server: Decimal) -> Decimal | None:
    chosen = server if own is None else own
    return chosen if chosen > 0 else None


@dataclass(frozen=True)
class CapLeft:
    """One spending cap as a turn stands against it: what it leaves (below
    nothing once passed), and why spending stops there, in words for the
    person (`writing`: an answer was cut there as it streamed)."""

    left: Decimal
    words: Callable[[bool], str]


def turn_caps(limits: TurnLimits, *, turn_cost: Decimal, spent_before: Decimal) -> list[CapLeft]:
    """The turn's cap and the project's, in that order (those set)."""
    caps = []
    turn_cap = limits.turn_cost_limit
    if turn_cap:
        caps.append(CapLeft(turn_cap - turn_cost, partial(_turn_words, turn_cost, turn_cap)))
    project_cap = limits.project_cost_limit
    if project_cap:
        spent = spent_before + turn_cost
        caps.append(CapLeft(project_cap - spent, partial(_project_words, spent, project_cap)))
    return caps


def _turn_words(spent: Decimal, cap: Decimal, writing: bool) -> str:
    return (
        f"This turn {_at(spent, cap, writing)} its spending limit ({dollars(spent)} of "
        f"{dollars(cap)}){how_stopped(spent, cap, writing)}"
        f"{'' if writing else ', so it was ended'}. Send a new message to go on, or ask the "
        "administrator to raise the limit."
    )


def _project_words(spent: Decimal, cap: Decimal, writing: bool) -> str:
    return (
        f"This project {_at(spent, cap, writing)} its spending limit ({dollars(spent)} of "
        f"{dollars(cap)}){how_stopped(spent, cap, writing)}. Ask the administrator to raise "
        "the limit."
    )


def how_stopped(spent: Decimal, cap: Decimal, writing: bool) -> str:
    """Said of a cap: an answer cut there, or what is left too little for another."""
    if writing:
        return (
            " while the model was still writing, so its answer was stopped there and the "
            "turn ended; what it wrote is kept"
        )
    return no_room(spent, cap)


def no_room(spent: Decimal, cap: Decimal) -> str:
    """Said of a cap not passed yet whose rest would not pay for another request."""
    return ": what is left would not pay for another request" if spent < cap else ""


def _at(spent: Decimal, cap: Decimal, writing: bool) -> str:
    return "reached" if writing or spent >= cap else "is close to"
