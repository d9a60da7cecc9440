"""A connect's checks are kept by the process (chat.live.connect_cache), and
whatever makes one wrong refuses the next connect at once: signing out, a
password changed, the person deactivated, the project in the trash or deleted,
handed to someone else, a revoked token. Each test first connects once, so the
next connect is answered from what was kept.
Real ASGI app, real database, WebsocketCommunicator."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client

from accounts.models import UserSession
from builtit.asgi import application
from chat import services
from chat.access_tokens import NewToken, token_create
from chat.live import orders
from chat.live.socket_auth import session_user
from chat.models import AccessToken
from chat.selectors.conversations import SocketProject
from projects.lifecycle import project_trash
from projects.models import Project
from tests.chat.live.tabs import HOST, ORIGIN, socket_path

pytestmark = pytest.mark.django_db(transaction=True)


async def signed_in(user: User) -> str:
    client = Client()
    await sync_to_async(client.force_login)(user)
    return str(client.cookies["sessionid"].value)


async def connects(project: Project, *, cookie: str = "", token: str = "") -> bool:
    headers = [(b"host", HOST.encode()), (b"origin", ORIGIN.encode())]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    socket = WebsocketCommunicator(application, socket_path(project), headers=headers)
    connected, _ = await socket.connect()
    if connected:
        await socket.disconnect()
    return bool(connected)


async def test_signing_out_refuses_the_old_cookie_at_the_next_connect(
    project: Project, user: User
) -> None:
    client = Client()
    await sync_to_async(client.force_login)(user)
    cookie = client.cookies["sessionid"].value
    assert await connects(project, cookie=cookie)
    assert await connects(project, cookie=cookie)  # the kept way
    await sync_to_async(client.post)("/accounts/logout/")
    assert not await connects(project, cookie=cookie)


async def test_a_password_change_refuses_the_old_session_at_the_next_connect(
    project: Project, user: User
) -> None:
    cookie = await signed_in(user)
    assert await connects(project, cookie=cookie)

    def change() -> None:
        user.set_password("set by the administrator")
        user.save()

    await sync_to_async(change)()
    assert not await connects(project, cookie=cookie)


async def test_a_deactivated_person_is_refused_at_the_next_connect(
    project: Project, user: User
) -> None:
    cookie = await signed_in(user)
    assert await connects(project, cookie=cookie)
    user.is_active = False
    await sync_to_async(user.save)(update_fields=["is_active"])
    assert not await connects(project, cookie=cookie)


async def test_a_session_cleared_by_staff_is_refused_at_the_next_connect(
    project: Project, user: User
) -> None:
    cookie = await signed_in(user)
    assert await connects(project, cookie=cookie)
    await sync_to_async(UserSession.objects.filter(session_key=cookie).delete)()
    assert not await connects(project, cookie=cookie)


async def test_a_project_in_the_trash_is_refused_at_the_next_connect(
    project: Project, user: User
) -> None:
    cookie = await signed_in(user)
    assert await connects(project, cookie=cookie)
    assert await sync_to_async(project_trash)(project=project) is None
    assert not await connects(project, cookie=cookie)


async def test_a_deleted_project_is_refused_at_the_next_connect(
    project: Project, user: User
) -> None:
    cookie = await signed_in(user)
    assert await connects(project, cookie=cookie)
    await sync_to_async(Project.all_objects.filter(pk=project.pk).delete)()
    assert not await connects(project, cookie=cookie)


async def test_a_project_given_to_someone_else_is_refused_to_its_old_owner(
    project: Project, user: User, other_user: User
) -> None:
    cookie = await signed_in(user)
    assert await connects(project, cookie=cookie)
    project.owner = other_user
    await sync_to_async(project.save)()
    assert not await connects(project, cookie=cookie)
    assert await connects(project, cookie=await signed_in(other_user))


async def test_a_revoked_token_is_refused_at_the_next_connect(project: Project, user: User) -> None:
    made = await sync_to_async(token_create)(user=user, name="script")
    assert isinstance(made, NewToken)
    assert await connects(project, token=made.secret)
    await sync_to_async(AccessToken.objects.filter(user=user).delete)()
    assert not await connects(project, token=made.secret)


def test_a_second_connect_reads_no_session_person_or_project(
    project: Project, user: User, django_assert_num_queries: Any
) -> None:
    client = Client()
    client.force_login(user)
    key = client.cookies["sessionid"].value
    with django_assert_num_queries(3):  # the session, the person, the session still there
        assert session_user(key)[1] == user
    with django_assert_num_queries(0):
        assert session_user(key)[1] == user
    with django_assert_num_queries(1):  # the project, with no conversation to join yet
        assert orders.socket_project(user, project.pk, "") == SocketProject(project, "owner", None)
    with django_assert_num_queries(0):
        assert orders.socket_project(user, project.pk, "") == SocketProject(project, "owner", None)
    ours = services.conversation_create(project=project)
    with django_assert_num_queries(1):  # a conversation now: read with its project
        assert orders.socket_project(user, project.pk, "") == SocketProject(project, "owner", ours)
