"""Reads of a conversation: which one a page asked for, its title, its next
sequence number, its summaries, what it used and how full its context was."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db.models import Max, Sum
from django.urls import reverse

from chat.models import Compaction, Conversation, Message
from chat.money import dollars
from chat.records.context_window import ContextRecord
from chat.records.reply import stored_turn
from chat.records.turn import TURN_KEY
from chat.records.user_message import UserRecord
from projects.models import Project


def next_sequence(*, conversation: Conversation) -> int:
    last = conversation.messages.aggregate(last=Max("sequence"))["last"]
    return 1 if last is None else last + 1


def conversation_get(*, project: Project, conversation_id: int) -> Conversation | None:
    return Conversation.objects.filter(project=project, pk=conversation_id).first()


def conversation_for(*, project: Project, raw: str | None) -> Conversation | None:
    """The conversation a page or socket asked for (None if it is not one of the
    project's), or the project's latest when none was asked for."""
    if not raw:
        return project.conversations.first()
    asked = _asked_id(raw)
    return None if asked is None else conversation_get(project=project, conversation_id=asked)


def conversation_of_owner(
    *, user_id: int, project_id: uuid.UUID, raw: str | None
) -> Conversation | None:
    """As `conversation_for`, of the project `project_id` only if `user_id` owns
    it, read with its project in one query."""
    found = Conversation.objects.select_related("project").filter(
        project_id=project_id, project__owner_id=user_id
    )
    if not raw:
        return found.first()
    asked = _asked_id(raw)
    return None if asked is None else found.filter(pk=asked).first()


def _asked_id(raw: str) -> int | None:
    """The id a page or socket asked for; None when `raw` cannot be one."""
    return int(raw) if raw.isdigit() and len(raw) <= 18 else None


def conversation_title(*, conversation_id: int | None) -> str:
    other = Conversation.objects.filter(pk=conversation_id or 0).first()
    return str(other) if other is not None else "another conversation"


def conversation_fresh_title(*, conversation: Conversation) -> str:
    """The title as stored now (a turn names its conversation), on `conversation` too."""
    conversation.refresh_from_db(fields=["title"])
    return conversation.title


def message_get_for(*, user_id: int, message_id: int) -> Message | None:
    """One of the user's own messages (in a project they own), or None."""
    return Message.objects.filter(pk=message_id, conversation__project__owner_id=user_id).first()


def compaction_latest(*, conversation: Conversation) -> Compaction | None:
    """The summary the model reads now for the conversation's earlier turns."""
    return conversation.compactions.order_by("-before_sequence", "-pk").first()


def last_model(*, conversation: Conversation) -> str:
    """The model the conversation's latest message was sent to ("" when none)."""
    latest = conversation.messages.filter(role=Message.Role.USER).order_by("-sequence").first()
    return UserRecord.from_stored(latest.metadata).model if latest is not None else ""


def compactions_of(*, conversation: Conversation) -> list[Compaction]:
    """Every summary of the conversation, oldest first (the transcript marks each)."""
    return list(conversation.compactions.order_by("before_sequence", "pk"))


@dataclass(frozen=True)
class ConversationUsage:
    turns: int
    tokens: int
    cost: str | None
    export_url: str = ""  # the conversation as Markdown (chat.render.export)

    @property
    def cost_text(self) -> str:
        return dollars(self.cost)


def conversation_usage(*, conversation: Conversation) -> ConversationUsage:
    turns = tokens = 0
    # Tokens from each turn's totals; cost from every request's own column.
    closing = conversation.messages.filter(role=Message.Role.ASSISTANT, metadata__has_key=TURN_KEY)
    for metadata in closing.values_list("metadata", flat=True):
        turns += 1
        outcome = stored_turn(metadata)
        tokens += outcome.usage.total_tokens if outcome is not None else 0
    total = conversation.messages.aggregate(total=Sum("cost"))["total"]
    export_url = reverse(
        "conversation_export",
        kwargs={"project_id": conversation.project_id, "conversation_id": conversation.pk},
    )
    return ConversationUsage(turns, tokens, None if total is None else str(total), export_url)


@dataclass(frozen=True)
class LatestContext:
    """How full the model's context was at the latest turn that measured it."""

    record: ContextRecord
    compacted_since: bool  # earlier turns were summarised (by hand) after that turn


def latest_context(*, conversation: Conversation) -> LatestContext | None:
    closing = conversation.messages.filter(
        role=Message.Role.ASSISTANT, metadata__has_key=TURN_KEY
    ).order_by("-sequence")
    # A turn that ended before its first request (a refusal) measured nothing.
    for metadata, created_at in closing.values_list("metadata", "created_at")[:3]:
        outcome = stored_turn(metadata)
        if outcome is not None and outcome.context is not None:
            later = conversation.compactions.filter(created_at__gt=created_at).exists()
            return LatestContext(outcome.context, later)
    return None


def latest_answer(*, project: Project, conversation_id: int) -> str:
    """What the assistant answered at the end of the conversation's last turn
    ("" when it has none, or the conversation is not the project's)."""
    closing = Message.objects.filter(
        conversation_id=conversation_id,
        conversation__project=project,
        role=Message.Role.ASSISTANT,
        metadata__has_key=TURN_KEY,
    )
    return closing.order_by("-sequence").values_list("content", flat=True).first() or ""
