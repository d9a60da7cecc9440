from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

from projects.web.preferences import THEMES, preferences_of


def site(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    theme = (
        preferences_of(user).get("theme") if user is not None and user.is_authenticated else None
    )
    return {
        "signup_allowed": settings.BUILTIT_ALLOW_SIGNUP,
        # Light or dark as the person chose, on every page they open.
        "theme_preference": theme if theme in THEMES else "",
    }
