"""The workspace's Publish dialog: a check of the whole site in words, then a
frozen version live at the address the owner chose; Update, Unpublish, and
earlier versions made live again or downloaded (projects.publish)."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import pluralize
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_POST

from common.users import current_user
from projects.access import access_for, project_for
from projects.models import DomainClaim, Project, Site, SiteVersion
from projects.publish.acceptance import Asked, check_asked, marks_counted, marks_posted
from projects.publish.checking import CheckUnfinished, site_check_bounded
from projects.publish.domains import domain_check_due, site_domain_check, site_domain_set
from projects.publish.names import MAX_DOMAIN, name_suggested
from projects.publish.notes import VersionNote, version_notes
from projects.publish.selectors import (
    ClaimShown,
    site_changes,
    site_claim_shown,
    site_files_for_check,
    site_of,
    site_versions,
)
from projects.publish.services import (
    PublishRefused,
    has_own_host,
    site_make_public,
    site_protect,
    site_publish,
    site_unpublish,
    site_version_make_live,
    version_export_zip,
)
from projects.web.sites import (
    domain_url,
    origin_host,
    published_preview_url,
    site_url,
    sites_origin,
)

_VERSIONS_SHOWN = 20


@require_GET
def publish_panel(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    # Anyone it is shared with sees the site's settings; only the owner changes them.
    access = access_for(request, project_id, "view")
    return _panel(request, access.project, may_publish=access.allows("publish"))


@require_POST
def publish(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Check the site, and publish it if the check found nothing or the person
    read what it found and chose to publish anyway."""
    project = project_for(request, project_id, "publish")
    name = request.POST.get("name", "")
    accepted: dict[str, int] | None = None
    known = 0
    if request.POST.get("anyway"):
        # What the dialog showed, accepted; after a check that did not finish, nothing new.
        if request.POST.get("checked"):
            accepted = marks_posted(request.POST.getlist("accepted"))
    else:
        check = site_check_bounded(site_files_for_check(project))
        if isinstance(check, CheckUnfinished):
            return _panel(request, project, unfinished=check.message, name=name)
        site = site_of(project)
        asked = check_asked(check, site.accepted_findings if site is not None else {})
        if not asked.clean:
            return _panel(request, project, asked=asked, name=name)
        accepted, known = marks_counted(asked.marks), asked.known
    published = site_publish(
        project=project, user=current_user(request), name=name, accepted=accepted
    )
    if isinstance(published, PublishRefused):
        return _panel(request, project, error=published.message, name=name)
    said = f"Version {published.number} is live."
    if known:
        said += (
            f" {known} finding{pluralize(known)} of the check you published anyway before "
            f"{pluralize(known, 'is,are')} unchanged, so you were not asked again."
        )
    return _panel(request, project, said=said)


@require_POST
def unpublish(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "publish")
    site = _site(project)
    site_unpublish(site=site, by=current_user(request))
    return _panel(request, project, said="Taken offline: the address now says so.")


@require_POST
def password(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Keep the site behind a password (a new one ends every visitor's pass), or
    make it public again."""
    project = project_for(request, project_id, "publish")
    site = _site(project)
    if request.POST.get("public"):
        site_make_public(site=site)
        return _panel(request, project, said="Anyone with the address can see the site now.")
    refused = site_protect(site=site, password=request.POST.get("password", ""))
    if refused:
        return _panel(request, project, error=refused.message)
    return _panel(request, project, said="Visitors now need the password.")


@require_POST
def domain(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Claim a domain for the site (its record is looked for at once), or drop it."""
    project = project_for(request, project_id, "publish")
    site = _site(project)
    typed = request.POST.get("domain", "")
    refused = site_domain_set(site=site, domain=typed)
    if refused:
        return _panel(request, project, error=refused.message, domain=typed)
    shown = site_claim_shown(site)
    if shown is None:
        return _panel(request, project, said="Its own domain is removed.")
    if shown.serving:
        return _panel(request, project, said=f"Proven: the site answers at {site.domain} too.")
    said = (
        f"Saved. Add the records below at the DNS host of {shown.claim.domain}: the site "
        "answers there once the TXT record is seen."
    )
    return _panel(request, project, said=said)


@require_POST
def domain_check(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Check now: look for the domain's TXT record."""
    project = project_for(request, project_id, "publish")
    site = _site(project)
    asked = timezone.now()
    claim = site_domain_check(site=site)
    if claim is None:
        return _panel(request, project, error="This site claims no domain: save one first.")
    fresh = claim.checked_at is not None and claim.checked_at >= asked
    return _panel(request, project, said=_check_said(claim, fresh=fresh))


def _check_said(claim: DomainClaim, *, fresh: bool) -> str:
    if not fresh:
        return f"Checked a moment ago: {claim.said} Check again in a few seconds."
    if claim.state == DomainClaim.State.PROVEN:
        return f"Proven: the record is in place, and the site answers at {claim.domain}."
    return f"Checked: {claim.said}"


@require_GET
def domain_state(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """How the claim goes, for the dialog while it is open (asked every few
    seconds with what it shows, `seen`): a check is made here when one is due,
    for someone who may publish (a check is a DNS look-up we make: anyone the
    project is shared with only reads the state, the sweep checking in time);
    204 when nothing changed."""
    access = access_for(request, project_id, "view")
    project = access.project
    site = _site(project)
    shown = site_claim_shown(site)
    checks = access.allows("publish")
    if (
        checks
        and shown is not None
        and shown.checking
        and domain_check_due(domain=shown.claim.domain)
    ):
        site.refresh_from_db(fields=["domain"])
        shown = site_claim_shown(site)
    seen = request.GET.get("seen", "")
    if shown is None:
        return HttpResponse(status=286)  # htmx: stop asking (dropped in another tab)
    if shown.stamp == seen:
        return HttpResponse(status=204)
    context = _proof_context(request, project, site, shown)
    if seen.split(":")[0] != shown.claim.state:  # read out once, not every check
        domain = shown.claim.domain
        context["news"] = (
            f"Proven: the site answers at {domain}." if shown.serving else shown.claim.said
        )
    return render(request, "projects/partials/domain_proof.html", context)


def _proof_context(
    request: HttpRequest, project: Project, site: Site, shown: ClaimShown | None
) -> dict[str, Any]:
    return {
        "project": project,
        "proof": shown,
        "domain_address": domain_url(request, site.domain) if site.domain else "",
        "sites_host": origin_host(sites_origin(request)),
    }


@require_POST
def version_live(request: HttpRequest, project_id: uuid.UUID, number: int) -> HttpResponse:
    project = project_for(request, project_id, "publish")
    site = _site(project)
    refused = site_version_make_live(
        site=site, version=_version(site, number), by=current_user(request)
    )
    if refused:
        return _panel(request, project, error=refused.message)
    return _panel(request, project, said=f"Version {number} is live again.")


@require_GET
def version_zip(request: HttpRequest, project_id: uuid.UUID, number: int) -> HttpResponse:
    project = project_for(request, project_id, "view")
    site = _site(project)
    version = _version(site, number)
    response = HttpResponse(version_export_zip(version), content_type="application/zip")
    response["Content-Disposition"] = content_disposition_header(
        True, f"{site.name}-v{version.number}.zip"
    )
    return response


def _site(project: Project) -> Site:
    site = site_of(project)
    if site is None:
        raise Http404("This project has never been published.")
    return site


def _version(site: Site, number: int) -> SiteVersion:
    version = site.versions.filter(number=number).first()
    if version is None:
        raise Http404("No such version.")
    return version


def _versions(request: HttpRequest, project: Project, site: Site) -> list[tuple[VersionNote, str]]:
    """The newest versions, each with what it holds and the address of its preview."""
    shown = version_notes(site, list(site_versions(site)[:_VERSIONS_SHOWN]))
    return [
        (
            note,
            published_preview_url(
                request, project.preview_token, project_id=project.pk, number=note.version.number
            ),
        )
        for note in shown
    ]


def _name_around(request: HttpRequest) -> dict[str, str]:
    """What the first publish's form shows before and after the name it asks for."""
    origin = sites_origin(request)
    if settings.BUILTIT_SITES_SUBDOMAINS:
        scheme, host = origin.split("://", 1)
        return {"name_before": f"{scheme}://", "name_after": f".{host}/"}
    return {"name_before": f"{origin}/s/", "name_after": "/"}


def _panel(
    request: HttpRequest,
    project: Project,
    *,
    asked: Asked | None = None,
    unfinished: str = "",
    name: str = "",
    error: str = "",
    said: str = "",
    domain: str = "",
    may_publish: bool = True,
) -> HttpResponse:
    site = site_of(project)
    shown = site_claim_shown(site) if site is not None else None
    context = {
        **(_proof_context(request, project, site, shown) if site is not None else {}),
        "domain": domain or (shown.claim.domain if shown is not None else ""),
        "max_domain": MAX_DOMAIN,
        "own_host": site is not None and has_own_host(site),
        "sites_host": origin_host(sites_origin(request)),
        **_name_around(request),
        "project": project,
        "site": site,
        "address": site_url(request, site.name) if site is not None else "",
        "changes": site_changes(site) if site is not None else None,
        "versions": _versions(request, project, site) if site is not None else [],
        "name": name or (site.name if site is not None else name_suggested(project.name)),
        "check": asked.check if asked is not None else None,
        "asked": asked,
        "unfinished": unfinished,
        "error": error,
        "said": said,
        "may_publish": may_publish,
    }
    return render(request, "projects/partials/publish.html", context)
