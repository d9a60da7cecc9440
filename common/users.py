"""Who is asking: the signed-in person of a request, for every view of the apps;
and the name we show one person for another."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest


def current_user(request: HttpRequest) -> User:
    """The signed-in user. LoginRequiredMiddleware guarantees one on every view
    that is not marked login_not_required; this makes the guarantee explicit."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise PermissionDenied
    return user


def person_name(user: AbstractBaseUser) -> str:
    """The name we show for a person wherever another sees it: the chat's "Erin
    asked", the busy refusal, the workspace's role line and badge. Their full
    name, else their username."""
    full = user.get_full_name().strip() if isinstance(user, User) else ""
    return full or user.get_username()
