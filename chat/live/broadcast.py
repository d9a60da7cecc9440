"""Telling every open tab of a project that its files moved outside a turn (an
undo, a redo, a restore; or the person's own change in one of the tabs), so
their tree, editor and preview follow and the turn's summary shows what
happened."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth.models import User
from django.dispatch import receiver

from chat.live import messages
from chat.live.turns import group_name
from common.users import person_name
from projects.models import Project
from projects.signals import files_changed


async def conversation_compacted(project: Project, *, conversation_id: int) -> None:
    """From asynchronous code (the compact view): one message to the project's tabs."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = messages.ConversationCompacted(
        type="conversation.compacted", conversation=conversation_id
    )
    await layer.group_send(group_name(project.pk), message)


def files_moved(
    project: Project,
    *,
    paths: list[str],
    turn_id: int | None,
    by: messages.Mover = "history",
    tab: str = "",
    person: User | None = None,
) -> None:
    """From synchronous code (a view): one message to the project's tabs."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = messages.FilesMoved(type="files.moved", paths=paths, turn=turn_id, by=by, tab=tab)
    if person is not None:
        message["person"], message["name"] = person.pk, person_name(person)
    async_to_sync(layer.group_send)(group_name(project.pk), message)


@receiver(files_changed)
def _changed_in_a_tab(
    sender: object, project: Project, paths: list[str], tab: str, user: User, **_: Any
) -> None:
    files_moved(project, paths=paths, turn_id=None, by="person", tab=tab, person=user)
