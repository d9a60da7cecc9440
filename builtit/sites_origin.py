"""The sites origin's requests, kept apart from the app's (projects.web.sites).

A request to the sites host is resolved against the sites URLconf only, so no
page of the app answers there, and the app answers no project content on its
own origin. It reads no cookie and sets none: even a misconfigured cookie
domain could not carry a session to a project's page. Its responses carry their
own sandboxing CSP (projects.views.preview, published), never the app's."""

from __future__ import annotations

from collections.abc import Callable
from http.cookies import SimpleCookie

from django.http import HttpRequest, HttpResponseBase

from projects.web.sandbox import SANDBOX
from projects.web.sites import URLCONF, is_sites_request


class SitesOriginMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not is_sites_request(request):
            return self.get_response(request)
        request.urlconf = URLCONF
        request.COOKIES = {}
        response = self.get_response(request)
        response.cookies = SimpleCookie()
        # Every answer here sets its own sandboxing policy; one that did not (a
        # view to come) would carry the app's, where 'self' is this shared origin.
        if not response.get("Content-Security-Policy", "").startswith("sandbox"):
            response["Content-Security-Policy"] = f"sandbox {SANDBOX}"
        # The session middleware says the answer depends on the cookie; here it
        # never does, and a cache should not keep a copy per visitor.
        vary = [v.strip() for v in response.get("Vary", "").split(",") if v.strip()]
        kept = [v for v in vary if v.lower() != "cookie"]
        if kept:
            response["Vary"] = ", ".join(kept)
        elif "Vary" in response:
            del response["Vary"]
        return response
