"""Who is asking: the signed-in person of a request, for every view of the apps."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest


def current_user(request: HttpRequest) -> User:
    """The signed-in user. LoginRequiredMiddleware guarantees one on every view
    that is not marked login_not_required; this makes the guarantee explicit."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise PermissionDenied
    return user
