"""The loop's limits for one turn: the server's settings, with the project's overrides."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

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
    # Bounds against a broken or hostile model server (settings.py says why).
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


def cap_reached(
    limits: TurnLimits,
    *,
    turn_cost: Decimal | None,
    spent_before: Decimal,
    reserve: Decimal = Decimal(0),
) -> str | None:
    """Why spending must stop now, in words for the person; None while within the
    caps with `reserve` (the least the next request costs) still left."""
    spent_now = turn_cost or Decimal(0)
    turn_cap = limits.turn_cost_limit
    if turn_cap and spent_now + reserve >= turn_cap:
        return (
            f"This turn {_at(spent_now, turn_cap)} its spending limit ({dollars(spent_now)} of "
            f"{dollars(turn_cap)}){no_room(spent_now, turn_cap)}, so it was ended. Send a new "
            "message to go on, or ask the administrator to raise the limit."
        )
    project_cap = limits.project_cost_limit
    spent = spent_before + spent_now
    if project_cap and spent + reserve >= project_cap:
        return (
            f"This project {_at(spent, project_cap)} its spending limit ({dollars(spent)} of "
            f"{dollars(project_cap)}){no_room(spent, project_cap)}. Ask the "
            "administrator to raise the limit."
        )
    return None


def cost_left(limits: TurnLimits, *, turn_cost: Decimal, spent_before: Decimal) -> Decimal | None:
    """What the tighter of the turn's and the project's caps has left; None: no cap."""
    left = [
        cap - spent
        for cap, spent in (
            (limits.turn_cost_limit, turn_cost),
            (limits.project_cost_limit, spent_before + turn_cost),
        )
        if cap
    ]
    return min(left, default=None)


def no_room(spent: Decimal, cap: Decimal) -> str:
    """Said of a cap not passed yet whose rest would not pay for another request."""
    return ": what is left would not pay for another request" if spent < cap else ""


def _at(spent: Decimal, cap: Decimal) -> str:
    return "reached" if spent >= cap else "is close to"
