"""Bounds per person, across all their projects: spending per day and per month,
and turns running at once. The server's settings, with staff's overrides
(chat.models.PersonLimits) for one person.

Spending is what the person's ledger holds (chat.spending): every request's
cost, those of running turns too (each reply is recorded as the turn goes),
and those of projects deleted since. A
turn checks the person's spending when it starts and adds its own as it goes,
so turns running side by side can pass a cap by at most what one of them
spends (the turn cap, BUILTIT_TURN_COST_LIMIT) each: at most
(BUILTIT_MAX_TURNS_PER_PERSON - 1) x the turn cap.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.utils import timezone

from chat.agent.limits import no_room
from chat.models import PersonLimits
from chat.money import dollars
from chat.spending import person_spent


@dataclass(frozen=True)
class PersonBudget:
    daily_limit: Decimal | None  # None: no cap
    monthly_limit: Decimal | None
    spent_today: Decimal
    spent_this_month: Decimal
    now: datetime

    def reached(self, turn_cost: Decimal, reserve: Decimal = Decimal(0)) -> str | None:
        """Why spending must stop, in words with when it resets; None within the
        caps with `reserve` (the least the next request costs) still left."""
        today = self.spent_today + turn_cost
        if self.daily_limit is not None and today + reserve >= self.daily_limit:
            return (
                f"You {_at(today, self.daily_limit)} your daily spending limit "
                f"({dollars(today)} of {dollars(self.daily_limit)})"
                f"{no_room(today, self.daily_limit)}. It resets at midnight "
                f"({_until(self.now, _next_day(self.now))}). Ask the administrator to raise it."
            )
        month = self.spent_this_month + turn_cost
        if self.monthly_limit is not None and month + reserve >= self.monthly_limit:
            return (
                f"You {_at(month, self.monthly_limit)} your monthly spending limit "
                f"({dollars(month)} of {dollars(self.monthly_limit)})"
                f"{no_room(month, self.monthly_limit)}. It resets on the 1st "
                f"({_until(self.now, _next_month(self.now))}). Ask the administrator to raise it."
            )
        return None

    def left(self, turn_cost: Decimal) -> Decimal | None:
        """What the tighter of the daily and monthly caps has left; None: no cap."""
        left = [
            cap - spent - turn_cost
            for cap, spent in (
                (self.daily_limit, self.spent_today),
                (self.monthly_limit, self.spent_this_month),
            )
            if cap is not None
        ]
        return min(left, default=None)


def _at(spent: Decimal, cap: Decimal) -> str:
    return "reached" if spent >= cap else "are close to"


def person_budget(*, user_id: int) -> PersonBudget:
    own = PersonLimits.objects.filter(user_id=user_id).first()
    now = timezone.localtime()
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    month = day.replace(day=1)
    return PersonBudget(
        daily_limit=_cap(
            own.daily_cost_limit if own else None, settings.BUILTIT_USER_DAILY_COST_LIMIT
        ),
        monthly_limit=_cap(
            own.monthly_cost_limit if own else None, settings.BUILTIT_USER_MONTHLY_COST_LIMIT
        ),
        spent_today=person_spent(user_id=user_id, since=day),
        spent_this_month=person_spent(user_id=user_id, since=month),
        now=now,
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
