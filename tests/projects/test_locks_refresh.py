"""A process's turns' locks are refreshed in one statement (chat.live.heartbeat):
each still held is extended, and one taken over by another turn is not said
to be held."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from projects.lifecycle import project_create
from projects.locks import LockHeld, lock_acquire, locks_refresh
from projects.models import Project, ProjectLock


def _project(user: User, name: str) -> Project:
    made = project_create(owner=user, name=name)
    assert isinstance(made, Project)
    return made


@pytest.mark.django_db
def test_the_locks_still_held_are_extended_and_one_taken_over_is_not(user: User) -> None:
    kept, taken = _project(user, "Kept"), _project(user, "Taken")
    mine = [
        lock_acquire(project=project, purpose="assistant", details={}, ttl=5)
        for project in (kept, taken)
    ]
    assert not any(isinstance(lock, LockHeld) for lock in mine)
    locks = [lock for lock in mine if isinstance(lock, ProjectLock)]
    # The second lapsed and another turn took the project over.
    ProjectLock.objects.filter(project=taken).update(expires_at=timezone.now() - timedelta(1))
    other = lock_acquire(project=taken, purpose="assistant", details={}, ttl=5)
    assert isinstance(other, ProjectLock)

    held = locks_refresh(locks, ttl=600)

    assert held == {locks[0].holder}
    refreshed = ProjectLock.objects.get(project=kept)
    assert refreshed.expires_at > timezone.now() + timedelta(seconds=300)
    assert ProjectLock.objects.get(project=taken).holder == other.holder
    assert locks_refresh([], ttl=600) == set()
