"""Who gets the larger body limits: Django's own verdict on the session cookie,
read-only (builtit.server.bodysession); the server's side is
tests/builtit/server/test_body_limits.py.
The check runs in a thread of its own, as the server runs it, on committed data."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from importlib import import_module

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.test import Client, override_settings

from builtit.server.bodysession import SignIn, session_key, session_signed_in

pytestmark = pytest.mark.django_db(transaction=True)


def checked(key: str) -> SignIn:
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(session_signed_in, key).result()


def signed_in(user: User) -> str:
    client = Client()
    client.force_login(user)
    return str(client.cookies["sessionid"].value)


def test_a_signed_in_session_is_signed_in(user: User) -> None:
    assert checked(signed_in(user)) is SignIn.SIGNED_IN


@pytest.mark.parametrize("key", ["abcdefghijklmnopqrstuvwxyz012345", "short", ""])
def test_a_made_up_key_is_signed_out(key: str) -> None:
    assert checked(key) is SignIn.SIGNED_OUT


def test_a_session_from_before_a_password_change_is_signed_out(user: User) -> None:
    key = signed_in(user)
    user.set_password("a brand new secret phrase")
    user.save()
    assert checked(key) is SignIn.SIGNED_OUT


def test_a_deactivated_persons_session_is_signed_out(user: User) -> None:
    key = signed_in(user)
    user.is_active = False
    user.save()
    assert checked(key) is SignIn.SIGNED_OUT


def test_a_session_signed_under_the_previous_secret_key_is_kept(user: User, settings) -> None:
    """Django moves such a session to a new key when it handles a request; the
    check before the body must not, or the person would be signed out under
    the upload they are sending."""
    key = signed_in(user)
    with override_settings(
        SECRET_KEY="a new key " + "z" * 50, SECRET_KEY_FALLBACKS=[settings.SECRET_KEY]
    ):
        assert checked(key) is SignIn.SIGNED_IN
    assert import_module(django_settings.SESSION_ENGINE).SessionStore().exists(key)


def test_only_a_cookie_that_could_be_a_key_is_taken() -> None:
    assert session_key({b"sessionid": b"abc123"}) == "abc123"
    assert session_key({b"sessionid": b'"abc123"'}) == "abc123"
    assert session_key({b"sessionid": b"abc;123"}) is None
    assert session_key({b"other": b"abc123"}) is None
