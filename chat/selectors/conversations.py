"""Reads of a conversation: which one a page asked for, its title, its next
sequence number, its summaries, what it used and how full its context was."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import F, FilteredRelation, Max, OuterRef, Q, QuerySet, Subquery, Sum
from django.urls import reverse

from chat.models import Compaction, Conversation, Message
from chat.money import dollars
from chat.records.context_window import ContextRecord
from chat.records.reply import stored_turn
from chat.records.turn import TURN_KEY
from chat.records.user_message import UserRecord
from common.compiled import CompiledRead
from projects.access import Role, member_role, projects_visible_to
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


def _with_latest(project_id: uuid.UUID, user_id: int) -> QuerySet[Project]:
    # The latest as `project.conversations.first()` has it (Conversation's ordering).
    latest = Conversation.objects.filter(project_id=OuterRef("pk")).values("pk")[:1]
    shown = Q(conversations__pk=Subquery(latest))
    return _visible(project_id, user_id, shown)


def _with_asked(project_id: uuid.UUID, user_id: int, asked: int) -> QuerySet[Project]:
    return _visible(project_id, user_id, Q(conversations__pk=asked))


def _visible(project_id: uuid.UUID, user_id: int, shown: Q) -> QuerySet[Project]:
    # Project.objects: out of the trash only. Its owner's, or shared with the
    # person (their membership joined: one row at most, its role read with it:
    # projects.access), and the conversation joined (None when it has none, or
    # not that one), read in the same row.
    return (
        Project.objects.annotate(
            member=FilteredRelation("memberships", condition=Q(memberships__user_id=user_id)),
            shown=FilteredRelation("conversations", condition=shown),
        )
        .filter(Q(owner_id=user_id) | Q(member__isnull=False), pk=project_id)
        .annotate(member_role=F("member__role"))
        .select_related("shown")  # type: ignore[misc]  # the stubs know no FilteredRelation here
        .order_by()
    )


_PROJECT = Project._meta.pk
_OWNER = Project._meta.get_field("owner")
_PROJECT_WITH_LATEST = CompiledRead(_with_latest, project_id=_PROJECT, user_id=_OWNER)
_PROJECT_WITH_ASKED = CompiledRead(
    _with_asked, project_id=_PROJECT, user_id=_OWNER, asked=Conversation._meta.pk
)


@dataclass(frozen=True)
class SocketProject:
    """What a chat socket's connect reads: the project, the person's role in it
    (projects.access), and the conversation asked for."""

    project: Project
    role: Role
    conversation: Conversation | None


def project_with_conversation(
    *, user_id: int, project_id: uuid.UUID, raw: str | None
) -> SocketProject | None:
    """The project `project_id` if `user_id` owns it or it is shared with them
    and it is out of the trash, with their role in it and the conversation
    `raw` asks for (its latest when `raw` is empty: None when it has none);
    None when there is no such project, or `raw` names none of its
    conversations. One query either way, compiled once (common.compiled): a
    chat socket's connect (chat.live.orders)."""
    if not raw:
        project = _PROJECT_WITH_LATEST.first(project_id=project_id, user_id=user_id)
    else:
        asked = _asked_id(raw)
        if asked is None:
            return None
        project = _PROJECT_WITH_ASKED.first(project_id=project_id, user_id=user_id, asked=asked)
    if project is None:
        return None
    # Taken off the project (select_related set it as an attribute, and the
    # project on the conversation): the project kept by a socket for its life
    # would otherwise hold its conversation and be held by it, a cycle the
    # garbage collector then walks for every open socket.
    conversation: Conversation | None = vars(project).pop("shown", None)
    shared: str | None = vars(project).pop("member_role", None)
    if raw and conversation is None:
        return None
    role: Role = "owner" if project.owner_id == user_id else member_role(shared or "")
    return SocketProject(project, role, conversation)


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


def message_get_for(*, user: User | AnonymousUser, message_id: int) -> Message | None:
    """A message in a project `user` may look at (their own or shared), or None."""
    return Message.objects.filter(
        pk=message_id, conversation__project__in=projects_visible_to(user).values("pk")
    ).first()


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
