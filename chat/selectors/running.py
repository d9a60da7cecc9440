"""Running turns: a running turn is the project's lock of purpose TURN_LOCK
(projects.locks)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

from django.db.models import Q
from django.utils import timezone

from chat.models import Message
from projects.locks import lock_current, lock_lapsed, lock_of
from projects.models import Project, ProjectLock

TURN_LOCK = "assistant"  # the purpose of a running turn's project lock (projects.locks)


@dataclass(frozen=True)
class RunningTurn:
    """What a lock says about the turn holding it."""

    key: str
    conversation_id: int | None
    first_sequence: int  # the turn's messages have this sequence or later
    channel: str | None  # its control channel (chat.live.turns)
    user_id: int | None = None  # who sent it (None: a lock from before it said)
    user_name: str = ""


def running_turn(*, project: Project | uuid.UUID) -> RunningTurn | None:
    """The turn running on a project now, if any."""
    lock = lock_current(project)
    return None if lock is None else running_turn_of(lock)


@dataclass(frozen=True)
class TurnNow:
    """What the project's lock says, in one read."""

    running: RunningTurn | None
    lapsed: str | None = None  # the key of a turn whose server stopped refreshing its lock


def turn_now(*, project: Project | uuid.UUID) -> TurnNow:
    """The turn running on a project now, or the one whose server stopped and
    that no one recorded yet (its lock lapsed and is still there)."""
    lock = lock_of(project)
    if lock is None:
        return TurnNow(None)
    if not lock_lapsed(lock):
        return TurnNow(running_turn_of(lock))
    return TurnNow(None, lock.holder if lock.purpose == TURN_LOCK else None)


def running_turn_of(lock: ProjectLock) -> RunningTurn:
    details = lock.details if isinstance(lock.details, dict) else {}
    conversation = details.get("conversation")
    first = details.get("first_sequence")
    channel = details.get("channel")
    user_id, user_name = sent_by(details)
    return RunningTurn(
        key=lock.holder,
        conversation_id=conversation if isinstance(conversation, int) else None,
        first_sequence=first if isinstance(first, int) else 0,
        channel=channel if isinstance(channel, str) else None,
        user_id=user_id,
        user_name=user_name,
    )


def sent_by(details: object) -> tuple[int | None, str]:
    """Who sent the turn a lock's details describe: their id and name, as the
    chat names them (common.users.person_name)."""
    if not isinstance(details, dict):
        return None, ""
    user_id, name = details.get("user"), details.get("user_name")
    return (
        user_id if isinstance(user_id, int) else None,
        name if isinstance(name, str) else "",
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
    return "lapsed" if lock_lapsed(lock) else "running"


def turns_running_elsewhere(*, user_id: int, project: Project) -> int:
    """How many turns the person sent that run on other projects (theirs or
    shared with them); a lock that names no sender is its project's owner's."""
    sent = Q(details__user=user_id) | (~Q(details__has_key="user") & Q(project__owner_id=user_id))
    return (
        ProjectLock.objects.filter(sent, purpose=TURN_LOCK, expires_at__gt=timezone.now())
        .exclude(project=project)
        .count()
    )


def turns_sent_to(*, user_id: int, model: str) -> bool:
    """Whether the person has sent a turn to `model` (in a project of theirs,
    or one shared with them; before turns named their sender, their own)."""
    sent = Q(sender_id=user_id) | Q(sender__isnull=True, conversation__project__owner_id=user_id)
    return Message.objects.filter(
        sent,
        role=Message.Role.USER,
        metadata__model=model,  # UserRecord's
    ).exists()


def lapsed_turns(*, project: Project) -> list[str]:
    """The keys of the project's turns whose server stopped refreshing their lock."""
    lapsed = ProjectLock.objects.filter(
        project=project, purpose=TURN_LOCK, expires_at__lte=timezone.now()
    )
    return list(lapsed.values_list("holder", flat=True))
