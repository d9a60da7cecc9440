"""The spending ledger: what each model request cost, recorded against the person
and the project (chat.models.Charge) as its message is stored, and kept when
the project, its conversations or the message are deleted for good, so that
deleting a project never gives its spending back. The caps read it (per turn
and project: chat.agent.limits; per person: chat.agent.person_limits), and so
does the admin.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal

from django.db.models import Sum

from chat.models import Charge, Conversation, Message
from projects.models import Project


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
            "user_id": owner_id,
            "project_id": project_id,
            "project_name": name,
        },
    )


def person_spent(*, user_id: int, since: datetime) -> Decimal:
    """What a person's requests have cost since `since`, in every project they
    have or had."""
    charges = Charge.objects.filter(user_id=user_id, created_at__gte=since)
    return charges.aggregate(total=Sum("cost"))["total"] or Decimal(0)


def project_spent(*, project_id: uuid.UUID) -> Decimal:
    """Everything the project's turns have cost so far, as reported by the provider."""
    charges = Charge.objects.filter(project_id=project_id)
    return charges.aggregate(total=Sum("cost"))["total"] or Decimal(0)


def charge_alone(*, project_id: uuid.UUID, owner_id: int, cost: Decimal) -> None:
    """The ledger's entry for a request that belongs to no message (a summary of
    earlier turns asked for by hand, a request rewritten: chat.agent.one_shot)."""
    name = Project.objects.filter(pk=project_id).values_list("name", flat=True).first() or ""
    Charge.objects.create(
        cost=cost, user_id=owner_id, project_id=project_id, project_name=name[:100]
    )
