"""Telling every open tab of a project that its files moved outside a turn
(an undo, a redo, a restore), so their tree, editor and preview follow and the
turn's summary shows what happened."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from chat.live import messages
from chat.live.turns import group_name
from projects.models import Project


async def conversation_compacted(project: Project, *, conversation_id: int) -> None:
    """From asynchronous code (the compact view): one message to the project's tabs."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = messages.ConversationCompacted(
        type="conversation.compacted", conversation=conversation_id
    )
    await layer.group_send(group_name(project.pk), message)


def files_moved(project: Project, *, paths: list[str], turn_id: int | None) -> None:
    """From synchronous code (a view): one message to the project's tabs."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = messages.FilesMoved(type="files.moved", paths=paths, turn=turn_id)
    async_to_sync(layer.group_send)(group_name(project.pk), message)
