"""The loop's limits for one turn: the server's settings, with the project's overrides."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings

from projects.models import Project


@dataclass(frozen=True)
class TurnLimits:
    max_iterations: int
    history_tokens: int
    # None: no cap.
    turn_cost_limit: Decimal | None
    project_cost_limit: Decimal | None
    tool_timeout: float

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
        )


def _cap(own: Decimal | None, server: Decimal) -> Decimal | None:
    chosen = server if own is None else own
    return chosen if chosen > 0 else None
