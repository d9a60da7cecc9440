"""The holds beside the spending ledger (chat.spending): what running turns have
reserved of what the caps leave. Turns share what is left, never more; what
reaches the ledger is not counted twice; a hold lapses with its turn. Holds
taken at once from many threads (each its own database connection, as
processes are) never add up past the cap: on PostgreSQL that is the person's
row lock (`make test-services`)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import connections
from django.utils import timezone

from chat.models import Charge, SpendingHold
from chat.spending import (
    Caps,
    Standing,
    hold_charged,
    hold_grow,
    hold_open,
    hold_release,
)
from projects.models import Project

LASTS = timedelta(minutes=30)


def caps(*, day: str | None = "1", project: str | None = None) -> Caps:
    start = timezone.now() - timedelta(hours=1)
    return Caps(
        day=None if day is None else Decimal(day),
        month=None,
        project=None if project is None else Decimal(project),
        day_start=start,
        month_start=start,
    )


def grow(hold: int, user: User, project: Project, want: str, limits: Caps) -> Standing:
    return hold_grow(
        hold_id=hold,
        user_id=user.pk,
        project_id=project.pk,
        want=Decimal(want),
        lasts=LASTS,
        caps=limits,
    )


@pytest.mark.django_db
def test_two_holds_share_what_the_cap_leaves(user: User, project: Project) -> None:
    limits = caps(day="1")
    first, _ = hold_open(user_id=user.pk, project_id=project.pk, lasts=LASTS, caps=limits)
    second, _ = hold_open(user_id=user.pk, project_id=project.pk, lasts=LASTS, caps=limits)

    assert grow(first, user, project, "0.6", limits).step == Decimal("0.6")
    refused_in_part = grow(second, user, project, "0.6", limits)

    assert refused_in_part.step == Decimal("0.4")
    assert refused_in_part.day == Decimal("0.6"), "what the first holds counts for the second"
    assert refused_in_part.held_elsewhere == Decimal("0.6")
    assert grow(second, user, project, "0.1", limits).step == 0, "nothing left to hold"


@pytest.mark.django_db
def test_what_reaches_the_ledger_is_not_counted_twice(user: User, project: Project) -> None:
    limits = caps(day="1", project="5")
    turn, _ = hold_open(user_id=user.pk, project_id=project.pk, lasts=LASTS, caps=limits)
    other, _ = hold_open(user_id=user.pk, project_id=project.pk, lasts=LASTS, caps=limits)
    grow(turn, user, project, "0.5", limits)
    # The turn records 0.3 of it (a reply's reported cost), and its hold says so.
    Charge.objects.create(user=user, project=project, project_name="x", cost=Decimal("0.3"))
    hold_charged(hold_id=turn, cost=Decimal("0.3"))

    seen = grow(other, user, project, "0", limits)
    assert (seen.day, seen.project) == (Decimal("0.5"), Decimal("0.5"))

    # The provider reported more than was held: the ledger says so, the hold adds nothing.
    Charge.objects.create(user=user, project=project, project_name="x", cost=Decimal("0.4"))
    hold_charged(hold_id=turn, cost=Decimal("0.4"))
    assert grow(other, user, project, "0", limits).day == Decimal("0.7")
    # The turn itself stands against the caps without its own costs or hold.
    assert grow(turn, user, project, "0", limits).day == 0

    hold_release(hold_id=turn)
    assert grow(other, user, project, "0", limits).day == Decimal("0.7")


@pytest.mark.django_db
def test_a_hold_whose_turn_died_lapses(user: User, project: Project) -> None:
    limits = caps(day="1")
    dead, _ = hold_open(user_id=user.pk, project_id=project.pk, lasts=LASTS, caps=limits)
    grow(dead, user, project, "0.9", limits)
    SpendingHold.objects.filter(pk=dead).update(expires_at=timezone.now() - timedelta(seconds=1))

    fresh, standing = hold_open(user_id=user.pk, project_id=project.pk, lasts=LASTS, caps=limits)

    assert standing.day == 0
    assert not SpendingHold.objects.filter(pk=dead).exists(), "cleared as the next opened"
    assert grow(fresh, user, project, "1", limits).step == Decimal("1")


@pytest.mark.django_db(transaction=True)
def test_holds_taken_at_once_never_add_up_past_the_cap(user: User, project: Project) -> None:
    limits = caps(day="1")
    count = 8
    holds = [
        hold_open(user_id=user.pk, project_id=project.pk, lasts=LASTS, caps=limits)[0]
        for _ in range(count)
    ]
    start = threading.Barrier(count, timeout=20)

    def take(hold: int) -> Decimal:
        try:
            start.wait()
            return grow(hold, user, project, "0.3", limits).step
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=count) as pool:
        steps = list(pool.map(take, holds))

    assert sum(steps) == Decimal("1"), steps
    assert sorted(steps)[-4:] == [Decimal("0.1"), Decimal("0.3"), Decimal("0.3"), Decimal("0.3")]
