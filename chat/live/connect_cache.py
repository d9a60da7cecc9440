"""What a chat socket's connect asks the database, kept by the process: a
session's person, and a person's project (and whether it has a conversation
yet). A tab that reconnects, reloads or opens beside another then connects with
no query for them (each was 0.3 to 0.5 ms of Django's Python: bench/ws_fanout.py
--idle).

Each is kept under a generation (projects.generations: a word in Redis, or in
a file of the data directory, that every process reads), read before the rows
and checked on every connect, so nothing kept outlives the change that makes it
wrong, on any process:
- a person's ("socket-person-<id>") moves when one of their sessions is saved
  or deleted (signing out, here or everywhere, a password change's new key,
  sessions cleared by staff) and when the person is saved (a password,
  deactivation) or deleted;
- a project's ("socket-project-<id>") moves when it is saved with its owner or
  its trash mark, or deleted, when a conversation is made or deleted in it,
  and when a membership of it is saved or deleted or its access changes
  (projects.signals.access_changed): a person removed or given another role
  is never let in, or in as they were, by what was kept.

A personal access token is not kept (a script's connect asks each time). A
session that opens nothing is never kept: a stranger's guesses are asked of the
database each time. At most MAX_KEPT entries of each, none past KEPT_SECONDS
(a change made where no signal sees it, an SQL UPDATE by hand, lasts no longer),
nor past its session's expiry."""

from __future__ import annotations

import copy
import time
import uuid
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from accounts.models import UserSession
from chat.models import Conversation
from common.kept import Kept
from projects.access import Role
from projects.generations import generation, generation_advance, generation_drop
from projects.models import Membership, Project
from projects.signals import access_changed

MAX_KEPT = 10_000
KEPT_SECONDS = 300.0


@dataclass(frozen=True)
class _KeptPerson:
    word: str
    user: User
    expires: datetime  # the session's own expiry
    kept_at: float  # time.monotonic()


@dataclass(frozen=True)
class KeptProject:
    word: str
    project: Project
    role: Role  # the person's (projects.access)
    has_conversation: bool
    kept_at: float


_people: Kept[str, _KeptPerson] = Kept(count=MAX_KEPT)
_projects: Kept[tuple[int, uuid.UUID], KeptProject] = Kept(count=MAX_KEPT)


def person_word(user_id: int) -> str:
    """The person's generation now: read it before reading what it guards."""
    return generation(_person(user_id))


def person_kept(session_key: str) -> User | None:
    """The person signed in on `session_key` as kept, if still good (a copy:
    the caller may change it)."""
    kept = _people.get(session_key)
    if kept is None:
        return None
    if _stale(kept.kept_at) or kept.expires <= timezone.now():
        _people.drop(session_key)
        return None
    if generation(_person(kept.user.pk)) != kept.word:
        _people.drop(session_key)
        return None
    return copy.copy(kept.user)


def person_keep(session_key: str, *, user: User, word: str) -> None:
    """Keep `user` as `session_key`'s under `word` (read before `user` was),
    if the session's row is still there: one more query, on a miss only,
    since a sign-out between reading the session and reading `word` would
    otherwise be kept as signed in."""
    expires = (
        UserSession.objects.filter(session_key=session_key, user_id=user.pk)
        .values_list("expire_date", flat=True)
        .first()
    )
    if expires is not None:
        _people.put(session_key, _KeptPerson(word, copy.copy(user), expires, time.monotonic()))


def project_word(project_id: uuid.UUID) -> str:
    return generation(_project(project_id))


def project_kept(user_id: int, project_id: uuid.UUID) -> KeptProject | None:
    """The project as the person may use it, as kept (a copy of the project),
    with their role and whether it has a conversation, if still good."""
    key = (user_id, project_id)
    kept = _projects.get(key)
    if kept is None:
        return None
    if _stale(kept.kept_at) or generation(_project(project_id)) != kept.word:
        _projects.drop(key)
        return None
    return replace(kept, project=copy.copy(kept.project))


def project_keep(
    user_id: int, project: Project, *, role: Role, has_conversation: bool, word: str
) -> None:
    """Keep `project` as the person may use it, under `word`, read before it was."""
    kept = KeptProject(word, copy.copy(project), role, has_conversation, time.monotonic())
    _projects.put((user_id, project.pk), kept)


def _stale(kept_at: float) -> bool:
    return time.monotonic() - kept_at > KEPT_SECONDS


def _person(user_id: int) -> str:
    return f"socket-person-{user_id}"


def _project(project_id: uuid.UUID) -> str:
    return f"socket-project-{project_id}"


# --- what moves the generations ------------------------------------------------------

_PROJECT_FIELDS = {"owner", "owner_id", "deleted_at"}  # what a socket's check reads


def _session_changed(sender: Any, instance: UserSession, **kwargs: Any) -> None:
    if instance.user_id is not None:
        generation_advance(_person(instance.user_id))


def _user_saved(sender: Any, instance: User, **kwargs: Any) -> None:
    generation_advance(_person(instance.pk))


def _user_deleted(sender: Any, instance: User, **kwargs: Any) -> None:
    generation_drop(_person(instance.pk))


def _project_saved(sender: Any, instance: Project, update_fields: Any = None, **_: Any) -> None:
    if update_fields is None or _PROJECT_FIELDS & set(update_fields):
        generation_advance(_project(instance.pk))


def _project_deleted(sender: Any, instance: Project, **kwargs: Any) -> None:
    generation_drop(_project(instance.pk))


def _membership_changed(sender: Any, instance: Membership, **kwargs: Any) -> None:
    generation_advance(_project(instance.project_id))


def _access_changed(sender: Any, project: Project, **kwargs: Any) -> None:
    generation_advance(_project(project.pk))


def _conversation_changed(sender: Any, instance: Conversation, **kwargs: Any) -> None:
    if kwargs.get("created", True):  # post_delete has no `created`
        generation_advance(_project(instance.project_id))


def connect() -> None:
    """Called once, when the app is ready."""
    for signal, kind in ((post_save, "saved"), (post_delete, "deleted")):
        signal.connect(_session_changed, sender=UserSession, dispatch_uid=f"socket-session-{kind}")
        signal.connect(
            _conversation_changed, sender=Conversation, dispatch_uid=f"socket-conv-{kind}"
        )
        signal.connect(_membership_changed, sender=Membership, dispatch_uid=f"socket-member-{kind}")
    post_save.connect(_user_saved, sender=User, dispatch_uid="socket-person-saved")
    post_delete.connect(_user_deleted, sender=User, dispatch_uid="socket-person-deleted")
    post_save.connect(_project_saved, sender=Project, dispatch_uid="socket-project-saved")
    post_delete.connect(_project_deleted, sender=Project, dispatch_uid="socket-project-deleted")
    access_changed.connect(_access_changed, dispatch_uid="socket-project-access")
