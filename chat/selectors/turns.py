"""Reads of turns: a turn is a person's message and the messages after it up
to their next one; its closing message carries its outcome
(chat.records.turn.TurnRecord)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import QuerySet

from chat.llm import Usage
from chat.models import Conversation, Message
from chat.records.reply import AssistantRecord, stored_turn
from chat.records.turn import TURN_KEY, ClosedTurn, TurnRecord
from projects.models import FileRevision, Project


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


def turn_of(*, project: Project, message_id: int) -> Message | None:
    """The person's message that began the turn holding `message_id`, in
    `project` (found for the person by projects.access); None if there is none."""
    message = (
        Message.objects.filter(pk=message_id, conversation__project=project)
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


def turn_closed_at(*, conversation_id: int, first_sequence: int) -> ClosedTurn | None:
    """`turn_closed` for the turn whose person's message has `first_sequence` (as
    its lock said: chat.selectors.running.RunningTurn)."""
    request = (
        Message.objects.filter(
            conversation_id=conversation_id, sequence=first_sequence, role=Message.Role.USER
        )
        .values_list("pk", flat=True)
        .first()
    )
    return None if request is None else turn_closed(request_id=request)


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
