"""Conversations, messages and a running turn's lock: the writes the loop, the
live turn, the command and the admin share (their reads are chat.selectors).
Synchronous, like the file service; the loop calls them in a pool thread
(common.threads).

A message's metadata is written as its record (chat.records).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from chat.models import ChatImage, Compaction, Conversation, Message
from chat.records.reply import AssistantRecord
from chat.records.tool_result import ToolRecord
from chat.records.turn import SERVER_STOPPED, TurnRecord
from chat.records.user_message import UserRecord
from chat.selectors.conversations import next_sequence
from chat.selectors.running import TURN_LOCK, lapsed_turns, running_turn_of, turns_running_elsewhere
from chat.selectors.turns import turn_so_far
from chat.spending import charge_add, charge_record
from common.jsontypes import JSONObject
from common.refusals import Refusal
from common.text import plain_excerpt, well_formed
from common.users import person_name
from projects.locks import LockHeld, lock_acquire
from projects.models import Project, ProjectLock

# A conversation is named after its first message: one line, Markdown out, cut at a word.
_TITLE_LENGTH = 80


@dataclass(frozen=True)
class MessageRefused(Refusal):
    """A person's message not sent, and why."""


def message_too_long(length: int | None = None) -> MessageRefused:
    """The one wording of the message-length limit: here, and for a socket frame
    too large to hold such a message (chat.live.frames, `length` unknown)."""
    limit = settings.BUILTIT_MAX_MESSAGE_CHARS
    this_one = f"; this one has {length:,}" if length is not None else ""
    return MessageRefused(
        f"Messages are at most {limit:,} characters{this_one}. Nothing was sent: shorten it, "
        "or put long text in a project file and refer to it."
    )


def clean_user_message(text: object) -> str | MessageRefused:
    """A person's chat message as the loop takes it, or why it cannot be sent."""
    if not isinstance(text, str) or not text.strip():
        return MessageRefused("Write a message first.")
    if len(text) > settings.BUILTIT_MAX_MESSAGE_CHARS:
        return message_too_long(len(text))
    if "\x00" in text or well_formed(text) != text:
        return MessageRefused("The message contains characters that cannot be stored.")
    return text.strip()


def conversation_create(*, project: Project, title: str = "") -> Conversation:
    return Conversation.objects.create(project=project, title=title.strip()[:_TITLE_LENGTH])


@transaction.atomic
def message_user_create(
    *,
    conversation: Conversation,
    sequence: int,
    text: str,
    model: str,
    attachments: list[JSONObject] | None = None,
    images: list[int] | None = None,
    plan: bool = False,
    sender_id: int | None = None,
) -> Message:
    """`sender_id`: the person who sent it (None: the project's owner)."""
    record = UserRecord(model, tuple(attachments or ()), tuple(images or ()), plan)
    message = Message.objects.create(
        conversation=conversation,
        sequence=sequence,
        role=Message.Role.USER,
        content=text,
        metadata=record.to_stored(),
        sender_id=sender_id,
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
    record: AssistantRecord | ToolRecord | None = None,
    cost: Decimal | None = None,
    sender_id: int | None = None,
) -> Message:
    """A reply or a tool result (a person's message: message_user_create), in
    the turn `sender_id` sent (who pays for it; None: the project's owner)."""
    message = Message.objects.create(
        conversation=conversation,
        sequence=sequence,
        role=role,
        content=content,
        reasoning=reasoning,
        tool_calls=tool_calls or [],
        tool_call_id=tool_call_id,
        metadata=record.to_stored() if record is not None else {},
        cost=cost,
        sender_id=sender_id,
    )
    charge_add(message=message, conversation=conversation)
    return message


@transaction.atomic
def message_update(
    *,
    message: Message,
    content: str,
    reasoning: str,
    tool_calls: list[JSONObject],
    record: AssistantRecord,
    cost: Decimal | None,
) -> Message:
    message.content, message.reasoning, message.tool_calls = content, reasoning, tool_calls
    message.metadata, message.cost = record.to_stored(), cost
    message.save(update_fields=["content", "reasoning", "tool_calls", "metadata", "cost"])
    charge_record(message=message)
    Conversation.objects.filter(pk=message.conversation_id).update(updated_at=timezone.now())
    return message


def conversation_title_for(first_message: str) -> str:
    """The name of a conversation that begins with this message (the one rule for it)."""
    return plain_excerpt(first_message, _TITLE_LENGTH)


def conversation_start(*, project: Project) -> Conversation:
    """A fresh conversation, reusing the project's latest one if it is still empty."""
    latest = project.conversations.first()
    if latest is not None and not latest.messages.exists():
        return latest
    return conversation_create(project=project)


# --- a running turn's lock (its reads: chat.selectors) ----------------------------------


@dataclass(frozen=True)
class TooManyTurns:
    running: int  # the person's turns running on their other projects


@transaction.atomic
def turn_lock_take(
    *,
    project: Project,
    conversation: Conversation,
    channel: str | None,
    limit: int | None,
    sender: User | None = None,
) -> ProjectLock | LockHeld | TooManyTurns:
    """The project's lock for a turn in `conversation` sent by `sender` (None: the
    owner), unless one holds it or the sender already runs `limit` turns
    elsewhere; `channel` is the turn's control channel (chat.live.turns). The
    lock names the sender, for whoever finds the project busy."""
    person_id = sender.pk if sender is not None else project.owner_id
    # One start at a time per person (the row lock on PostgreSQL; SQLite's
    # IMMEDIATE transactions already run one at a time), so that two turns
    # starting together cannot both pass the count of running ones.
    User.objects.select_for_update().filter(pk=person_id).first()
    if limit is not None:
        running = turns_running_elsewhere(user_id=person_id, project=project)
        if running >= limit:
            return TooManyTurns(running)
    for key in lapsed_turns(project=project):
        # Its server died and no tab was there to see it: record it before the
        # lock is taken over, as a watching tab would have.
        turn_abandon(project_id=project.pk, key=key)
    details = {
        "conversation": conversation.pk,
        "first_sequence": next_sequence(conversation=conversation),
        "channel": channel,
        "user": person_id,
        # Named as the chat names them ("Erin asked"), for the refusal of
        # anyone else's message while it runs (chat.live.turns.busy_message).
        "user_name": person_name(sender) if sender is not None else "",
    }
    ttl = settings.BUILTIT_TURN_LOCK_TTL
    return lock_acquire(project=project, purpose=TURN_LOCK, details=details, ttl=ttl)


@transaction.atomic
def turn_abandon(*, project_id: uuid.UUID, key: str) -> bool:
    """The turn `key` whose server stopped refreshing its lock (it crashed, or was
    killed): the lapsed lock goes and the turn is recorded as interrupted, with what
    it had stored kept. True for the one caller that did it (any tab may try)."""
    lock = (
        ProjectLock.objects.select_for_update()
        .filter(project_id=project_id, holder=key, expires_at__lte=timezone.now())
        .first()
    )
    if lock is None:
        return False
    turn = running_turn_of(lock)
    lock.delete()
    conversation = Conversation.objects.filter(pk=turn.conversation_id or 0).first()
    if conversation is None:
        return True
    stored = turn_so_far(conversation=conversation, first_sequence=turn.first_sequence)
    if stored is None:
        return True  # it closed after all
    record = TurnRecord.ended(
        status="interrupted",
        finish_reason="server_stopped",
        iterations=stored.replies,
        usage=stored.usage,
        files_changed=stored.files_changed,
        tool_timings=[],
        seconds=stored.seconds,
        error=SERVER_STOPPED,
    )
    message_create(
        conversation=conversation,
        sequence=next_sequence(conversation=conversation),
        role=Message.Role.ASSISTANT,
        record=AssistantRecord(turn=record),
    )
    return True


def compaction_create(
    *,
    conversation: Conversation,
    before_sequence: int,
    turns: int,
    summary: str,
    tokens_before: int,
    tokens_after: int,
    model: str,
    cost: Decimal | None,
    by_hand: bool,
) -> Compaction:
    """A summary of the conversation's turns before `before_sequence`, which the
    model reads instead of them from now on (chat.agent.compaction)."""
    return Compaction.objects.create(
        conversation=conversation,
        before_sequence=before_sequence,
        turns=turns,
        summary=summary,
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        model=model[:200],
        cost=cost,
        by_hand=by_hand,
    )
