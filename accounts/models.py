"""Sessions that know whose they are, and sign-up attempts by address.

Django's database sessions keep the person's id inside the signed data, so it
cannot find a person's sessions without decoding every one. `UserSession` is
Django's documented way out (extending the database session engine with a
column: accounts.sessions), so "Sign out everywhere" ends them in one query.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models


class UserSession(AbstractBaseSession):
    """A session, with the id of the person signed in on it (None: nobody).

    A plain column, not a foreign key: a session saved just as its person is
    deleted must not fail the request, and deleting a person in the admin must
    not ask the member of staff for the right to delete sessions. A session
    whose person is gone opens nothing (Django checks the person on each
    request) and expires like any other."""

    user_id = models.IntegerField(null=True, db_index=True)

    class Meta(AbstractBaseSession.Meta):
        verbose_name = "session"
        verbose_name_plural = "sessions"

    @classmethod
    def get_session_store_class(cls) -> Any:
        # The engine the settings name (accounts.sessions), found as Django's session
        # middleware finds it: the engine stores this model, so the model does not
        # import the engine back.
        return import_module(settings.SESSION_ENGINE).SessionStore


class SignupAttempt(models.Model):
    """One sign-up form sent from an address (accounts.signup bounds them)."""

    address = models.GenericIPAddressField(null=True)
    at = models.DateTimeField(db_index=True)

    class Meta:
        indexes = [models.Index(fields=["address", "at"])]

    def __str__(self) -> str:
        return f"{self.address} at {self.at:%Y-%m-%d %H:%M}"
