"""The sites origin, for a request: where the app's pages point a project's
content (the preview frame, "Open ↗"), whether a request came to it, and which
pages may frame what it serves. The names themselves: common.sites.

The app's pages never serve project content and the sites origin serves nothing
else (its own URLconf, `URLCONF`, chosen by builtit.sites_origin); the app's
CSP lets its pages frame the sites origin and trusts nothing from it.
"""

from __future__ import annotations

from typing import TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.http.request import split_domain_port
from django.urls import reverse

from common.sites import PREFIX, origin_domain, sites_domain_for

URLCONF = "projects.sites_urls"

R = TypeVar("R", bound=HttpResponseBase)


def sites_origin(request: HttpRequest) -> str:
    """The sites origin of the app `request` reached: BUILTIT_SITES_ORIGIN, or
    the same scheme and port on the sites host (common.sites)."""
    configured: str | None = settings.BUILTIT_SITES_ORIGIN
    if configured is not None:
        return configured
    domain, port = split_domain_port(request.get_host())
    return f"{request.scheme}://{sites_domain_for(domain)}" + (f":{port}" if port else "")


def is_sites_request(request: HttpRequest) -> bool:
    """Whether `request` came to the sites origin (by its host; the port does
    not matter, as it does not to a browser's cookies)."""
    domain, _ = split_domain_port(request.get_host())
    return _is_sites_host(domain)


def preview_path(token: str, path: str = "") -> str:
    """A preview's path on the sites origin (`/preview/<token>/<path>`)."""
    if path:
        return reverse("preview", urlconf=URLCONF, kwargs={"token": token, "path": path})
    return reverse("preview_root", urlconf=URLCONF, kwargs={"token": token})


def preview_url(request: HttpRequest, token: str, path: str = "") -> str:
    return sites_origin(request) + preview_path(token, path)


def site_url(request: HttpRequest, name: str) -> str:
    """A published site's address (`/<name>/` on the sites origin)."""
    return sites_origin(request) + reverse("published_root", urlconf=URLCONF, kwargs={"name": name})


def frame_sites(request: HttpRequest, response: R) -> R:
    """Let the page in `response` frame the sites origin and show its images
    (the preview, a binary file in the editor); it trusts nothing else of it."""
    origin = sites_origin(request)
    response._csp_update = {"frame-src": [origin], "img-src": [origin]}  # type: ignore[attr-defined]
    return response


def sandboxed(response: R, *, policy: str, referrer: str) -> R:
    """The headers every answer of the sites origin carries: `policy` (a CSP
    that starts with `sandbox`: the page runs in an opaque origin, nothing of
    anyone's to reach), no type sniffing, `referrer` as its Referrer-Policy.
    Opaque-origin pages load module scripts and fetch JSON with CORS, so any
    origin may read what is served (a token or a password, not the origin,
    grants access); X-Frame-Options would refuse the app's frame (who may
    frame is the policy's frame-ancestors)."""
    response["Content-Security-Policy"] = policy
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = referrer
    response["Access-Control-Allow-Origin"] = "*"
    response["Cross-Origin-Resource-Policy"] = "cross-origin"
    response.xframe_options_exempt = True  # type: ignore[attr-defined]
    return response


def app_sources() -> list[str]:
    """CSP sources naming the app's pages, for `frame-ancestors` on the sites
    origin: the app's hosts (ALLOWED_HOSTS, any port) and trusted origins,
    never the sites host itself."""
    sources: list[str] = []
    sites = {host for host in settings.ALLOWED_HOSTS if _is_sites_host(host)}
    for host in settings.ALLOWED_HOSTS:
        # CSP has no way to name an IPv6 address: a page at http://[::1]:8000
        # cannot frame the preview (127.0.0.1 or localhost can).
        if host in sites or host.startswith("["):
            continue
        if host == "*":
            return ["*"]
        sources.append(("*" + host if host.startswith(".") else host) + ":*")
    sources += list(settings.CSRF_TRUSTED_ORIGINS)
    return sources


def _is_sites_host(host: str) -> bool:
    configured: str | None = settings.BUILTIT_SITES_ORIGIN
    if configured is not None:
        return host == origin_domain(configured)
    return host.startswith(PREFIX)
