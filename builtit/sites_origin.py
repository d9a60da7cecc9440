"""The sites origin's requests, kept apart from the app's (projects.web.sites).

First of the middleware: a request to the sites host or to a site's own host
(projects.web.sites.request_place) is answered here, by the sites URLconf's
views or the published site's, and never passes through the app's sessions,
CSRF, sign-in or CSP, so no page of the app answers there (and the app answers
no project content on its own origin). It reads no cookie and sets none, but a
site's own password pass on that site's own host: even a misconfigured cookie
domain could not carry a session to a project's page. The shared host's answers
carry their own sandboxing CSP (projects.views.preview, published), never the
app's."""

from __future__ import annotations

import logging
from collections.abc import Callable
from http.cookies import SimpleCookie

from django.conf import settings
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponsePermanentRedirect,
)
from django.urls import Resolver404, resolve, set_urlconf

from projects.views import preview, published
from projects.web.plain import plain_page
from projects.web.sandbox import SANDBOX
from projects.web.sites import URLCONF, SiteHost, raw_host, request_place

logger = logging.getLogger(__name__)
_SHOWN = 200  # characters of a stranger's host and path in the log
_UNKNOWN = plain_page("No site here", "This server serves nothing at this address.")


class SitesOriginMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        place = request_place(request)
        if place is None:
            return self.get_response(request)
        if place == "unknown":
            return _unknown_host(request)
        # Errors raised below are answered by the sites URLconf's handlers.
        request.urlconf = URLCONF
        set_urlconf(URLCONF)
        if settings.SECURE_SSL_REDIRECT and not request.is_secure():
            # The host request_place read (and checked), never another header's.
            host = raw_host(request)
            return HttpResponsePermanentRedirect(f"https://{host}{request.get_full_path()}")
        if isinstance(place, SiteHost):
            return own_host_answer(request, place)
        request.COOKIES = {}
        response = _dispatched(request)
        response.cookies = SimpleCookie()
        _length_said(response)
        # Every answer here sets its own sandboxing policy; one that did not (a
        # view to come) would have none, on a host every site shares.
        if not response.get("Content-Security-Policy", "").startswith("sandbox"):
            response["Content-Security-Policy"] = f"sandbox {SANDBOX}"
        if request.is_secure() and settings.SECURE_HSTS_SECONDS:
            response["Strict-Transport-Security"] = f"max-age={settings.SECURE_HSTS_SECONDS}"
        return response


def own_host_answer(request: HttpRequest, place: SiteHost) -> HttpResponseBase:
    """A request to a site's own host (also answered by builtit.own_hosts,
    in front of Django's handler): the site's password pass is the only cookie
    read or set there."""
    kept = published.PASS_COOKIES
    request.COOKIES = {name: value for name, value in request.COOKIES.items() if name in kept}
    response: HttpResponseBase = published.serve_own(request, place)
    cookies = SimpleCookie()
    for name in kept & set(response.cookies):
        cookies[name] = response.cookies[name]
    response.cookies = cookies
    _length_said(response)
    return response


def _length_said(response: HttpResponseBase) -> None:
    # As CommonMiddleware would (a HEAD's answer says how long the GET's is).
    if not response.streaming and not response.has_header("Content-Length"):
        response.headers["Content-Length"] = str(len(response.content))  # type: ignore[attr-defined]


def _unknown_host(request: HttpRequest) -> HttpResponse:
    """400, as Django answers a host it does not know, but in one line of the
    log (Django's is a traceback): a domain not proven yet, a scanner's guess."""
    logger.warning(
        "400 for host %r (%s %r): no site or page of this server is there",
        raw_host(request)[:_SHOWN],
        request.method,
        request.path[:_SHOWN],
    )
    response = HttpResponse(_UNKNOWN, status=400, content_type="text/html; charset=utf-8")
    # Django's own "Bad Request" line would be a second one.
    response._has_been_logged = True  # type: ignore[attr-defined]
    return preview.secured(response)


def _dispatched(request: HttpRequest) -> HttpResponseBase:
    """The sites URLconf's view for `request`, as Django's handler would call
    it, with CommonMiddleware's APPEND_SLASH (`/s/name` → `/s/name/`)."""
    path = request.path_info
    try:
        match = resolve(path, urlconf=URLCONF)
    except Resolver404:
        if not path.endswith("/"):
            try:
                resolve(path + "/", urlconf=URLCONF)
            except Resolver404:
                pass
            else:
                return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
        return preview.not_found(request)
    request.resolver_match = match
    response: HttpResponseBase = match.func(request, *match.args, **match.kwargs)
    return response
