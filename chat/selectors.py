"""Every read the chat does that is more than a lookup (the writes are in chat.services).

The rules that answer "which messages", each in one place:
- sequence numbers: a conversation's next one is one past its highest
  (`next_sequence`; a running turn reserves its own: chat.agent.recorder);
- a turn is a person's message and the messages after it up to their next one
  (`turn_end`, `turn_messages`, `turn_of`, `turn_groups`); its closing message
  carries its outcome (chat.records.TurnRecord);
- a running turn is the project's lock of purpose TURN_LOCK (`running_turn`).
"""

from __future__ import annotations

import uuid
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal

from django.db.models import Max, QuerySet, Sum
from django.urls import reverse
from django.utils import timezone

from chat.llm import Usage
from chat.models import Compaction, Conversation, Message
from chat.money import dollars
from chat.records.context_window import ContextRecord
from chat.records.reply import AssistantRecord, stored_turn
from chat.records.turn import TURN_KEY, ClosedTurn, TurnRecord
from chat.records.user_message import UserRecord
from projects.locks import lock_current
from projects.models import FileRevision, Project, ProjectLock, Reversal

TURN_LOCK = "assistant"  # the purpose of a running turn's project lock (projects.locks)
_MAX_REVERSAL_NOTES = 20  # undos and restores the history mentions, the newest


def next_sequence(*, conversation: Conversation) -> int:
    last = conversation.messages.aggregate(last=Max("sequence"))["last"]
    return 1 if last is None else last + 1


# --- conversations ------------------------------------------------------------------


def conversation_get(*, project: Project, conversation_id: int) -> Conversation | None:
    return Conversation.objects.filter(project=project, pk=conversation_id).first()


def conversation_for(*, project: Project, raw: str | None) -> Conversation | None:
    """The conversation a page or socket asked for (None if it is not one of the
    project's), or the project's latest when none was asked for."""
    if not raw:
        return project.conversations.first()
    if not raw.isdigit() or len(raw) > 18:
        return None
    return conversation_get(project=project, conversation_id=int(raw))


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


# --- a turn's span ----------------------------------------------------------------------


def turn_end(*, turn: Message) -> int | None:
    """The sequence number of the person's next message: the turn's messages are
    before it. None while `turn` is the conversation's last."""
    return (
        Message.objects.filter(
            conversation_id=turn.conversation_id,
            role=Message.Role.USER,
            sequence__gt=turn.sequence,
        )
        .order_by("sequence")
        .values_list("sequence", flat=True)
        .first()
    )


def turn_messages(*, turn: Message) -> QuerySet[Message]:
    """Every message of the turn that `turn` (a person's message) began, itself included."""
    end = turn_end(turn=turn)
    rows = Message.objects.filter(conversation_id=turn.conversation_id, sequence__gte=turn.sequence)
    return rows.filter(sequence__lt=end) if end is not None else rows


def turn_get(*, conversation: Conversation, turn_id: int) -> Message | None:
    """The person's message `turn_id` if it began a turn of `conversation`."""
    return conversation.messages.filter(pk=turn_id, role=Message.Role.USER).first()


def turn_latest(*, conversation: Conversation) -> Message | None:
    """The person's message that began the conversation's latest turn."""
    return conversation.messages.filter(role="user").order_by("-sequence").first()


def turn_of(*, user_id: int, message_id: int) -> Message | None:
    """The person's message that began the turn holding `message_id`, in one of
    the user's own projects; None if there is none."""
    message = (
        Message.objects.filter(pk=message_id, conversation__project__owner_id=user_id)
        .select_related("conversation__project")
        .first()
    )
    if message is None or message.role == Message.Role.USER:
        return message
    return (
        Message.objects.filter(
            conversation_id=message.conversation_id,
            role=Message.Role.USER,
            sequence__lt=message.sequence,
        )
        .select_related("conversation__project")
        .order_by("-sequence")
        .first()
    )


def turns_revisions(*, first: Message, last: Message) -> QuerySet[FileRevision]:
    """The revisions made by the turns from `first` to `last` (one conversation's)."""
    end = turn_end(turn=last)
    rows = FileRevision.objects.filter(
        message__conversation_id=first.conversation_id, message__sequence__gte=first.sequence
    )
    return rows.filter(message__sequence__lt=end) if end is not None else rows


def turn_revisions(*, turn: Message) -> QuerySet[FileRevision]:
    """The revisions the turn's tool calls made, oldest first."""
    return turns_revisions(first=turn, last=turn).order_by("pk")


def turn_closed(*, request_id: int) -> ClosedTurn | None:
    """How the turn that began with message `request_id` ended, from its stored
    closing record; None while it has none."""
    request = Message.objects.filter(pk=request_id, role=Message.Role.USER).first()
    if request is None:
        return None
    closing = (
        turn_messages(turn=request)
        .filter(metadata__has_key=TURN_KEY)
        .order_by("sequence")
        .values_list("pk", "metadata")
        .first()
    )
    if closing is None:
        return None
    message_id, metadata = closing
    return ClosedTurn(message_id, stored_turn(metadata) or TurnRecord())


@dataclass(frozen=True)
class TurnSoFar:
    """What a turn that never closed had stored (its server stopped)."""

    replies: int
    usage: Usage
    files_changed: list[str]
    seconds: float  # from its request to the last thing it stored


def turn_so_far(*, conversation: Conversation, first_sequence: int) -> TurnSoFar | None:
    """The turn whose messages begin at `first_sequence`; None if it closed after all."""
    in_turn = conversation.messages.filter(sequence__gte=first_sequence)
    if in_turn.filter(metadata__has_key=TURN_KEY).exists():
        return None
    stored = in_turn.filter(role=Message.Role.ASSISTANT).values_list("metadata", flat=True)
    usages = [AssistantRecord.from_stored(metadata).usage or Usage() for metadata in stored]
    request = in_turn.filter(role=Message.Role.USER).order_by("sequence").first()
    last = in_turn.order_by("sequence").last()
    changed = turn_revisions(turn=request).values_list("path", flat=True) if request else []
    seconds = (last.created_at - request.created_at).total_seconds() if request and last else 0
    return TurnSoFar(len(usages), sum(usages, Usage()), list(dict.fromkeys(changed)), seconds)


def turn_groups(messages: Iterable[Message]) -> list[tuple[Message, list[Message]]]:
    """Messages in order as turns: each person's message with those after it up
    to their next; any before the first belong to no turn."""
    groups: list[tuple[Message, list[Message]]] = []
    for message in messages:
        if message.role == Message.Role.USER:
            groups.append((message, []))
        elif groups:
            groups[-1][1].append(message)
    return groups


# --- running turns ------------------------------------------------------------------------


@dataclass(frozen=True)
class RunningTurn:
    """What a lock says about the turn holding it."""

    key: str
    conversation_id: int | None
    first_sequence: int  # the turn's messages have this sequence or later
    channel: str | None  # its control channel (chat.live.turns)


def running_turn(*, project: Project | uuid.UUID) -> RunningTurn | None:
    """The turn running on a project now, if any."""
    lock = lock_current(project)
    return None if lock is None else running_turn_of(lock)


def running_turn_of(lock: ProjectLock) -> RunningTurn:
    details = lock.details if isinstance(lock.details, dict) else {}
    conversation = details.get("conversation")
    first = details.get("first_sequence")
    channel = details.get("channel")
    return RunningTurn(
        key=lock.holder,
        conversation_id=conversation if isinstance(conversation, int) else None,
        first_sequence=first if isinstance(first, int) else 0,
        channel=channel if isinstance(channel, str) else None,
    )


TurnState = Literal["running", "lapsed", "ended"]


def turn_state(*, project_id: uuid.UUID, key: str) -> TurnState:
    """What the lock says of the turn `key`: its server still refreshes it; it
    lapsed (the server stopped: nobody else removes a lock); or it is gone (the
    turn ended and released it, its `done` on its way, or another tab already
    found it lapsed and said so)."""
    lock = ProjectLock.objects.filter(project_id=project_id, holder=key).first()
    if lock is None:
        return "ended"
    return "running" if lock.expires_at > timezone.now() else "lapsed"


def turns_running_elsewhere(*, owner_id: int, project: Project) -> int:
    """How many turns the person has running on their other projects."""
    return (
        ProjectLock.objects.filter(
            project__owner_id=owner_id, purpose=TURN_LOCK, expires_at__gt=timezone.now()
        )
        .exclude(project=project)
        .count()
    )


def turns_sent_to(*, owner_id: int, model: str) -> bool:
    """Whether the person has sent a turn to `model` in any of their projects."""
    return Message.objects.filter(
        role=Message.Role.USER,
        conversation__project__owner_id=owner_id,
        metadata__model=model,  # UserRecord's
    ).exists()


def lapsed_turns(*, project: Project) -> list[str]:
    """The keys of the project's turns whose server stopped refreshing their lock."""
    lapsed = ProjectLock.objects.filter(
        project=project, purpose=TURN_LOCK, expires_at__lte=timezone.now()
    )
    return list(lapsed.values_list("holder", flat=True))


# --- the conversation ---------------------------------------------------------------------


@dataclass(frozen=True)
class PastTurn:
    """An earlier turn as history: never the file contents, only what was said
    and which files changed."""

    request: str
    answer: str
    files_changed: tuple[str, ...]
    status: str
    # Undos and restores the person made after this turn (Reversal.summary).
    afterwards: tuple[str, ...] = ()
    sequence: int = field(default=0, compare=False)  # of the message that began it
    plan: bool = field(default=False, compare=False)  # asked for a plan only


def past_turns(*, conversation: Conversation, before_sequence: int | None = None) -> list[PastTurn]:
    """The conversation's turns (before `before_sequence`, if given), oldest first,
    each with the undos and restores made after it."""
    messages = conversation.messages.all()
    if before_sequence is not None:
        messages = messages.filter(sequence__lt=before_sequence)
    rows = messages.exclude(role=Message.Role.TOOL).order_by("sequence")
    groups = turn_groups(rows.only("sequence", "role", "content", "metadata", "created_at"))
    turns = [_past_turn(request, rest) for request, rest in groups]
    began = [request.created_at for request, _ in groups]  # when each turn's request was sent
    return _with_reversals(conversation, turns, began)


def _past_turn(request: Message, rest: list[Message]) -> PastTurn:
    record = UserRecord.from_stored(request.metadata)
    asked = request.content + _pictures_note(record)
    for message in rest:
        outcome = stored_turn(message.metadata) if message.role == Message.Role.ASSISTANT else None
        if outcome is not None:
            return PastTurn(
                asked,
                message.content,
                outcome.files_changed,
                outcome.status,
                sequence=request.sequence,
                plan=record.plan,
            )
    return PastTurn(
        asked, "", (), "stopped", sequence=request.sequence, plan=record.plan
    )  # its server died


def _pictures_note(record: UserRecord) -> str:
    """An earlier message's pictures are not sent again: the history says they were there."""
    count = len(record.images)
    if not count:
        return ""
    return f"\n[The person attached {count} picture{'s' if count != 1 else ''} to this message.]"


def _with_reversals(
    conversation: Conversation, turns: list[PastTurn], began: list[datetime]
) -> list[PastTurn]:
    """Each undo or restore of one of the conversation's turns noted on its last
    turn sent before it was made. Those of another conversation's turns are
    not: the note names the turn, and a conversation (its history, its
    summary) holds only its own."""
    if not turns:
        return turns
    rows = (
        Reversal.objects.filter(message__conversation=conversation, created_at__gte=began[0])
        .order_by("-pk")
        .values_list("created_at", "summary")[:_MAX_REVERSAL_NOTES]
    )
    notes: dict[int, list[str]] = {}
    for created_at, summary in reversed(rows):
        index = bisect_right(began, created_at) - 1
        notes.setdefault(index, []).append(summary)
    return [
        replace(turn, afterwards=tuple(notes[index])) if index in notes else turn
        for index, turn in enumerate(turns)
    ]


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


def turn_page_start(
    *, conversation: Conversation, before: int | None, limit: int
) -> tuple[int | None, bool]:
    """Where the last `limit` turns that began before `before` (all, when None)
    begin (None: there are none), and whether turns exist before them."""
    users = conversation.messages.filter(role=Message.Role.USER)
    if before is not None:
        users = users.filter(sequence__lt=before)
    starts = list(users.order_by("-sequence").values_list("sequence", flat=True)[: limit + 1])
    if not starts:
        return None, False
    return starts[min(limit, len(starts)) - 1], len(starts) > limit


def shown_messages(
    *, conversation: Conversation, start: int | None = None, before: int | None = None
) -> QuerySet[Message]:
    """The messages a chat panel shows (all but the system's), in order; those
    whose sequence numbers lie in [start, before) when given."""
    messages = conversation.messages.exclude(role=Message.Role.SYSTEM)
    if start is not None:
        messages = messages.filter(sequence__gte=start)
    if before is not None:
        messages = messages.filter(sequence__lt=before)
    return messages.order_by("sequence")


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
