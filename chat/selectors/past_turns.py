"""Earlier turns of a conversation as the model reads them (history)."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db.models import Q

from chat.models import Conversation, Message
from chat.records.reply import stored_turn
from chat.records.user_message import UserRecord
from chat.selectors.turns import turn_groups
from projects.models import FileRevision, Reversal

_MAX_REVERSAL_NOTES = 20  # undos and restores the history mentions, the newest


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
    # What the person changed in the preview themselves after it (FileRevision.note).
    edited: tuple[str, ...] = ()
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
    return _with_edits(conversation, _with_reversals(conversation, turns, began), began)


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
    # An undo of the person's own edit in the preview is of no turn: the project's.
    rows = (
        Reversal.objects.filter(
            Q(message__conversation=conversation)
            | Q(message__isnull=True, project_id=conversation.project_id),
            created_at__gte=began[0],
        )
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


def _with_edits(
    conversation: Conversation, turns: list[PastTurn], began: list[datetime]
) -> list[PastTurn]:
    """Each edit the person made in the preview noted on the last turn sent
    before it, so the model does not put it back. One edit may write two files
    (a class and its rule) under one note: said once."""
    if not turns:
        return turns
    rows = (
        FileRevision.objects.filter(
            project_id=conversation.project_id, created_at__gte=began[0], reversal__isnull=True
        )
        .exclude(note="")
        .order_by("-pk")
        .values_list("created_at", "note", "path")[:_MAX_REVERSAL_NOTES]
    )
    notes: dict[int, list[str]] = {}
    last_note = ""
    for created_at, note, path in reversed(rows):
        if note == last_note:
            continue  # the same edit's second file
        last_note = note
        index = bisect_right(began, created_at) - 1
        notes.setdefault(index, []).append(f"{note} (in {path})")
    return [
        replace(turn, edited=tuple(notes[index])) if index in notes else turn
        for index, turn in enumerate(turns)
    ]
