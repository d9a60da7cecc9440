"""Bounds per person, across all their projects: spending per day and per month,
and turns running at once. The server's settings, with staff's overrides
(chat.models.PersonLimits) for one person.

Spending is what the person's ledger holds (chat.spending): every request's
cost, and those of projects deleted since; and what their running turns hold
(each reserves in steps, as its answers stream, what it may still spend).
A turn stands against the caps as the ledger and the holds were at its
latest step (chat.agent.allowance), so turns running side by side share
what is left and together never pass a cap by more than a streamed piece each.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from functools import partial

from django.conf import settings
from django.utils import timezone

from chat import spending
from chat.agent.limits import CapLeft, how_stopped
from chat.models import PersonLimits
from chat.money import dollars


@dataclass(frozen=True)
class PersonBudget:
    daily_limit: Decimal | None  # None: no cap
    monthly_limit: Decimal | None
    # Spent or held by everything but this turn: the ledger (its own recorded
    # costs included) and the holds of the person's other running turns.
    spent_today: Decimal
    spent_this_month: Decimal
    now: datetime
    held_elsewhere: Decimal = Decimal(0)  # of which, held by their other running turns

    def caps(self, turn_cost: Decimal) -> list[CapLeft]:
        """The daily cap and the monthly one, in that order (those set)."""
        caps = []
        if self.daily_limit is not None:
            today = self.spent_today + turn_cost
            resets = f"at midnight ({_until(self.now, _next_day(self.now))})"
            words = partial(self._words, "daily", today, self.daily_limit, resets)
            caps.append(CapLeft(self.daily_limit - today, words))
        if self.monthly_limit is not None:
            month = self.spent_this_month + turn_cost
            resets = f"on the 1st ({_until(self.now, _next_month(self.now))})"
            words = partial(self._words, "monthly", month, self.monthly_limit, resets)
            caps.append(CapLeft(self.monthly_limit - month, words))
        return caps

    def _words(self, period: str, spent: Decimal, cap: Decimal, resets: str, writing: bool) -> str:
        at = "reached" if writing or spent >= cap else "are close to"
        elsewhere = ""
        if self.held_elsewhere:
            elsewhere = f", {dollars(self.held_elsewhere)} of it held by your other running turns"
        return (
            f"You {at} your {period} spending limit ({dollars(spent)} of {dollars(cap)}"
            f"{elsewhere}){how_stopped(spent, cap, writing)}. It resets {resets}. Ask the "
            "administrator to raise it."
        )


def person_caps(*, user_id: int, project_cap: Decimal | None) -> spending.Caps:
    """The caps a turn's hold is held against: the person's, and `project_cap`."""
    own = PersonLimits.objects.filter(user_id=user_id).first()
    day = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    return spending.Caps(
        day=_cap(own.daily_cost_limit if own else None, settings.BUILTIT_USER_DAILY_COST_LIMIT),
        month=_cap(
            own.monthly_cost_limit if own else None, settings.BUILTIT_USER_MONTHLY_COST_LIMIT
        ),
        project=project_cap,
        day_start=day,
        month_start=day.replace(day=1),
    )


def person_budget(caps: spending.Caps, standing: spending.Standing) -> PersonBudget:
    """The person's caps as a turn stands against them, by `standing`."""
    return PersonBudget(
        daily_limit=caps.day,
        monthly_limit=caps.month,
        spent_today=standing.day,
        spent_this_month=standing.month,
        now=timezone.localtime(),
        held_elsewhere=standing.held_elsewhere,
    )


def running_turn_limit(*, user_id: int) -> int | None:
    own = PersonLimits.objects.filter(user_id=user_id).values_list("max_running_turns", flat=True)
    chosen = next(iter(own), None)
    limit = settings.BUILTIT_MAX_TURNS_PER_PERSON if chosen is None else chosen
    return limit if limit > 0 else None


def too_many_turns_message(running: int) -> str:
    turns = "a turn" if running == 1 else f"{running} turns"
    return (
        f"You already have {turns} running on other projects, the most at once. "
        "Wait for one to finish, or stop it, then send again."
    )


def _cap(own: Decimal | None, server: Decimal) -> Decimal | None:
    chosen = server if own is None else own
    return chosen if chosen > 0 else None


def _next_day(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)


def _next_month(now: datetime) -> datetime:
    first = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return (first + timedelta(days=32)).replace(day=1)


def _until(now: datetime, then: datetime) -> str:
    hours = (then - now).total_seconds() / 3600
    if hours < 1:
        return "in less than an hour"
    if hours < 48:
        return f"in about {round(hours)} hour{'' if round(hours) == 1 else 's'}"
    return f"in {round(hours / 24)} days"
