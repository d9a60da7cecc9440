"""The chat socket follows the session and checks where it is opened from:
signing out, a password change and a revoked token
close the person's sockets; a socket whose session is gone starts no turn; the
Origin must be the page's own (scheme, host and port) or a trusted one; scripts
get in with a personal access token instead of a browser's Origin.
Real ASGI app, real database, WebsocketCommunicator."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.test import Client, RequestFactory
from pytest_django.fixtures import Settings as SettingsWrapper

from accounts.models import UserSession
from builtit.asgi import application
from chat.access_tokens import NewToken, token_create
from chat.live.closing import Close
from chat.models import AccessToken
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply
from projects.models import Project
from tests.chat.live.tabs import communicator, events_until, next_event, send, socket_path

pytestmark = pytest.mark.django_db(transaction=True)


async def signed_in(user: User) -> Client:
    client = Client()
    await sync_to_async(client.force_login)(user)
    return client


async def tab(project: Project, client: Client, **headers: str) -> WebsocketCommunicator:
    cookie = client.cookies["sessionid"].value
    pairs = [(b"cookie", f"sessionid={cookie}".encode())]
    pairs += [(k.encode(), v.encode()) for k, v in headers.items()]
    pairs = pairs if "host" in headers else [(b"host", b"localhost"), *pairs]
    if "origin" not in headers:
        pairs.append((b"origin", b"http://localhost"))
    socket = WebsocketCommunicator(application, socket_path(project), headers=pairs)
    connected, _ = await socket.connect()
    assert connected, "the socket was refused"
    return socket


async def closed_with(socket: WebsocketCommunicator) -> dict[str, Any]:
    """The session-ended notice, then the close."""
    notice = await next_event(socket)
    assert notice["code"] == "session_ended"
    closing: dict[str, Any] = await socket.receive_output(timeout=5)
    assert closing["type"] == "websocket.close"
    return closing


async def test_signing_out_closes_the_persons_open_sockets(project: Project, user: User) -> None:
    client = await signed_in(user)
    socket = await tab(project, client)
    await sync_to_async(client.post)("/accounts/logout/")
    closing = await closed_with(socket)
    assert closing["code"] == Close.SESSION_ENDED
    assert "signed out" in str(closing["reason"])


async def test_a_password_change_closes_the_other_sessions_sockets(
    project: Project, user: User
) -> None:
    elsewhere = await signed_in(user)
    socket = await tab(project, elsewhere)
    here = await signed_in(user)
    response = await sync_to_async(here.post)(
        "/accounts/password/",
        {
            "old_password": "correct horse battery",
            "new_password1": "a much newer passphrase",
            "new_password2": "a much newer passphrase",
        },
    )
    assert response.status_code == 302
    assert (await closed_with(socket))["code"] == Close.SESSION_ENDED
    mine = await tab(project, here)  # the tab that changed it keeps working
    assert await mine.receive_nothing()
    await mine.disconnect()


async def test_a_password_set_from_the_command_line_closes_sockets(
    project: Project, user: User
) -> None:
    socket = await tab(project, await signed_in(user))

    def change() -> None:
        user.set_password("set by the administrator")
        user.save()

    await sync_to_async(change)()
    assert (await closed_with(socket))["code"] == Close.SESSION_ENDED


async def test_a_socket_whose_session_is_gone_starts_no_turn(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    socket = await tab(project, await signed_in(user))
    await sync_to_async(UserSession.objects.all().delete)()  # e.g. cleared by staff
    await send(socket, message="Build a site")
    await closed_with(socket)
    assert scripted.requests == []


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://localhost:8001", "localhost:8000"),  # another port
        ("https://localhost", "localhost"),  # another scheme
        ("http://evil.example", "localhost"),
        ("null", "localhost"),
    ],
)
async def test_a_page_of_another_origin_is_refused(
    project: Project, user: User, origin: str, host: str
) -> None:
    cookie = (await signed_in(user)).cookies["sessionid"].value
    headers = [
        (b"host", host.encode()),
        (b"origin", origin.encode()),
        (b"cookie", f"sessionid={cookie}".encode()),
    ]
    socket = WebsocketCommunicator(application, socket_path(project), headers=headers)
    connected, _ = await socket.connect()
    assert not connected


async def test_the_page_own_origin_and_trusted_origins_are_accepted(
    project: Project, user: User, settings: SettingsWrapper
) -> None:
    client = await signed_in(user)
    own = await tab(project, client, host="localhost:8000", origin="http://localhost:8000")
    await own.disconnect()
    settings.CSRF_TRUSTED_ORIGINS = ["https://builder.example.com"]
    trusted = await tab(project, client, origin="https://builder.example.com")
    await trusted.disconnect()


@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        ("https://builder.example.com", True),
        ("https://a.b.example.com", True),
        ("https://example.com", True),  # Django's "*.": the domain and its subdomains
        ("http://builder.example.com", False),  # another scheme
        ("https://builder.example.com.evil", False),
    ],
)
async def test_a_wildcard_trusted_origin_is_read_as_django_reads_it(
    project: Project, user: User, settings: SettingsWrapper, origin: str, accepted: bool
) -> None:
    """The pages' CSRF check accepts "https://*.example.com"; the socket refused it."""
    settings.CSRF_TRUSTED_ORIGINS = ["https://*.example.com"]
    cookie = (await signed_in(user)).cookies["sessionid"].value
    headers = [
        (b"host", b"localhost"),
        (b"origin", origin.encode()),
        (b"cookie", f"sessionid={cookie}".encode()),
    ]
    socket = WebsocketCommunicator(application, socket_path(project), headers=headers)
    connected, _ = await socket.connect()
    assert connected is accepted
    await socket.disconnect()
    # And that is what Django's own check says of a form posted from there.
    posted = RequestFactory().post("/", HTTP_ORIGIN=origin, HTTP_HOST="localhost")
    django_check = CsrfViewMiddleware(lambda request: HttpResponse())
    assert django_check._origin_verified(posted) is accepted  # type: ignore[attr-defined]


async def test_allowed_hosts_star_does_not_open_the_socket_to_every_site(
    project: Project, user: User, settings: SettingsWrapper
) -> None:
    settings.ALLOWED_HOSTS = ["*"]
    cookie = (await signed_in(user)).cookies["sessionid"].value
    headers = [
        (b"host", b"localhost"),
        (b"origin", b"http://evil.example"),
        (b"cookie", f"sessionid={cookie}".encode()),
    ]
    socket = WebsocketCommunicator(application, socket_path(project), headers=headers)
    connected, _ = await socket.connect()
    assert not connected


async def test_a_session_without_origin_is_refused(project: Project, user: User) -> None:
    socket = await communicator(socket_path(project), user=user, origin=None)
    connected, _ = await socket.connect()
    assert not connected


async def test_a_session_cookie_no_database_stores_counts_as_none(project: Project) -> None:
    """Unquoted, `"\\000…"` is NUL, which PostgreSQL refuses in a query: the
    socket is refused as one without a session, never with a traceback."""
    headers = [
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
        (b"cookie", b'sessionid="\\000abcdefghijkl"'),
    ]
    socket = WebsocketCommunicator(application, socket_path(project), headers=headers)
    connected, _ = await socket.connect()
    assert not connected


@sync_to_async
def make_token(user: User, name: str = "deploy") -> NewToken:
    made = token_create(user=user, name=name)
    assert isinstance(made, NewToken)
    return made


def with_token(project: Project, secret: str) -> WebsocketCommunicator:
    headers = [(b"host", b"localhost"), (b"authorization", f"Bearer {secret}".encode())]
    return WebsocketCommunicator(application, socket_path(project), headers=headers)


async def test_a_script_with_a_token_runs_a_turn_without_an_origin(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(Reply(content="Hello from the script's turn."))
    made = await make_token(user)
    socket = with_token(project, made.secret)
    connected, _ = await socket.connect()
    assert connected
    await send(socket, message="Say hello")
    events = await events_until(socket, "done")
    assert events[-1]["status"] == "completed"
    await socket.disconnect()
    row = await sync_to_async(AccessToken.objects.get)(pk=made.row.pk)
    assert row.last_used_at is not None


async def test_a_token_opens_only_its_owners_projects(
    project: Project, user: User, other_user: User
) -> None:
    made = await make_token(other_user)
    socket = with_token(project, made.secret)
    connected, _ = await socket.connect()
    assert not connected


async def test_a_read_only_token_does_not_open_the_socket(project: Project, user: User) -> None:
    made = await sync_to_async(token_create)(user=user, name="pull only", can_write=False)
    assert isinstance(made, NewToken)
    socket = with_token(project, made.secret)
    connected, _ = await socket.connect()
    assert not connected


async def test_a_wrong_token_is_refused(project: Project, user: User) -> None:
    socket = with_token(project, "bit_not-a-token")
    connected, _ = await socket.connect()
    assert not connected


async def test_revoking_a_token_closes_its_sockets_and_refuses_it(
    project: Project, user: User
) -> None:
    made = await make_token(user)
    socket = with_token(project, made.secret)
    connected, _ = await socket.connect()
    assert connected
    client = await signed_in(user)
    await sync_to_async(client.post)(
        "/settings/", {"action": "revoke_token", "token": str(made.row.pk)}
    )
    assert (await closed_with(socket))["code"] == Close.SESSION_ENDED
    again = with_token(project, made.secret)
    connected, _ = await again.connect()
    assert not connected


async def test_a_token_is_shown_once_and_stored_only_as_a_hash(user: User) -> None:
    client = await signed_in(user)
    response = await sync_to_async(client.post)(
        "/settings/", {"action": "create_token", "name": "deploy script"}
    )
    page = response.content.decode()
    assert response["Cache-Control"] == "no-store"
    row = await sync_to_async(AccessToken.objects.get)(user=user)
    opening = 'class="token-secret" id="new-token-secret">'
    start = page.index(opening) + len(opening)
    secret = page[start : page.index("</code>", start)]
    assert secret.startswith("bit_")
    assert secret not in json.dumps(
        await sync_to_async(lambda: list(AccessToken.objects.values()))(), default=str
    )
    later = await sync_to_async(client.get)("/settings/")
    assert secret not in later.content.decode()
    assert row.prefix in later.content.decode()


async def test_deleting_a_token_in_the_admin_closes_its_sockets(
    project: Project, user: User
) -> None:
    made = await make_token(user)
    socket = with_token(project, made.secret)
    connected, _ = await socket.connect()
    assert connected
    await sync_to_async(AccessToken.objects.filter(pk=made.row.pk).delete)()
    assert (await closed_with(socket))["code"] == Close.SESSION_ENDED


async def test_a_basic_auth_header_leaves_the_socket_to_the_session(
    project: Project, user: User
) -> None:
    """A password-protecting proxy in front sends `Authorization: Basic` on every
    request, the browser's socket too."""
    client = await signed_in(user)
    socket = await tab(project, client, authorization="Basic dXNlcjpwcm94eSBwYXNzd29yZA==")
    assert await socket.receive_nothing()
    await socket.disconnect()


@pytest.mark.parametrize("value", ["Bearer bit_not-a-token", "Bearer", "bearer  "])
async def test_a_bearer_without_a_good_token_is_refused_even_with_a_session(
    project: Project, user: User, value: str
) -> None:
    cookie = (await signed_in(user)).cookies["sessionid"].value
    headers = [
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
        (b"cookie", f"sessionid={cookie}".encode()),
        (b"authorization", value.encode()),
    ]
    socket = WebsocketCommunicator(application, socket_path(project), headers=headers)
    connected, _ = await socket.connect()
    assert not connected
