"""The spending ledger: what each model request cost, recorded against the person
who sent the turn (Message.sender; the project's owner for a request no person
sent) and the project (chat.models.Charge) as its message is stored, and kept when
the project, its conversations or the message are deleted for good, so that
deleting a project never gives its spending back. The caps read it (per turn
and project: chat.agent.limits; per person: chat.agent.person_limits), and so
does the admin.

Beside it, the holds (chat.models.SpendingHold): what each running turn may
still add to the ledger. A turn reserves in steps as its answers stream
(`hold_grow`, at most what the caps leave), its hold is lowered by what it
records (`hold_charged`) and deleted when it ends (`hold_release`). The
person's and the project's caps count the ledger and every live hold
(`Standing`), and each step is decided under a lock on the person's row, so
turns running side by side, in one process or many, never reserve more than
the caps leave between them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import DecimalField, F, Max, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from chat.models import Charge, Conversation, Message, SpendingHold
from projects.access import projects_visible_to
from projects.models import Project

_ZERO = Decimal(0)


def charge_record(*, message: Message) -> None:
    """The ledger's entry for `message`'s cost, made or changed with it (a reply's
    row is stored before its cost is known, and again once it is)."""
    if message.cost is None:
        return
    project_id, owner_id, name = (
        Conversation.objects.filter(pk=message.conversation_id)
        .values_list("project_id", "project__owner_id", "project__name")
        .get()
    )
    Charge.objects.update_or_create(
        message=message,
        defaults={"cost": message.cost},
        create_defaults={
            "cost": message.cost,
            "user_id": message.sender_id or owner_id,
            "project_id": project_id,
            "project_name": name,
        },
    )


def charge_add(*, message: Message, conversation: Conversation) -> None:
    """The ledger's entry for a message just stored with its cost (a turn's
    replies and tool results): one INSERT, where `charge_record`'s lookup and
    update-or-create took five round trips at the end of every turn (a tenth of
    a server's work with 200 short turns on two processes, bench/ws_fanout.py)."""
    if message.cost is None:
        return
    if not Conversation.project.is_cached(conversation):
        charge_record(message=message)
        return
    project = conversation.project
    Charge.objects.create(
        message=message,
        cost=message.cost,
        user_id=message.sender_id or project.owner_id,
        project_id=project.pk,
        project_name=project.name,
    )


def person_spent(*, user_id: int, since: datetime) -> Decimal:
    """What a person's requests have cost since `since`, in every project they
    have or had."""
    charges = Charge.objects.filter(user_id=user_id, created_at__gte=since)
    return charges.aggregate(total=Sum("cost"))["total"] or _ZERO


@dataclass(frozen=True)
class ProjectSpent:
    """What a person spent in one project: by its name now while they can open
    it, else as their ledger last named it; and whether they can still open it."""

    project_id: uuid.UUID | None  # None: deleted for good
    name: str
    spent: Decimal
    can_open: bool


@dataclass(frozen=True)
class PersonSpending:
    """What a person has spent today and this month (the windows their caps
    count: chat.agent.person_limits.person_caps), and this month by project,
    dearest first, at most `shown` of them; the rest summed."""

    today: Decimal
    this_month: Decimal
    projects: list[ProjectSpent]
    others: int  # projects beyond those listed
    others_spent: Decimal


def person_spending(
    *, user: User, day_start: datetime, month_start: datetime, shown: int = 20
) -> PersonSpending:
    """The person's own ledger: every turn they sent (and Improve and summaries
    they asked for), in every project, whichever key paid for it."""
    month = Charge.objects.filter(user_id=user.pk, created_at__gte=month_start)
    totals = month.aggregate(
        month=Sum("cost"), day=Sum("cost", filter=Q(created_at__gte=day_start))
    )
    # A project that still exists, by its id; one deleted for good has no id
    # left, so by the name the ledger kept.
    last_name = (
        Charge.objects.filter(user_id=user.pk, project_id=OuterRef("project_id"))
        .order_by("-created_at", "-pk")
        .values("project_name")[:1]
    )
    live = (
        month.filter(project__isnull=False)
        .values("project_id")
        .annotate(spent=Sum("cost"), name_now=Max("project__name"), name_then=Subquery(last_name))
        # Not by name: the name a person may read is only known below.
        .order_by("-spent", "project_id")
    )
    gone = (
        month.filter(project__isnull=True)
        .values("project_name")
        .annotate(spent=Sum("cost"))
        .order_by("-spent", "project_name")
    )
    groups = live.count() + gone.count()
    kept = list(live[:shown])
    openable = set(
        projects_visible_to(user)
        .filter(pk__in=[row["project_id"] for row in kept])
        .values_list("pk", flat=True)
    )
    # A project they can open now reads by its name now; one they can no
    # longer open by the name their own ledger last wrote, so a person removed
    # from it does not learn what it is called since.
    rows: list[tuple[Decimal, str, uuid.UUID | None]] = [
        (
            row["spent"],
            row["name_now"] if row["project_id"] in openable else row["name_then"],
            row["project_id"],
        )
        for row in kept
    ]
    rows += [(row["spent"], row["project_name"], None) for row in gone[:shown]]
    rows.sort(key=lambda row: (-row[0], row[1]))
    rows = rows[:shown]
    listed = [
        ProjectSpent(project_id=pk, name=name, spent=spent, can_open=pk in openable)
        for spent, name, pk in rows
    ]
    this_month = totals["month"] or _ZERO
    return PersonSpending(
        today=totals["day"] or _ZERO,
        this_month=this_month,
        projects=listed,
        others=groups - len(listed),
        others_spent=this_month - sum((row.spent for row in listed), _ZERO),
    )


def project_spent(*, project_id: uuid.UUID) -> Decimal:
    """Everything the project's turns have cost so far, as reported by the provider."""
    charges = Charge.objects.filter(project_id=project_id)
    return charges.aggregate(total=Sum("cost"))["total"] or _ZERO


@transaction.atomic
def charge_alone(
    *, project_id: uuid.UUID, owner_id: int, cost: Decimal, hold_id: int | None = None
) -> None:
    """The ledger's entry for a request that belongs to no message (a summary of
    earlier turns asked for by hand, a request rewritten: chat.agent.one_shot),
    paid by `owner_id`, the person who asked for it, and its hold released
    with it."""
    name = Project.objects.filter(pk=project_id).values_list("name", flat=True).first() or ""
    if cost:
        Charge.objects.create(
            cost=cost, user_id=owner_id, project_id=project_id, project_name=name[:100]
        )
    if hold_id is not None:
        hold_release(hold_id=hold_id)


# --- holds ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Caps:
    """The caps a hold is held against (None: no cap), and when the person's day
    and month began (as the hold opened: its own costs all count in them)."""

    day: Decimal | None
    month: Decimal | None
    project: Decimal | None
    day_start: datetime
    month_start: datetime

    @property
    def any(self) -> bool:
        return any(cap is not None for cap in (self.day, self.month, self.project))

    def room(self, standing: Standing) -> Decimal | None:
        """What the tightest cap leaves to the hold beyond what it holds; None: no cap."""
        rooms = [
            cap - others - standing.granted
            for cap, others in (
                (self.day, standing.day),
                (self.month, standing.month),
                (self.project, standing.project),
            )
            if cap is not None
        ]
        return min(rooms, default=None)


@dataclass(frozen=True)
class Standing:
    """What everything but one hold's turn counts against the caps at one
    moment (the ledger, and every other live hold's reserve not yet in it),
    and what that hold has reserved in all."""

    day: Decimal
    month: Decimal
    project: Decimal
    held_elsewhere: Decimal  # of which, reserved by the person's other running turns
    granted: Decimal  # reserved by the hold, in all
    step: Decimal = _ZERO  # of which, by the step that read this


def hold_open(
    *, user_id: int, project_id: uuid.UUID | None, lasts: timedelta, caps: Caps
) -> tuple[int, Standing]:
    """A new hold of nothing for a turn that runs at most `lasts`, and how the
    caps stand. Holds that outlived their turn go."""
    now = timezone.now()
    SpendingHold.objects.filter(user_id=user_id, expires_at__lte=now).delete()
    hold = SpendingHold.objects.create(
        user_id=user_id, project_id=project_id, expires_at=now + lasts
    )
    return hold.pk, _standing(hold, caps=caps, now=now)


@transaction.atomic
def hold_grow(
    *,
    hold_id: int,
    user_id: int,
    project_id: uuid.UUID | None,
    want: Decimal,
    lasts: timedelta,
    caps: Caps,
) -> Standing:
    """The hold grown by `want`, or by what the tightest cap leaves if less (never
    below nothing); how the caps stand after it. Decided under a lock on the
    person's row (SQLite: its write lock), so two holds never share out the
    same room."""
    get_user_model().objects.select_for_update(no_key=True).filter(pk=user_id).first()
    now = timezone.now()
    # Gone only if its turn outlived it (a clock set back): held again from here.
    hold, _ = SpendingHold.objects.get_or_create(
        pk=hold_id, defaults={"user_id": user_id, "project_id": project_id, "expires_at": now}
    )
    standing = _standing(hold, caps=caps, now=now)
    room = caps.room(standing)
    step = max(_ZERO, want if room is None else min(want, room))
    hold.granted += step
    hold.expires_at = now + lasts
    hold.save(update_fields=["granted", "expires_at"])
    return replace(standing, granted=hold.granted, step=step)


def hold_charged(*, hold_id: int, cost: Decimal) -> None:
    """`cost` of the hold's turn reached the ledger (or left it, below nothing):
    counted there, not in the hold."""
    if cost:
        SpendingHold.objects.filter(pk=hold_id).update(charged=F("charged") + cost)


def hold_release(*, hold_id: int) -> None:
    SpendingHold.objects.filter(pk=hold_id).delete()


def _standing(hold: SpendingHold, *, caps: Caps, now: datetime) -> Standing:
    person = Charge.objects.filter(user_id=hold.user_id, created_at__gte=caps.month_start)
    spent = person.aggregate(
        month=Sum("cost"), day=Sum("cost", filter=Q(created_at__gte=caps.day_start))
    )
    reserve = Greatest(F("granted") - F("charged"), Value(_ZERO), output_field=_MONEY)
    others = SpendingHold.objects.filter(user_id=hold.user_id, expires_at__gt=now)
    held = others.exclude(pk=hold.pk).aggregate(
        all=Sum(reserve), project=Sum(reserve, filter=Q(project_id=hold.project_id))
    )
    elsewhere = held["all"] or _ZERO
    project = _ZERO
    if caps.project is not None and hold.project_id is not None:
        project = project_spent(project_id=hold.project_id) + (held["project"] or _ZERO)
    # The ledger holds this hold's own costs too: they are the turn's, not others'.
    own = hold.charged
    return Standing(
        day=(spent["day"] or _ZERO) - own + elsewhere,
        month=(spent["month"] or _ZERO) - own + elsewhere,
        project=project - own if caps.project is not None else _ZERO,
        held_elsewhere=elsewhere,
        granted=hold.granted,
    )


_MONEY = DecimalField(max_digits=20, decimal_places=10)
