from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

from projects.selectors import preferences_of
from projects.web.preferences import THEMES


def site(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    theme = None
    if user is not None and user.is_authenticated:
        theme = preferences_of(user=user).get("theme")
    return {
        "signup_allowed": settings.BUILTIT_ALLOW_SIGNUP,
        # Light or dark as the person chose, on every page they open.
        "theme_preference": theme if theme in THEMES else "",
    }
