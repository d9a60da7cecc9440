"""Deleting a project loses nothing at once and never breaks a running turn:
it goes to a trash for BUILTIT_TRASH_DAYS, restorable
whole; it is refused while a turn runs; a trashed project is gone from the
workspace, preview, export, file writes and sockets (a socket open on it is
told and closed); staff purge it, or the period does."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from chat.live.closing import Close
from chat.models import Conversation
from chat.services import conversation_create
from projects.files.results import ErrorCode, FileError
from projects.lifecycle import project_trash, trash_purge_expired
from projects.locks import lock_acquire
from projects.models import FileRevision, Project, ProjectFile
from projects.services import Author, file_create
from projects.starter import STARTER_FILES
from tests.chat.live.tabs import (
    communicator,
    next_event,
    opened,
    send,
    settled,
    socket_path,
)
from tests.conftest import SITES_HOST

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def no_turn_outlives_the_test() -> AsyncIterator[None]:
    yield
    await settled()


def trash(client: Client, project: Project):
    return client.post(f"/projects/{project.pk}/delete/", follow=True)


def test_the_trash_lists_a_deleted_project_and_restores_it_whole(
    user_client: Client, starter_project: Project
) -> None:
    conversation_create(project=starter_project)
    trash(user_client, starter_project)
    page = user_client.get("/trash/").content.decode()
    assert "Starter site" in page
    assert "deleted for good on" in page
    response = user_client.post(f"/projects/{starter_project.pk}/restore/", follow=True)
    assert "Restored Starter site" in response.content.decode()
    restored = Project.objects.get(pk=starter_project.pk)
    assert restored.files.count() == len(STARTER_FILES)
    assert FileRevision.objects.filter(project=restored).count() == len(STARTER_FILES)
    assert Conversation.objects.filter(project=restored).count() == 1


def test_a_trashed_project_is_gone_from_workspace_preview_export_and_writes(
    user_client: Client, starter_project: Project, user: User
) -> None:
    token = starter_project.preview_token
    trash(user_client, starter_project)
    base = f"/projects/{starter_project.pk}"
    assert user_client.get(f"{base}/").status_code == 404
    assert user_client.get(f"{base}/export.zip").status_code == 404
    assert Client(HTTP_HOST=SITES_HOST).get(f"/preview/{token}/").status_code == 404
    result = file_create(
        project=starter_project, path="/x.html", content="<p>x</p>", author=Author.person(user)
    )
    assert isinstance(result, FileError)
    assert result.code == ErrorCode.GONE
    assert "in the trash" in result.message


def test_someone_elses_trash_cannot_be_restored(
    starter_project: Project, other_client: Client, user_client: Client
) -> None:
    trash(user_client, starter_project)
    response = other_client.post(f"/projects/{starter_project.pk}/restore/")
    assert response.status_code == 404
    assert Project.all_objects.get(pk=starter_project.pk).deleted_at is not None


def test_the_owner_deletes_for_good_from_the_trash_and_no_one_else_can(
    user_client: Client, other_client: Client, starter_project: Project
) -> None:
    trash(user_client, starter_project)
    purge = f"/projects/{starter_project.pk}/purge/"
    assert other_client.get(purge).status_code == 404
    assert other_client.post(purge).status_code == 404
    assert "This cannot be undone" in user_client.get(purge).content.decode()

    response = user_client.post(purge, follow=True)

    assert "Deleted Starter site for good." in response.content.decode()
    assert not Project.all_objects.filter(pk=starter_project.pk).exists()
    assert not FileRevision.objects.filter(project_id=starter_project.pk).exists()


def test_a_live_project_cannot_be_deleted_for_good_without_the_trash(
    user_client: Client, starter_project: Project
) -> None:
    assert user_client.post(f"/projects/{starter_project.pk}/purge/").status_code == 404
    assert Project.objects.filter(pk=starter_project.pk).exists()


def test_deleting_while_the_assistant_works_is_refused_in_words(
    user_client: Client, starter_project: Project, caplog: pytest.LogCaptureFixture
) -> None:
    lock_acquire(project=starter_project, purpose="assistant", details={}, ttl=60)
    with caplog.at_level(logging.WARNING):
        response = trash(user_client, starter_project)
    assert "The assistant is working on this project right now. Stop the turn first" in (
        response.content.decode()
    )
    assert Project.objects.filter(pk=starter_project.pk).exists()
    assert not [record for record in caplog.records if record.exc_info]


def test_the_period_purges_the_trash_and_staff_can_purge_sooner(
    user: User, starter_project: Project, project: Project
) -> None:
    assert project_trash(project=starter_project) is None
    assert project_trash(project=project) is None
    Project.all_objects.filter(pk=starter_project.pk).update(
        deleted_at=timezone.now() - timedelta(days=31)
    )
    assert trash_purge_expired() == 1
    assert not Project.all_objects.filter(pk=starter_project.pk).exists()
    assert not ProjectFile.objects.filter(project_id=starter_project.pk).exists()
    assert Project.all_objects.filter(pk=project.pk).exists(), "within its 30 days"
    call_command("purge_trash", stdout=open("/dev/null", "w"))  # noqa: SIM115


async def test_a_socket_on_a_project_moved_to_the_trash_is_told_and_closed(
    project: Project, user: User
) -> None:
    async with opened(project, user) as socket:
        assert await sync_to_async(project_trash)(project=project) is None
        notice = await next_event(socket)
        assert notice["code"] == "project_gone"
        assert "moved to the trash" in notice["message"]
        closing = await socket.receive_output(timeout=5)
        assert closing["type"] == "websocket.close"
        assert closing["code"] == Close.PROJECT_GONE


async def test_a_message_on_a_socket_of_a_trashed_project_gets_words_not_a_traceback(
    project: Project, user: User, caplog: pytest.LogCaptureFixture
) -> None:
    async with opened(project, user) as socket:
        await sync_to_async(Project.objects.filter(pk=project.pk).update)(
            deleted_at=timezone.now()
        )  # trashed without the signal, as a second process would be seen
        await send(socket, message="Build a site")
        notice = await next_event(socket)
        assert notice["code"] == "project_gone"
    assert not [record for record in caplog.records if record.exc_info]


async def test_a_trashed_project_refuses_new_sockets(project: Project, user: User) -> None:
    await sync_to_async(project_trash)(project=project)
    socket = await communicator(socket_path(project), user=user)
    connected, _ = await socket.connect()
    assert not connected
