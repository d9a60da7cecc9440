"""Several real server processes sharing PostgreSQL and Redis, as deployed behind
a proxy. They need both services, so they run in `make
test-services` (DATABASE_URL and REDIS_URL set); `make test`, on SQLite and the
in-memory layer, skips them and says so."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from chat.access_tokens import NewToken, token_create
from fakes.openrouter import FakeOpenRouter
from projects.models import Project
from tests.servers import ServerProcess, server_start, shared_settings

SHARED = str(settings.DATABASES["default"]["ENGINE"]).endswith("postgresql") and bool(
    os.environ.get("REDIS_URL")
)

# Short, so a killed server's turn is found quickly: the tabs look every fifth of it.
LOCK_TTL = 3.0
EVENT_TIMEOUT = 30.0  # seconds: far longer than any step here takes, shorter than a hang


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if SHARED:
        return
    skip = pytest.mark.skip(
        reason="several processes need PostgreSQL and Redis: run `make test-services`"
    )
    for item in items:
        if "scale" in item.path.parts:
            item.add_marker(skip)


@pytest.fixture
def servers(
    transactional_db: None, fake_openrouter: FakeOpenRouter, tmp_path: Path
) -> Iterator[Servers]:
    """Start servers with `servers.start("A")`; all are stopped after the test,
    and none may have logged a traceback."""
    started = Servers(fake_openrouter, tmp_path)
    yield started
    for server in started.all:
        server.stop()
    for name, server in started.named.items():
        assert "Traceback" not in server.logged(), f"server {name} logged a traceback"


@dataclass
class Servers:
    fake: FakeOpenRouter
    logs: Path
    named: dict[str, ServerProcess] = field(default_factory=dict)
    all: list[ServerProcess] = field(default_factory=list)

    def start(self, name: str, *, grace: float = 20.0, **overrides: Any) -> ServerProcess:
        given = shared_settings(
            OPENROUTER_BASE_URL=self.fake.base_url,
            OPENROUTER_API_KEY="sk-test",
            OPENROUTER_MAX_RETRIES=0,
            BUILTIT_TURN_LOCK_TTL=LOCK_TTL,
            BUILTIT_SHUTDOWN_GRACE=grace,
            **overrides,
        )
        server = server_start(given, log=self.logs / f"{name}-{len(self.all)}.log")
        self.named[f"{name}-{len(self.all)}"] = server
        self.all.append(server)
        return server


@sync_to_async
def bearer(user: User) -> str:
    made = token_create(user=user, name="scale tests")
    assert isinstance(made, NewToken)
    return made.secret


@dataclass
class Tab:
    """A script's chat socket (`?format=json`): one JSON event per frame."""

    socket: ClientConnection

    async def send(self, **frame: Any) -> None:
        await self.socket.send(json.dumps(frame))

    async def until(self, kind: str) -> list[dict[str, Any]]:
        """Events up to and including the first of type `kind`."""
        events: list[dict[str, Any]] = []
        try:
            async with asyncio.timeout(EVENT_TIMEOUT):
                while not events or events[-1]["type"] != kind:
                    events.append(json.loads(await self.socket.recv()))
        except TimeoutError:
            raise AssertionError(f"no {kind} event came; what came: {events}") from None
        return events

    async def closed(self) -> tuple[list[dict[str, Any]], int | None]:
        """Events until the server closes the socket, and its close code."""
        events: list[dict[str, Any]] = []
        async with asyncio.timeout(EVENT_TIMEOUT):
            try:
                while True:
                    events.append(json.loads(await self.socket.recv()))
            except ConnectionClosed as closed:
                return events, closed.rcvd.code if closed.rcvd else None


@asynccontextmanager
async def tab(
    server: ServerProcess, project: Project, token: str, *, conversation: int | None = None
) -> AsyncIterator[Tab]:
    query = "format=json" + (f"&conversation={conversation}" if conversation else "")
    url = f"{server.ws_url}/ws/projects/{project.pk}/chat/?{query}"
    async with connect(url, additional_headers={"Authorization": f"Bearer {token}"}) as socket:
        yield Tab(socket)
