"""Sessions know whose they are (accounts.sessions), so that "Sign out
everywhere" can find them; sessions made before the upgrade are moved over with
their person, so an upgrade signs nobody out."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone
from django.utils.crypto import get_random_string

from accounts.models import UserSession

BEFORE = [("accounts", "0001_initial")]
AFTER = [("accounts", "0002_sessions_moved")]


def test_signing_in_records_the_person_on_the_session(user: User) -> None:
    client = Client()
    client.post("/accounts/login/", {"username": "ada", "password": "correct horse battery"})
    row = UserSession.objects.get(session_key=client.session.session_key)
    assert row.user_id == user.pk
    # As the admin reads a session: decoded by the engine the settings name.
    assert row.get_decoded()["_auth_user_id"] == str(user.pk)
    client.post("/accounts/logout/")
    assert not UserSession.objects.filter(user_id=user.pk).exists()


@pytest.fixture
def before_the_upgrade(transactional_db: None) -> Iterator[MigrationExecutor]:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        yield executor
    finally:
        MigrationExecutor(connection).migrate(AFTER)


def _old_session(data: dict[str, str], *, expires_in: timedelta) -> str:
    """A session as Django's own database engine stored it."""
    store = DjangoStore()
    key = get_random_string(32)
    Session.objects.create(
        session_key=key,
        session_data=store.encode(data),
        expire_date=timezone.now() + expires_in,
    )
    return key


def test_the_upgrade_moves_sessions_with_their_person(
    before_the_upgrade: MigrationExecutor, user: User
) -> None:
    day = timedelta(days=1)
    signed_in = _old_session(
        {
            "_auth_user_id": str(user.pk),
            "_auth_user_backend": "django.contrib.auth.backends.ModelBackend",
            "_auth_user_hash": user.get_session_auth_hash(),
        },
        expires_in=day,
    )
    anonymous = _old_session({"theme": "dark"}, expires_in=day)
    expired = _old_session({"_auth_user_id": str(user.pk)}, expires_in=-day)
    Session.objects.create(
        session_key="x" * 32, session_data="not signed", expire_date=timezone.now() + day
    )

    MigrationExecutor(connection).migrate(AFTER)

    moved = dict(UserSession.objects.values_list("session_key", "user_id"))
    assert moved == {signed_in: user.pk, anonymous: None, "x" * 32: None}
    assert expired not in moved
    assert not Session.objects.exists()
    # Still signed in after the upgrade.
    client = Client()
    client.cookies["sessionid"] = signed_in
    assert client.get("/").status_code == 200
