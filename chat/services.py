"""Conversations and messages: the writes and reads the loop, the command and
the admin share. Synchronous, like the file service; the loop calls them in a
pool thread (chat.agent.threads).

Message metadata keys:
- user: `model`, `attachments` when the preview gave it some (chat.agent.attachments),
  `images` (ChatImage ids) when pictures went with it.
- assistant, one per model request: `model`, `provider`, `generation_id`,
  `iteration`, `finish_reason`, `usage`, `duration_ms`, `reasoning_details`.
- tool: `name`, `ok`, `summary`, `duration_ms`.
- the assistant message that closes a turn also has `turn`: `status`,
  `finish_reason`, `iterations`, `usage`, `cost`, `files_changed`,
  `tool_timings`, `duration_ms`, `error`.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from chat.models import ChatImage, Conversation, Message
from chat.spending import charge_record
from common.jsontypes import JSONObject
from common.text import plain_excerpt, well_formed
from projects.models import Project, Reversal

# A conversation is named after its first message: one line, Markdown out, cut at a word.
_TITLE_LENGTH = 80
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


@dataclass(frozen=True)
class MessageError:
    message: str


def message_too_long(length: int | None = None) -> MessageError:
    """The one wording of the message-length limit: here, and for a socket frame
    too large to hold such a message (chat.live.frames, `length` unknown)."""
    limit = settings.BUILTIT_MAX_MESSAGE_CHARS
    this_one = f"; this one has {length:,}" if length is not None else ""
    return MessageError(
        f"Messages are at most {limit:,} characters{this_one}. Nothing was sent: shorten it, "
        "or put long text in a project file and refer to it."
    )


def clean_user_message(text: object) -> str | MessageError:
    """A person's chat message as the loop takes it, or why it cannot be sent."""
    if not isinstance(text, str) or not text.strip():
        return MessageError("Write a message first.")
    if len(text) > settings.BUILTIT_MAX_MESSAGE_CHARS:
        return message_too_long(len(text))
    if "\x00" in text or well_formed(text) != text:
        return MessageError("The message contains characters that cannot be stored.")
    return text.strip()


def conversation_create(*, project: Project, title: str = "") -> Conversation:
    return Conversation.objects.create(project=project, title=title.strip()[:_TITLE_LENGTH])


def conversation_get(*, project: Project, conversation_id: int) -> Conversation | None:
    return Conversation.objects.filter(project=project, pk=conversation_id).first()


def message_get_for(*, user_id: int, message_id: int) -> Message | None:
    """One of the user's own messages (in a project they own), or None."""
    return Message.objects.filter(pk=message_id, conversation__project__owner_id=user_id).first()


def next_sequence(conversation: Conversation) -> int:
    last = conversation.messages.aggregate(last=Max("sequence"))["last"]
    return 1 if last is None else last + 1


@transaction.atomic
def message_user_create(
    *,
    conversation: Conversation,
    sequence: int,
    text: str,
    model: str,
    attachments: list[JSONObject] | None = None,
    images: list[int] | None = None,
) -> Message:
    metadata: JSONObject = {"model": model}
    if attachments:
        metadata["attachments"] = list(attachments)
    if images:
        metadata["images"] = list(images)
    message = Message.objects.create(
        conversation=conversation,
        sequence=sequence,
        role=Message.Role.USER,
        content=text,
        metadata=metadata,
    )
    if images:  # they went with this message
        ChatImage.objects.filter(pk__in=images, message__isnull=True).update(message=message)
    fields = ["updated_at"]
    if not conversation.title:
        conversation.title = conversation_title_for(text)
        fields.append("title")
    conversation.save(update_fields=fields)
    return message


@transaction.atomic
def message_create(
    *,
    conversation: Conversation,
    sequence: int,
    role: Message.Role,
    content: str = "",
    reasoning: str = "",
    tool_calls: list[JSONObject] | None = None,
    tool_call_id: str = "",
    metadata: JSONObject | None = None,
    cost: Decimal | None = None,
) -> Message:
    message = Message.objects.create(
        conversation=conversation,
        sequence=sequence,
        role=role,
        content=content,
        reasoning=reasoning,
        tool_calls=tool_calls or [],
        tool_call_id=tool_call_id,
        metadata=metadata or {},
        cost=cost,
    )
    charge_record(message=message)
    return message


@transaction.atomic
def message_update(
    *,
    message: Message,
    content: str,
    reasoning: str,
    tool_calls: list[JSONObject],
    metadata: JSONObject,
    cost: Decimal | None,
) -> Message:
    message.content, message.reasoning, message.tool_calls = content, reasoning, tool_calls
    message.metadata, message.cost = metadata, cost
    message.save(update_fields=["content", "reasoning", "tool_calls", "metadata", "cost"])
    charge_record(message=message)
    Conversation.objects.filter(pk=message.conversation_id).update(updated_at=timezone.now())
    return message


def past_turns(conversation: Conversation, *, before_sequence: int | None = None) -> list[PastTurn]:
    """The conversation's turns (before `before_sequence`, if given), oldest first,
    each with the undos and restores made after it."""
    messages = conversation.messages.all()
    if before_sequence is not None:
        messages = messages.filter(sequence__lt=before_sequence)
    rows = (
        messages.exclude(role=Message.Role.TOOL)
        .order_by("sequence")
        .values_list("role", "content", "metadata", "created_at")
    )
    turns: list[PastTurn] = []
    began: list[datetime] = []  # when each turn's request was sent
    request: str | None = None
    for role, content, metadata, created_at in rows:
        if role == Message.Role.USER:
            if request is not None:  # a turn that never closed (the server died)
                turns.append(PastTurn(request, "", (), "stopped"))
            request = content + _pictures_note(metadata)
            began.append(created_at)
        elif role == Message.Role.ASSISTANT and request is not None:
            outcome = metadata.get("turn") if isinstance(metadata, dict) else None
            if isinstance(outcome, dict):
                files = outcome.get("files_changed") or []
                status = str(outcome.get("status") or "completed")
                turns.append(PastTurn(request, content, tuple(map(str, files)), status))
                request = None
    if request is not None:
        turns.append(PastTurn(request, "", (), "stopped"))
    return _with_reversals(conversation, turns, began)


def _pictures_note(metadata: object) -> str:
    """An earlier message's pictures are not sent again: the history says they were there."""
    images = metadata.get("images") if isinstance(metadata, dict) else None
    count = len(images) if isinstance(images, list) else 0
    if not count:
        return ""
    return f"\n[The person attached {count} picture{'s' if count != 1 else ''} to this message.]"


def _with_reversals(
    conversation: Conversation, turns: list[PastTurn], began: list[datetime]
) -> list[PastTurn]:
    """Each undo or restore noted on the last turn sent before it was made."""
    if not turns:
        return turns
    rows = (
        Reversal.objects.filter(project_id=conversation.project_id, created_at__gte=began[0])
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


def conversation_title_for(first_message: str) -> str:
    """The name of a conversation that begins with this message (the one rule for it)."""
    return plain_excerpt(first_message, _TITLE_LENGTH)


def conversation_start(*, project: Project) -> Conversation:
    """A fresh conversation, reusing the project's latest one if it is still empty."""
    latest = project.conversations.first()
    if latest is not None and not latest.messages.exists():
        return latest
    return conversation_create(project=project)
