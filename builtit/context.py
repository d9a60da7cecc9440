from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    return {"signup_allowed": settings.BUILTIT_ALLOW_SIGNUP}
