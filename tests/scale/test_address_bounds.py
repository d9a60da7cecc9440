"""What one address may do is counted by every process together: a site's
wrong passwords and the chat sockets it holds, sent to A and B in turn, add
up. Two real daphne processes on PostgreSQL and Redis, behind a proxy that
names the visitor in X-Forwarded-For."""

from __future__ import annotations

import random

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from chat.live.closing import Close
from projects.models import Project
from projects.publish import passwords
from projects.publish.passwords import password_hashed
from projects.publish.services import PublishRefused, site_publish
from projects.services import Author, file_create
from tests.scale.conftest import Servers, bearer
from tests.servers import ServerProcess

pytestmark = pytest.mark.django_db(transaction=True)

PAGE = '<!doctype html><html lang="en"><head><title>Bakery</title></head><body><h1>Hi</h1>'
SECRET = "correct horse battery"
BEHIND_A_PROXY = {"BUILTIT_TRUSTED_PROXIES": 1, "BUILTIT_MAX_SOCKETS_PER_ADDRESS": 2}


def visitor() -> str:
    """An address of this run's own: another run on the same Redis counts others."""
    return f"2001:db8:{random.randrange(1 << 16):x}:1::7"


@sync_to_async
def protected_site(project: Project) -> None:
    author = Author.person(project.owner)
    file_create(project=project, path="/index.html", content=PAGE, author=author)
    version = site_publish(project=project, user=project.owner, name="bakery")
    assert not isinstance(version, PublishRefused)
    version.site.password = password_hashed(SECRET)
    version.site.save(update_fields=["password"])


async def guess(server: ServerProcess, address: str, password: str) -> int:
    headers = {"Host": "bakery.sites.localhost", "X-Forwarded-For": address}
    async with httpx.AsyncClient(timeout=10, trust_env=False) as client:
        answer = await client.post(server.url + "/", data={"password": password}, headers=headers)
    return answer.status_code


async def test_what_one_address_does_on_every_process_adds_up(
    servers: Servers, project: Project, user: User
) -> None:
    await protected_site(project)
    a, b = servers.start("A", **BEHIND_A_PROXY), servers.start("B", **BEHIND_A_PROXY)

    guesser = visitor()
    for n in range(passwords.TRIES):
        assert await guess((a, b)[n % 2], guesser, "not the password") == 403
    assert await guess(a, guesser, SECRET) == 429
    assert await guess(b, guesser, SECRET) == 429
    assert await guess(b, visitor(), SECRET) == 303

    headers = {"Authorization": f"Bearer {await bearer(user)}", "X-Forwarded-For": visitor()}
    path = f"/ws/projects/{project.pk}/chat/?format=json"
    async with (
        connect(a.ws_url + path, additional_headers=headers),
        connect(b.ws_url + path, additional_headers=headers),
    ):
        for server in (a, b):
            async with connect(server.ws_url + path, additional_headers=headers) as third:
                with pytest.raises(ConnectionClosed) as closed:
                    await third.recv()
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == Close.TOO_MANY_SOCKETS
