"""One piece of work at a time per project, across processes: a row in ProjectLock.

    lock = lock_acquire(project=p, purpose="assistant", details={...}, ttl=60)
    if isinstance(lock, LockHeld): ...      # someone else is working on it
    locks_refresh([lock], ttl=60)           # while working, well within the ttl
    lock_release(lock)

A lock whose holder stopped refreshing (a crashed process) expires and is
taken over by the next `lock_acquire`. Persons' file writes are refused while a
lock is held (see projects.services), so the assistant and a person never
overwrite each other silently.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from common.compiled import CompiledRead
from projects.models import Project, ProjectLock


@dataclass(frozen=True)
class LockHeld:
    purpose: str
    details: dict[str, Any]
    expires_at: datetime


def lock_acquire(
    *, project: Project, purpose: str, details: dict[str, Any], ttl: float
) -> ProjectLock | LockHeld:
    now = timezone.now()
    with transaction.atomic():
        ProjectLock.objects.filter(project=project, expires_at__lte=now).delete()
        try:
            with transaction.atomic():
                return ProjectLock.objects.create(
                    project=project,
                    holder=secrets.token_hex(16),
                    purpose=purpose,
                    details=details,
                    acquired_at=now,
                    expires_at=now + timedelta(seconds=ttl),
                )
        except IntegrityError:
            held = ProjectLock.objects.filter(project=project).first()
    if held is None:  # released between the two statements: try once more
        return lock_acquire(project=project, purpose=purpose, details=details, ttl=ttl)
    return LockHeld(held.purpose, held.details, held.expires_at)


def locks_refresh(locks: list[ProjectLock], *, ttl: float) -> set[str]:
    """Extend many locks at once (a process's running turns); the holders of
    those still held (one expired and taken over is not)."""
    if not locks:
        return set()
    expires_at = timezone.now() + timedelta(seconds=ttl)
    holders = [lock.holder for lock in locks]
    ProjectLock.objects.filter(holder__in=holders).update(expires_at=expires_at)
    held = set(ProjectLock.objects.filter(holder__in=holders).values_list("holder", flat=True))
    for lock in locks:
        if lock.holder in held:
            lock.expires_at = expires_at
    return held


def lock_release(lock: ProjectLock) -> None:
    ProjectLock.objects.filter(project_id=lock.project_id, holder=lock.holder).delete()


def lock_current(project: Project | Any) -> ProjectLock | None:
    """The live lock on a project (or project id), if any; expired ones do not
    count."""
    lock = lock_of(project)
    return None if lock is None or lock_lapsed(lock) else lock


def lock_lapsed(lock: ProjectLock) -> bool:
    """Whether its holder stopped refreshing it: anyone may take it over."""
    return lock.expires_at <= timezone.now()


def lock_of(project: Project | Any) -> ProjectLock | None:
    """The project's lock (a project has one at most), lapsed or not: a chat
    socket's connect reads it once to see a running turn or one whose server
    stopped. Compiled once (common.compiled): every connect asks."""
    project_id = project.pk if isinstance(project, Project) else project
    return _OF.first(project_id=project_id)


def _of(project_id: Any) -> QuerySet[ProjectLock]:
    return ProjectLock.objects.filter(project_id=project_id)[:1]


_OF = CompiledRead(_of, project_id=ProjectLock._meta.get_field("project"))
