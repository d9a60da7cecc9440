"""A published site: `/<name>/<path>` on the sites origin serves the live
version's files as a static host does (projects.publish.addresses for which
file an address names, projects.web.static_files for ETags, ranges and gzip),
with the site's own 404.html when it has one, and never the preview's script.

Every site shares the sites origin, so each page runs sandboxed in an opaque
origin of its own (as previews do): one site's scripts can read neither
another's pages nor its storage."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.utils.html import escape
from django.views.decorators.csrf import csrf_exempt

from projects.models import Site
from projects.publish.addresses import file_for
from projects.publish.serving import Content, Stored, content_of, version_index
from projects.web.plain import plain_page
from projects.web.sandbox import SANDBOX
from projects.web.sites import sandboxed
from projects.web.static_files import content_response

# Unlike the preview: links to other sites open as they would on any host.
_CSP = f"sandbox {SANDBOX} allow-popups-to-escape-sandbox"
_NO_SITE = plain_page("No site here", "No site is published at this address.")
_GONE = plain_page("This site is not published", "Its owner has taken it offline.")
_MISSING = plain_page("Page not found", "This site has no page at this address.")


@login_not_required
@csrf_exempt  # only GET and HEAD are served, and no cookie is read: a POST gets 405
def serve(request: HttpRequest, name: str, path: str = "") -> HttpResponse:
    if request.method not in {"GET", "HEAD"}:
        return _headed(HttpResponseNotAllowed(["GET", "HEAD"]))
    site = (
        Site.objects.filter(name=name)
        .select_related("live", "project__owner")
        .only("live", "taken_down", "project__deleted_at", "project__owner__is_active")
        .first()
    )
    closed = _closed(site)
    if closed is not None or site is None or site.live is None:
        return closed or _plain(_NO_SITE, 404)
    index = version_index(site.live.pk, site.live.created_at)
    found = file_for("/" + path, index)
    if found is not None and found.folder:
        query = request.META.get("QUERY_STRING", "")
        return _headed(HttpResponseRedirect(request.path + "/" + (f"?{query}" if query else "")))
    content = content_of(index[found.path], found.path) if found is not None else None
    if content is None:
        return _not_found(index)
    return _file(request, content)


def _closed(site: Site | None) -> HttpResponse | None:
    """What the address says when nothing of the site is served."""
    if site is None:
        return _plain(_NO_SITE, 404)
    if site.taken_down:
        return _plain(plain_page("This site was taken down", escape(site.taken_down)), 410)
    # Offline, in the trash, or its owner's account closed by staff.
    if site.live is None or site.project.deleted_at is not None or not site.project.owner.is_active:
        return _plain(_GONE, 410)
    return None


def _file(request: HttpRequest, content: Content) -> HttpResponse:
    response = content_response(
        request, content.data, content.content_type, content.digest, gzipped=content.gzipped
    )
    # Published pages change when their owner updates: kept, but asked about each time.
    response["Cache-Control"] = "no-cache"
    return _headed(response)


def _not_found(index: dict[str, Stored]) -> HttpResponse:
    """The site's own 404.html, if it has one."""
    stored = index.get("/404.html")
    own = content_of(stored, "/404.html") if stored is not None else None
    if own is None:
        return _plain(_MISSING, 404)
    response = HttpResponse(own.data, status=404, content_type=own.content_type)
    return _headed(response)


def _plain(page: str, status: int) -> HttpResponse:
    response = HttpResponse(page, status=status, content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return _headed(response)


def _headed(response: HttpResponse) -> HttpResponse:
    # Anyone may frame a published site, as on any static host.
    return sandboxed(response, policy=_CSP, referrer="strict-origin-when-cross-origin")
