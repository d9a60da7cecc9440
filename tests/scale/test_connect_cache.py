"""Each process keeps what a chat socket's connect checked (chat.live.connect_cache),
and a change made through one process refuses the next connect on the other at
once: signing out, a project in the trash. Two real daphne processes on
PostgreSQL and Redis, browser tabs with a session cookie."""

from __future__ import annotations

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from projects.lifecycle import project_trash
from projects.models import Project
from tests.chat.live.tabs import session_cookie
from tests.scale.conftest import Servers
from tests.servers import ServerProcess

pytestmark = pytest.mark.django_db(transaction=True)


async def opens(server: ServerProcess, project: Project, cookie: str) -> bool:
    """Whether a tab of the page at `server` opens its chat socket and stays open."""
    url = f"{server.ws_url}/ws/projects/{project.pk}/chat/?format=json"
    headers = {"Cookie": f"sessionid={cookie}", "Origin": server.url}
    try:
        async with connect(url, additional_headers=headers, open_timeout=10):
            return True  # accepted
    except InvalidStatus:
        return False  # refused before it opened


async def sign_out(server: ServerProcess, cookie: str) -> None:
    """The page's "Sign out" (a POST with its CSRF token), on `server`."""
    async with httpx.AsyncClient(base_url=server.url, timeout=10, trust_env=False) as client:
        client.cookies.set("sessionid", cookie)
        page = await client.get("/")
        assert page.status_code == 200
        token = client.cookies["csrftoken"]
        answer = await client.post(
            "/accounts/logout/", headers={"X-CSRFToken": token, "Origin": server.url}
        )
        assert answer.status_code in {200, 302}


async def test_a_sign_out_on_one_process_refuses_the_next_connect_on_the_other(
    servers: Servers, project: Project, user: User
) -> None:
    a, b = servers.start("A"), servers.start("B")
    cookie = await session_cookie(user)
    assert await opens(a, project, cookie)
    assert await opens(b, project, cookie)  # kept by both now
    assert await opens(b, project, cookie)
    await sign_out(a, cookie)
    assert not await opens(b, project, cookie)
    assert not await opens(a, project, cookie)


async def test_a_project_in_the_trash_is_refused_at_once_by_every_process(
    servers: Servers, project: Project, user: User
) -> None:
    a, b = servers.start("A"), servers.start("B")
    cookie = await session_cookie(user)
    assert await opens(a, project, cookie)
    assert await opens(b, project, cookie)
    assert await sync_to_async(project_trash)(project=project) is None
    assert not await opens(a, project, cookie)
    assert not await opens(b, project, cookie)
