"""The sites origin, for a request: where the app's pages point a project's
content (the preview frame, "Open ↗"), whether a request came to it, and which
pages may frame what it serves. The names themselves: common.sites.

The app's pages never serve project content and the sites origin serves nothing
else (its own URLconf, `URLCONF`, chosen by builtit.sites_origin); the app's
CSP lets its pages frame the sites origin and trusts nothing from it.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Literal, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.http.request import split_domain_port, validate_host
from django.urls import reverse

from common.sites import is_sites_domain, sites_domain_for
from projects.publish.live_sites import live_site
from projects.publish.names import NAME_PATTERN, RESERVED
from projects.web.past_seals import past_seal
from projects.web.sandbox import SANDBOX

URLCONF = "projects.sites_urls"

R = TypeVar("R", bound=HttpResponseBase)


def sites_origin(request: HttpRequest) -> str:
    """The sites origin of the app `request` reached: BUILTIT_SITES_ORIGIN, or
    the same scheme and port on the sites host (common.sites)."""
    configured: str | None = settings.BUILTIT_SITES_ORIGIN
    if configured is not None:
        return configured
    domain, port = split_domain_port(request.get_host())
    sites = domain if _is_sites_host(domain) else sites_domain_for(domain)
    return f"{request.scheme}://{sites}" + (f":{port}" if port else "")


def preview_path(token: str, path: str = "") -> str:
    """A preview's path on the sites origin (`/preview/<token>/<path>`)."""
    if path:
        return reverse("preview", urlconf=URLCONF, kwargs={"token": token, "path": path})
    return reverse("preview_root", urlconf=URLCONF, kwargs={"token": token})


def preview_url(request: HttpRequest, token: str, path: str = "") -> str:
    return sites_origin(request) + preview_path(token, path)


def past_preview_url(
    request: HttpRequest, token: str, *, project_id: uuid.UUID, point: int, page: str = ""
) -> str:
    """The preview of every file as it was right after revision `point`
    (projects.views.preview_past), at `page` (relative to the site's root)."""
    seal = past_seal(project_id=project_id, kind="point", number=point)
    kwargs = {"token": token, "point": str(point), "seal": seal, "path": page}
    return sites_origin(request) + reverse("preview_past", urlconf=URLCONF, kwargs=kwargs)


def version_preview_url(
    request: HttpRequest, token: str, *, project_id: uuid.UUID, revision: int, page: str = ""
) -> str:
    """The preview of today's files with the one `revision` changed as it left it."""
    seal = past_seal(project_id=project_id, kind="file", number=revision)
    kwargs = {"token": token, "revision": str(revision), "seal": seal, "path": page}
    return sites_origin(request) + reverse("preview_version", urlconf=URLCONF, kwargs=kwargs)


def published_preview_url(
    request: HttpRequest, token: str, *, project_id: uuid.UUID, number: int
) -> str:
    """The preview of the project's published version `number`, as it is served
    (projects.views.preview_past.serve_published)."""
    seal = past_seal(project_id=project_id, kind="published", number=number)
    kwargs = {"token": token, "number": str(number), "seal": seal, "path": ""}
    return sites_origin(request) + reverse("preview_published", urlconf=URLCONF, kwargs=kwargs)


def site_url(request: HttpRequest, name: str) -> str:
    """A published site's address: its own host, `<name>.<sites host>`, or, when
    the server gives sites none, `/s/<name>/` on the sites origin."""
    if settings.BUILTIT_SITES_SUBDOMAINS:
        return _on_host(request, f"{name}.{origin_host(sites_origin(request))}")
    return sites_origin(request) + reverse("published_root", urlconf=URLCONF, kwargs={"name": name})


def domain_url(request: HttpRequest, domain: str) -> str:
    """A site's own domain, with the sites origin's scheme and port."""
    return _on_host(request, domain)


def own_url(request: HttpRequest, *, name: str, domain: str | None) -> str | None:
    """The address of the site `name` (at `domain`, if it names one) on a host of
    its own, where a password can keep it; None when it has none."""
    if settings.BUILTIT_SITES_SUBDOMAINS:
        return site_url(request, name)
    return domain_url(request, domain) if domain else None


def origin_host(origin: str) -> str:
    """`host` of `scheme://host[:port]`."""
    return split_domain_port(origin.split("://", 1)[1])[0]


def _on_host(request: HttpRequest, host: str) -> str:
    scheme, rest = sites_origin(request).split("://", 1)
    _, port = split_domain_port(rest)
    return f"{scheme}://{host}" + (f":{port}" if port else "") + "/"


@dataclass(frozen=True)
class SiteHost:
    """A request to one published site's own host: `<name>.<sites host>`, or a
    domain a site names."""

    name: str | None = None
    domain: str | None = None


_NAME = re.compile(NAME_PATTERN)


Place = SiteHost | Literal["sites", "unknown"] | None


def request_place(request: HttpRequest) -> Place:
    """Where `request` came: a site's own host, the sites host ("sites"), the
    app (None), or a host this server answers nothing at ("unknown": no site
    has it, or not yet proven, or a scanner's guess). Read from the Host header
    as sent (Django's get_host() refuses any host ALLOWED_HOSTS does not name,
    and a site's domain is in no setting), so every answer checks its host
    here: the sites host and its names must be allowed; a domain must be one a
    site has proven."""
    place = host_place(request)
    if place != "a domain":
        return place
    domain, _ = split_domain_port(raw_host(request))
    return SiteHost(domain=domain) if live_site(domain=domain) is not None else "unknown"


def host_place(request: HttpRequest) -> Place | Literal["a domain"]:
    """request_place's answer as far as the host's name tells it, without the
    database: "a domain" for a host that is a site's only if a site has proven it."""
    domain, _ = split_domain_port(raw_host(request))
    if not domain:
        return "unknown"  # not a host name at all ("Bad_Name", "a b")
    if _is_sites_host(domain):
        return "sites" if validate_host(domain, settings.ALLOWED_HOSTS) else "unknown"
    label, _, rest = domain.partition(".")
    if (
        settings.BUILTIT_SITES_SUBDOMAINS
        and _is_sites_host(rest)
        and validate_host(rest, settings.ALLOWED_HOSTS)
    ):
        named = _NAME.fullmatch(label) and label not in RESERVED
        return SiteHost(name=label) if named else "unknown"
    if validate_host(domain, settings.ALLOWED_HOSTS):
        return None  # the app's
    return "a domain"


def raw_host(request: HttpRequest) -> str:
    """The host a request names, as sent (X-Forwarded-Host when the settings trust it)."""
    meta = request.META
    if settings.USE_X_FORWARDED_HOST and "HTTP_X_FORWARDED_HOST" in meta:
        return str(meta["HTTP_X_FORWARDED_HOST"])
    return str(meta.get("HTTP_HOST") or meta.get("SERVER_NAME", ""))


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


# A published site at `/s/<name>/`: as the preview, but links to other sites
# open as they would on any host.
PUBLISHED_CSP = f"sandbox {SANDBOX} allow-popups-to-escape-sandbox"


def published_shared(response: R) -> R:
    """A published site's answer on the shared sites host (anyone may frame it,
    as on any static host)."""
    return sandboxed(response, policy=PUBLISHED_CSP, referrer="strict-origin-when-cross-origin")


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
    return is_sites_domain(host, settings.BUILTIT_SITES_ORIGIN)
