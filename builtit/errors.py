"""Error pages in the site's own words: never a stack trace.

An htmx request swaps the answer into a small part of the page, so it gets a
one-line fragment instead of a whole page.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django_htmx.middleware import HtmxDetails

from projects.access import RoleRefused

_FRAGMENTS = {
    400: "The request could not be handled (it may be too large). Nothing was changed.",
    403: "Your session has expired or this page is out of date. Reload the page and try again.",
    404: "This no longer exists (it may have been deleted in another tab). Reload the page.",
}


def is_htmx(request: HttpRequest) -> bool:
    # Not request.htmx: error handlers can run before HtmxMiddleware has.
    return bool(HtmxDetails(request))


def error_fragment(message: str | SafeString, status: int) -> HttpResponse:
    """The one-line answer an htmx request swaps in where it expected content."""
    return HttpResponse(
        format_html('<span class="status error" role="alert">{}</span>', message), status=status
    )


def _answer(request: HttpRequest, status: int, template: str) -> HttpResponse:
    if is_htmx(request):
        return error_fragment(_FRAGMENTS[status], status)
    return HttpResponse(render_to_string(template, request=request), status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _answer(request, 400, "400.html")


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if isinstance(exception, RoleRefused):
        # A person's role does not allow it: say so, not "reload the page".
        said = str(exception)
        if is_htmx(request):
            return error_fragment(said, 403)
        page = render_to_string("403.html", {"refused": said}, request=request)
        return HttpResponse(page, status=403)
    return _answer(request, 403, "403.html")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return _answer(request, 403, "403.html")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _answer(request, 404, "404.html")


def server_error(request: HttpRequest) -> HttpResponse:
    # Rendered without the request context: whatever broke may break it again.
    return HttpResponse(render_to_string("500.html"), status=500)
