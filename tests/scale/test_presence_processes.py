"""Presence crosses processes (issue 45, chat.live.presence): the owner's tab
on process A shows a person whose tab is on process B, and the file open in
their editor; when B is killed, its people lapse (BUILTIT_PRESENCE_LAPSE, short
here) and A's tabs are sent the list without them. Two real daphne
processes on PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from django.contrib.auth.models import User
from websockets.asyncio.client import ClientConnection, connect

from projects.models import Project
from tests.chat.live.tabs import session_cookie
from tests.chat.live.test_presence_live import person, share, shown
from tests.scale.conftest import EVENT_TIMEOUT, Servers
from tests.servers import ServerProcess

pytestmark = pytest.mark.django_db(transaction=True)

LAPSE = 1.5  # seconds; the servers renew every third of it


@asynccontextmanager
async def page_tab(
    server: ServerProcess, project: Project, cookie: str
) -> AsyncIterator[ClientConnection]:
    """The workspace page's socket (HTML swaps), as a browser opens it."""
    url = f"{server.ws_url}/ws/projects/{project.pk}/chat/"
    headers = {"Cookie": f"sessionid={cookie}", "Origin": server.url}
    async with connect(url, additional_headers=headers, open_timeout=10) as socket:
        yield socket


async def listed_until(socket: ClientConnection, labels: list[str]) -> dict[str, list[str]]:
    """Lists of people this tab is sent, until one shows `labels`; its files."""
    seen: list[list[str]] = []
    try:
        async with asyncio.timeout(EVENT_TIMEOUT):
            while True:
                frame = str(await socket.recv())
                if 'id="presence"' in frame:
                    now, files = shown(frame)
                    if now == labels:
                        return files
                    seen.append(now)
    except TimeoutError:
        raise AssertionError(f"never shown: {labels}; shown: {seen}") from None


async def test_presence_crosses_processes_and_a_killed_process_people_lapse(
    servers: Servers, project: Project, user: User
) -> None:
    a = servers.start("A", BUILTIT_PRESENCE_LAPSE=LAPSE)
    b = servers.start("B", BUILTIT_PRESENCE_LAPSE=LAPSE)
    erin = await person("erin")
    await share(project, erin, "editor")
    mine, hers = await session_cookie(user), await session_cookie(erin)
    async with page_tab(a, project, mine) as owner_on_a, page_tab(b, project, hers) as erin_on_b:
        await erin_on_b.send(json.dumps({"action": "open", "path": "/index.html"}))
        files = await listed_until(owner_on_a, ["erin — editor, has index.html open"])
        assert files == {"/index.html": ["erin"]}
        await listed_until(erin_on_b, ["ada — owner"])
        b.kill()
        # Her entry is renewed no more and lapses; A, renewing its own, finds
        # that and sends its tabs the list without her.
        await listed_until(owner_on_a, [])
