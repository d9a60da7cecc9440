"""Writes on people's sessions."""

from __future__ import annotations

from accounts.models import UserSession


def user_sessions_end(*, user_id: int) -> int:
    """End every session of the person, wherever it was made: each is deleted,
    so the next request on it is signed out. Returns how many there were."""
    deleted, _ = UserSession.objects.filter(user_id=user_id).delete()
    return deleted
