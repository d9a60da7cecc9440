"""Sign out everywhere: one POST ends every session of
the person (this one too) and revokes every token, and every socket they have
open, browser tab or script, is closed saying why. A password change closes
the other sessions' sockets (its own session's stay open) and offers it; staff
changing a password and a deactivated account close the sockets too. Real ASGI
app, real database."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client

from accounts.models import UserSession
from chat.live.closing import Close
from chat.models import AccessToken
from projects.models import Project
from tests.chat.live.tabs import next_event
from tests.chat.live.test_socket_auth import closed_with, make_token, signed_in, tab, with_token

pytestmark = pytest.mark.django_db(transaction=True)


async def closed_everywhere(socket: WebsocketCommunicator) -> dict[str, Any]:
    """The notice that says why, then the close."""
    notice = await next_event(socket)
    assert notice["code"] == "signed_out_everywhere"
    assert "signed out everywhere" in notice["message"]
    closing: dict[str, Any] = await socket.receive_output(timeout=5)
    assert closing["type"] == "websocket.close"
    assert closing["code"] == Close.SIGNED_OUT_EVERYWHERE
    return closing


async def connected_with_token(project: Project, secret: str) -> WebsocketCommunicator:
    socket = with_token(project, secret)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def test_signing_out_everywhere_closes_every_socket_and_ends_every_session(
    project: Project, user: User
) -> None:
    made = await make_token(user)
    script = await connected_with_token(project, made.secret)
    elsewhere = await signed_in(user)  # another browser
    other_tab = await tab(project, elsewhere)
    here = await signed_in(user)
    this_tab = await tab(project, here)

    response = await sync_to_async(here.post)("/accounts/sign-out-everywhere/", follow=True)

    for socket in (script, other_tab, this_tab):
        await closed_everywhere(socket)
    assert response.redirect_chain == [("/accounts/login/", 302)]
    page = response.content.decode()
    assert "You are signed out everywhere: 2 sessions ended (this one too)" in page
    assert "1 access token revoked" in page
    for client in (here, elsewhere):
        signed_out = await sync_to_async(client.get)("/")
        assert signed_out.status_code == 302
        assert signed_out["Location"].startswith("/accounts/login/")
    again = with_token(project, made.secret)
    connected, _ = await again.connect()
    assert not connected, "the token is refused afterwards"
    assert not await sync_to_async(AccessToken.objects.filter(user=user).exists)()
    assert not await sync_to_async(UserSession.objects.filter(user_id=user.pk).exists)()


async def test_signing_out_everywhere_leaves_other_people_alone(
    project: Project, user: User, other_user: User
) -> None:
    theirs = await make_token(other_user)
    other_client = await signed_in(other_user)
    await sync_to_async((await signed_in(user)).post)("/accounts/sign-out-everywhere/")
    assert (await sync_to_async(other_client.get)("/")).status_code == 200
    row = await sync_to_async(AccessToken.objects.filter(pk=theirs.row.pk).exists)()
    assert row


async def test_signing_out_everywhere_is_a_post_with_a_csrf_token(user: User) -> None:
    client = await signed_in(user)
    assert (await sync_to_async(client.get)("/accounts/sign-out-everywhere/")).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    await sync_to_async(strict.force_login)(user)
    refused = await sync_to_async(strict.post)("/accounts/sign-out-everywhere/")
    assert refused.status_code == 403
    assert (await sync_to_async(client.get)("/")).status_code == 200


async def test_a_password_change_closes_other_sessions_and_offers_signing_out_everywhere(
    project: Project, user: User
) -> None:
    made = await make_token(user)
    elsewhere = await signed_in(user)
    other_tab = await tab(project, elsewhere)
    here = await signed_in(user)
    this_tab = await tab(project, here)
    response = await sync_to_async(here.post)(
        "/accounts/password/",
        {
            "old_password": "correct horse battery",
            "new_password1": "a much newer passphrase",
            "new_password2": "a much newer passphrase",
        },
        follow=True,
    )
    assert (await closed_with(other_tab))["code"] == Close.SESSION_ENDED
    assert (await sync_to_async(elsewhere.get)("/")).status_code == 302
    assert await this_tab.receive_nothing(), "the session that changed it goes on, its tabs too"
    page = response.content.decode()
    assert "Password changed" in page
    assert "Your access tokens for scripts still work" in page
    assert 'action="/accounts/sign-out-everywhere/"' in page
    script = await connected_with_token(project, made.secret)  # kept, as the page says
    await sync_to_async(here.post)("/accounts/sign-out-everywhere/")
    await closed_everywhere(script)
    await closed_everywhere(this_tab)  # followed its session to the new key


async def test_staff_changing_a_password_closes_the_persons_sockets(
    project: Project, user: User
) -> None:
    socket = await tab(project, await signed_in(user))
    staff = await sync_to_async(User.objects.create_superuser)(
        "root", "root@example.com", "staff passphrase"
    )
    admin = await signed_in(staff)
    response = await sync_to_async(admin.post)(
        f"/admin/auth/user/{user.pk}/password/",
        {
            "password1": "set by the staff",
            "password2": "set by the staff",
            "usable_password": "true",
        },
    )
    assert response.status_code == 302
    assert (await closed_with(socket))["code"] == Close.SESSION_ENDED


async def test_a_deactivated_account_is_shut_out_of_its_sockets_and_tokens(
    project: Project, user: User
) -> None:
    made = await make_token(user)
    script = await connected_with_token(project, made.secret)
    browser = await tab(project, await signed_in(user))

    def deactivate() -> None:
        user.is_active = False
        user.save()

    await sync_to_async(deactivate)()
    for socket in (script, browser):
        assert (await closed_with(socket))["code"] == Close.SESSION_ENDED
    again = with_token(project, made.secret)
    connected, _ = await again.connect()
    assert not connected


async def test_settings_shows_each_tokens_last_use_and_offers_signing_out_everywhere(
    project: Project, user: User
) -> None:
    used = await make_token(user, "deploy")
    await make_token(user, "backup")
    script = await connected_with_token(project, used.secret)
    await script.disconnect()
    page = (await sync_to_async((await signed_in(user)).get)("/settings/")).content.decode()
    deploy = page[page.index('<td class="token-name">deploy</td>') :].split("</tr>", 1)[0]
    backup = page[page.index('<td class="token-name">backup</td>') :].split("</tr>", 1)[0]
    assert "never used" in backup
    assert "never used" not in deploy
    assert "<time datetime=" in deploy
    assert 'action="/accounts/sign-out-everywhere/"' in page
