"""Who asked each turn, as the chat shows it once a project is shared: "Erin
asked" over the person's message. A project only its owner ever used shows no
names (nobody else to tell apart)."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef

from common.users import person_name
from projects.models import Membership, Project


def turn_askers(*, project_id: uuid.UUID, sender_ids: Collection[int]) -> dict[int, str]:
    """The names to show over the turns `sender_ids` sent in the project: each
    sender's, if the project is shared now or the sender is not its owner (a
    turn sent while it was shared names its person after); {} when none is
    to be named."""
    ids = {sender for sender in sender_ids if sender}
    if not ids:
        return {}
    found = (
        Project._base_manager.filter(pk=project_id)
        .annotate(shared=Exists(Membership.objects.filter(project_id=OuterRef("pk"))))
        .values_list("owner_id", "shared")
        .first()
    )
    if found is None:
        return {}
    owner_id, shared = found
    if not shared:
        ids.discard(owner_id)
    if not ids:
        return {}
    return {user.pk: person_name(user) for user in User.objects.filter(pk__in=ids)}


def turn_asker(*, project: Project, sender: User | None) -> str:
    """The name to show over a turn `sender` starts now ("" for none)."""
    if sender is None:
        return ""
    return turn_askers(project_id=project.pk, sender_ids=[sender.pk]).get(sender.pk, "")
