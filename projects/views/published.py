"""A published site, served as a static host serves one (projects.publish.addresses
for which file an address names, projects.web.static_files for ETags, ranges
and gzip), with the site's own 404.html when it has one, and never the
preview's script. Two kinds of address:

- its own host (`<name>.<sites host>`, or a domain the site names: `serve_own`,
  which builtit.sites_origin calls), an origin of its own, served as it is;
  there a password can keep it, with a pass in a cookie of that host alone;
- `/s/<name>/` on the sites host (`serve`), shared by every site: each page
  runs sandboxed in an opaque origin of its own (as previews do), so one site's
  scripts read neither another's pages nor its storage. A site kept by a
  password is never served there: its visitors are sent to its own host.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.html import escape
from django.utils.http import escape_leading_slashes
from django.views.decorators.csrf import csrf_exempt

from projects.publish.addresses import file_for
from projects.publish.domains import domain_check_due
from projects.publish.live_sites import LiveSite, live_site
from projects.publish.passwords import (
    MAX_LENGTH,
    PASS_DAYS,
    Throttled,
    pass_for,
    pass_valid,
    password_try,
)
from projects.publish.serving import Content, Stored, content_of, version_index
from projects.views.preview import pages_css
from projects.views.site_forms import OWN_FORM, own_host_form
from projects.web.methods import Headed, method_refused, safe_only
from projects.web.plain import PAGES_CSP, PAGES_CSS_PATH, plain_page
from projects.web.sites import SiteHost, origin_host, own_url, published_shared, sites_origin
from projects.web.static_files import content_response

PASS_COOKIE = "builtit_site_pass"  # noqa: S105  (a cookie's name)
# Over HTTPS, a name browsers keep to the host that set it (no Domain, Secure):
# another site's page cannot set one for every host under the sites host.
SECURE_PASS_COOKIE = "__Host-" + PASS_COOKIE
PASS_COOKIES = frozenset({PASS_COOKIE, SECURE_PASS_COOKIE})
# Cookies of the pass's name looked at, the last ones sent: each costs an HMAC.
# A browser sends those of longer paths first, so the pass (path "/") is among
# the last, whatever paths another site's cookies name.
_MAX_PASSES = 20
# The password form: its stylesheet alone loads, it posts to the page itself, no frame.
_FORM_CSP = f"{PAGES_CSP}; form-action 'self'; frame-ancestors 'none'"
_NO_SITE = plain_page("No site here", "No site is published at this address.")
_MISSING = plain_page("Page not found", "This site has no page at this address.")
_NOT_HERE = plain_page(
    "This site has a password",
    "It is served only at an address of its own, which this server does not give it now.",
)


def _shared(response: HttpResponse) -> HttpResponse:
    return published_shared(response)


def own_headed(response: HttpResponse) -> HttpResponse:
    """The headers of every answer on a site's own host (builtit.own_hosts)."""
    return _own(response)


def _own(response: HttpResponse) -> HttpResponse:
    """A site's own host: its pages run as they would on any static host."""
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = "strict-origin-when-cross-origin"
    response.xframe_options_exempt = True
    return response


@login_not_required
@csrf_exempt  # only GET and HEAD are served, and no cookie is read: a POST gets 405
@safe_only(_shared)
def serve(request: HttpRequest, name: str, path: str = "") -> HttpResponse:
    """`/s/<name>/<path>` on the sites host."""
    site = live_site(name=name)
    closed = _closed(site)
    if closed is not None or site is None:
        return _shared(closed or _plain(_NO_SITE, 404))
    if site.protected:
        own = own_url(request, name=site.name, domain=site.domain)
        if own is None:
            return _shared(_plain(_NOT_HERE, 403))
        query = request.META.get("QUERY_STRING", "")
        return _shared(HttpResponseRedirect(own + path + (f"?{query}" if query else "")))
    return _served(request, site, "/" + path, _shared)


@login_not_required
def domain_check(request: HttpRequest) -> HttpResponse:
    """200 if `?domain=` is a host a site is served at (its name's, or its own
    domain, proven), else 404: what a proxy that gets certificates on demand
    asks before it asks for one (docs/production.md)."""
    asked = request.GET.get("domain", "").strip().lower().rstrip(".")
    label, _, rest = asked.partition(".")
    if settings.BUILTIT_SITES_SUBDOMAINS and rest == origin_host(sites_origin(request)):
        site = live_site(name=label)
    else:
        site = live_site(domain=asked)
        # A domain is a site's once proven: a check of it that is due is made now.
        if site is None and domain_check_due(domain=asked):
            site = live_site(domain=asked)
    # A certificate only for what is served now: not a site offline or taken down.
    known = bool(asked) and site is not None and _closed(site) is None
    response = HttpResponse(
        "yes" if known else "no", content_type="text/plain", status=200 if known else 404
    )
    return _shared(response)


def serve_own(request: HttpRequest, host: SiteHost) -> HttpResponse:
    """Any address on a site's own host."""
    if request.path == PAGES_CSS_PATH:  # no file of the site's has this path
        return _own(pages_css(request))
    site = live_site(name=host.name) if host.name else live_site(domain=host.domain)
    form = OWN_FORM.fullmatch(request.path)
    if form is not None:
        holds = site is not None and site.protected and _holds_pass(request, site)
        return _own(own_host_form(request, site, form, holds_pass=holds))
    closed = _closed(site)
    if closed is not None and site is not None and site.taken_down:
        # Its pages ran as an origin of their own: what they left in a visitor's
        # browser (a service worker serving the pages offline, storage) goes.
        closed["Clear-Site-Data"] = '"cache", "storage"'
    if closed is not None or site is None:
        return _own(closed or _plain(_NO_SITE, 404))
    if site.protected and not _holds_pass(request, site):
        return _password_gate(request, site)
    refused = method_refused(request, _own)
    if refused is not None:
        return refused
    response = _served(request, site, request.path, _own)
    if site.protected:
        # Only for whoever holds a pass: no shared cache may keep it.
        response["Cache-Control"] = "private, no-cache"
        response["Vary"] = ", ".join(filter(None, [response.get("Vary", ""), "Cookie"]))
    return response


def _closed(site: LiveSite | None) -> HttpResponse | None:
    """What the address says when nothing of the site is served."""
    if site is None:
        return _plain(_NO_SITE, 404)
    if site.taken_down:
        down = plain_page("This site was taken down", escape(site.taken_down), site=site.name)
        return _plain(down, 410)
    # Offline, in the trash, or its owner's account closed by staff.
    if site.version_id is None or site.gone:
        gone = plain_page(
            "This site is not published",
            "Its owner has taken it offline. If they publish it again, it will be here.",
            site=site.name,
        )
        return _plain(gone, 410)
    return None


def _served(request: HttpRequest, site: LiveSite, address: str, headed: Headed) -> HttpResponse:
    assert site.version_id is not None  # _closed said so
    assert site.version_made is not None
    index = version_index(site.version_id, site.version_made)
    found = file_for(address, index)
    if found is not None and found.folder:
        return headed(HttpResponseRedirect(_here(request, "/")))
    content = content_of(index[found.path], found.path) if found is not None else None
    if content is None:
        return headed(_not_found(index))
    return headed(_file(request, content))


def _file(request: HttpRequest, content: Content) -> HttpResponse:
    response = content_response(
        request, content.data, content.content_type, content.digest, gzipped=content.gzipped
    )
    # Published pages change when their owner updates: kept, but asked about each time.
    response["Cache-Control"] = "no-cache"
    return response


def _not_found(index: dict[str, Stored]) -> HttpResponse:
    """The site's own 404.html, if it has one."""
    stored = index.get("/404.html")
    own = content_of(stored, "/404.html") if stored is not None else None
    if own is None:
        return _plain(_MISSING, 404)
    return HttpResponse(own.data, status=404, content_type=own.content_type)


def _password_gate(request: HttpRequest, site: LiveSite) -> HttpResponse:
    """The password form, or, for the right password, a pass and the page again."""
    if request.method != "POST":
        return _form(site, status=403)
    given = request.POST.get("password", "")
    opened = password_try(site, request.META.get("REMOTE_ADDR"), given)
    if isinstance(opened, Throttled):
        said = f"Too many wrong passwords: try again in {opened.minutes} minutes."
        return _form(site, status=429, said=said)
    if not opened:
        return _form(site, status=403, said="That is not the password.")
    # Back to the page asked for, as a GET (a reload does not post it again).
    response = HttpResponseRedirect(_here(request), status=303)
    response.set_cookie(
        _pass_cookie(request),
        pass_for(site),
        max_age=PASS_DAYS * 86400,
        secure=request.is_secure(),
        httponly=True,
        samesite="Lax",
    )
    return _own(response)


def _here(request: HttpRequest, add: str = "") -> str:
    """This address again (plus `add`), as a path a browser cannot read as
    another host's: `//evil.example/x` would be."""
    query = request.META.get("QUERY_STRING", "")
    return escape_leading_slashes(request.path + add) + (f"?{query}" if query else "")


def _pass_cookie(request: HttpRequest) -> str:
    return SECURE_PASS_COOKIE if request.is_secure() else PASS_COOKIE


def _holds_pass(request: HttpRequest, site: LiveSite) -> bool:
    """Whether any cookie of the pass's name holds a pass to `site`. Over HTTP a
    page of another site, on a sibling host, can set a cookie of that name for
    every host under the sites host: the browser then sends both, in an order of
    its own, and request.COOKIES keeps only one."""
    name = _pass_cookie(request)
    return any(pass_valid(site, value) for value in _cookie_values(request, name))


def _cookie_values(request: HttpRequest, name: str) -> list[str]:
    """Every value the request's Cookie header gives `name` (as Django's
    parse_cookie reads the header, but keeping each), the last _MAX_PASSES."""
    values = []
    for chunk in str(request.META.get("HTTP_COOKIE", "")).split(";"):
        key, _, value = chunk.partition("=")
        if key.strip() == name:
            values.append(value.strip())
    return values[-_MAX_PASSES:]


def _form(site: LiveSite, *, status: int, said: str = "") -> HttpResponse:
    notice = f'<p class="said" role="alert">{escape(said)}</p>' if said else ""
    form = (
        f"{notice}<form method=post><label for=password>Password</label>"
        f"<input id=password name=password type=password required autofocus "
        f'maxlength="{MAX_LENGTH}" autocomplete=current-password>'
        "<button>Open</button></form>"
    )
    page = plain_page(
        "This site has a password",
        "This site is kept by a password: give the one its owner shared with you.",
        site=site.name,
        more=form,
    )
    response = _plain(page, status)
    response["Content-Security-Policy"] = _FORM_CSP
    response["Cache-Control"] = "no-store"
    return _own(response)


def _plain(page: str, status: int) -> HttpResponse:
    response = HttpResponse(page, status=status, content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    # On a site's own host; the shared host's answers are sandboxed instead (_shared).
    response["Content-Security-Policy"] = PAGES_CSP
    return response
