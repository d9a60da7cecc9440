"""Running turns: a running turn is the project's lock of purpose TURN_LOCK
(projects.locks)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

from django.utils import timezone

from chat.models import Message
from projects.locks import lock_current
from projects.models import Project, ProjectLock

TURN_LOCK = "assistant"  # the purpose of a running turn's project lock (projects.locks)


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
