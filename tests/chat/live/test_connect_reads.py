"""A socket's connect reads its project, and the conversation the tab shows,
in one query whatever the project has (chat.selectors.conversations
.project_with_conversation, compiled once: common.compiled), and the lock in
one more after it joins; a project in the trash is refused even when it has a
conversation."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from chat import services
from chat.live import orders
from chat.selectors.conversations import SocketProject, project_with_conversation
from projects.lifecycle import project_create, project_trash
from projects.locks import lock_acquire, lock_current, lock_release
from projects.models import Project, ProjectLock

pytestmark = pytest.mark.django_db


def test_a_fresh_project_is_opened_in_one_query(
    project: Project, user: User, django_assert_num_queries: Any
) -> None:
    with django_assert_num_queries(1):
        assert orders.socket_project(user, project.pk, "") == SocketProject(project, "owner", None)


def test_a_project_with_conversations_is_opened_on_its_latest_in_one_query(
    project: Project, user: User, django_assert_num_queries: Any
) -> None:
    older = services.conversation_create(project=project)
    latest = services.conversation_create(project=project)
    older.title = "touched last"
    older.save()  # the latest is the one changed last, as the workspace's list has it
    with django_assert_num_queries(1):
        opened = orders.socket_project(user, project.pk, "")
    assert opened is not None
    found, conversation = opened.project, opened.conversation
    assert found == project
    assert conversation == older
    assert conversation != latest
    assert conversation.title == "touched last"
    assert conversation.updated_at == older.updated_at  # the database's values, converted
    assert conversation.project is found
    assert found.owner == user
    assert not hasattr(found, "shown")


def test_the_conversation_asked_for_is_opened_in_one_query(
    project: Project, user: User, django_assert_num_queries: Any
) -> None:
    asked = services.conversation_create(project=project)
    services.conversation_create(project=project)
    with django_assert_num_queries(1):
        assert orders.socket_project(user, project.pk, str(asked.pk)) == SocketProject(
            project, "owner", asked
        )


def test_a_conversation_of_another_project_is_refused(project: Project, user: User) -> None:
    other_project = project_create(owner=user, name="Other site")
    assert isinstance(other_project, Project)
    theirs = services.conversation_create(project=other_project)
    assert orders.socket_project(user, project.pk, str(theirs.pk)) is None
    assert orders.socket_project(user, project.pk, "12x") is None


def test_someone_elses_project_is_refused(project: Project, user: User, other_user: User) -> None:
    services.conversation_create(project=project)
    assert orders.socket_project(other_user, project.pk, "") is None
    assert orders.socket_project(user, uuid.uuid4(), "") is None


def test_a_project_in_the_trash_is_refused_though_it_has_a_conversation(
    project: Project, user: User
) -> None:
    ours = services.conversation_create(project=project)
    assert project_trash(project=project) is None
    assert project_with_conversation(user_id=user.pk, project_id=project.pk, raw="") is None
    assert (
        project_with_conversation(user_id=user.pk, project_id=project.pk, raw=str(ours.pk)) is None
    )


def test_the_lock_is_read_as_before(project: Project) -> None:
    assert lock_current(project) is None
    lock = lock_acquire(project=project, purpose="assistant", details={"conversation": 3}, ttl=60)
    assert isinstance(lock, ProjectLock)
    found = lock_current(project.pk)
    assert found is not None
    assert (found.holder, found.details, found.expires_at) == (
        lock.holder,
        {"conversation": 3},
        lock.expires_at,
    )
    lock_release(lock)
    assert lock_current(project) is None


def test_a_lapsed_lock_is_not_current(project: Project) -> None:
    lock = lock_acquire(project=project, purpose="assistant", details={}, ttl=60)
    assert isinstance(lock, ProjectLock)
    ProjectLock.objects.filter(pk=lock.pk).update(expires_at=timezone.now())
    assert lock_current(project) is None
