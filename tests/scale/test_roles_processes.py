"""Access changes hold at once on every process (issue 45): a person removed
from a project while their chat socket is open on process B is closed there
with words, though the removal was made elsewhere, and neither process lets
them in again; a changed role reaches their socket on B. Two real daphne
processes on PostgreSQL and Redis; the removal is made by this test's process,
as share-ui's services make it, through the same Redis."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from chat.live.closing import REASONS, Close
from projects.models import Membership, Project
from projects.signals import access_changed
from tests.chat.live.tabs import session_cookie
from tests.scale.conftest import Servers, bearer, tab
from tests.scale.test_connect_cache import opens

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def member(project: Project, role: str) -> User:
    erin = User.objects.create_user("erin", "erin@example.com", "a long enough secret")
    Membership.objects.create(project=project, user=erin, role=role, added_by=project.owner)
    return erin


@sync_to_async
def change_role(project: Project, user: User, role: str | None) -> None:
    if role is None:
        Membership.objects.filter(project=project, user=user).delete()
    else:
        Membership.objects.filter(project=project, user=user).update(role=role)
    access_changed.send(Project, project=project, user_id=user.pk, role=role)


async def test_a_removal_made_elsewhere_closes_the_persons_socket_on_B_with_words(
    servers: Servers, project: Project, user: User
) -> None:
    a, b = servers.start("A"), servers.start("B")
    erin = await member(project, "editor")
    cookie = await session_cookie(erin)
    assert await opens(a, project, cookie)  # kept by A's connect cache now
    owners, theirs = await bearer(user), await bearer(erin)
    async with tab(a, project, owners) as owner_on_a, tab(b, project, theirs) as erin_on_b:
        await change_role(project, erin, None)
        said, code = await erin_on_b.closed()
        await owner_on_a.send(action="stop")
        still = await owner_on_a.until("error")

    assert code == Close.REMOVED
    assert said == [
        {
            "type": "error",
            "code": "removed",
            "message": REASONS[Close.REMOVED],
            "retryable": False,
        }
    ]
    assert still[-1]["code"] == "not_running"  # the owner's socket on A stays open
    assert not await opens(a, project, cookie)
    assert not await opens(b, project, cookie)


async def test_a_changed_role_reaches_the_persons_socket_on_B(
    servers: Servers, project: Project, user: User
) -> None:
    servers.start("A")
    b = servers.start("B")
    erin = await member(project, "editor")
    async with tab(b, project, await bearer(erin)) as erin_on_b:
        await change_role(project, erin, "viewer")
        changed = await erin_on_b.until("role")
        await erin_on_b.send(message="May I?")
        refused = await erin_on_b.until("error")

    assert changed == [{"type": "role", "role": "viewer"}]
    assert refused[-1]["code"] == "role_refused"
    assert servers.fake.requests == []
