"""Error pages in the site's own words: never a stack trace."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    body = render_to_string("404.html", request=request)
    return HttpResponse(body, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    # Rendered without the request context: whatever broke may break it again.
    return HttpResponse(render_to_string("500.html"), status=500)
