"""The session engine (SESSION_ENGINE = "accounts.sessions"): Django's database
sessions, stored in accounts.models.UserSession with the signed-in person's id
beside the data, as Django's documentation shows for extending the engine."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore

from accounts.models import UserSession


def _user_id(data: dict[str, Any]) -> int | None:
    try:
        return int(data[SESSION_KEY])
    except (KeyError, TypeError, ValueError):
        return None


class SessionStore(DatabaseStore):
    @classmethod
    def get_model_class(cls) -> type[UserSession]:
        return UserSession

    def create_model_instance(self, data: dict[str, Any]) -> UserSession:
        row = super().create_model_instance(data)
        assert isinstance(row, UserSession)  # the model above
        row.user_id = _user_id(data)
        return row

    async def acreate_model_instance(self, data: dict[str, Any]) -> UserSession:
        row = await super().acreate_model_instance(data)
        assert isinstance(row, UserSession)
        row.user_id = _user_id(data)
        return row
