from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from builtit.errors import error_fragment, is_htmx


class SignInRequiredMiddleware(LoginRequiredMiddleware):
    """Every page needs a signed-in user. An htmx request whose session ended gets
    a one-line answer instead of the sign-in page swapped into a corner of the
    workspace, so the editor (and any unsaved text in it) stays as it is."""

    # The stubs narrow the return type to a redirect; Django only needs a response.
    def handle_no_permission(  # type: ignore[override]
        self, request: HttpRequest, view_func: Callable[..., Any]
    ) -> HttpResponse:
        if not is_htmx(request):
            response: HttpResponse = super().handle_no_permission(request, view_func)
            return response
        message = format_html(
            'You are signed out. <a href="{}" target="_blank" rel="noopener">Sign in again</a> '
            "in a new tab, then try once more: your edits are still here.",
            reverse("login"),
        )
        return error_fragment(message, 401)
