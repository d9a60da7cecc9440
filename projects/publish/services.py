"""Publishing a project's site: a frozen version of its files made live at the
address its owner chose, an earlier version made live again, the address
taken offline. A version names the exact texts of its files in the project's
history store (RevisionBlob), so it costs no storage that history does not
already count, and later edits never reach it."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.db.models.signals import post_delete
from django.utils import timezone

from common.refusals import Refusal
from projects.activity import Kind, activity_add
from projects.files.blobs import blob_for, text_digest
from projects.files.exported import file_bytes, zip_entry
from projects.files.instructions import is_instructions
from projects.locks import lock_current
from projects.models import (
    HeldSiteName,
    Project,
    ProjectActivity,
    ProjectFile,
    RevisionBlob,
    Site,
    SiteFile,
    SiteVersion,
)
from projects.publish.names import name_problem
from projects.publish.passwords import password_hashed, password_problem

MAX_VERSIONS = 50  # kept per site, the newest


@dataclass(frozen=True)
class PublishRefused(Refusal):
    """A site not published, and why."""


def site_publish(
    *,
    project: Project,
    user: User | None,
    name: str | None = None,
    accepted: Mapping[str, int] | None = None,
) -> SiteVersion | PublishRefused:
    """A new version of the project's site from its files as they are now, made
    live. The first publish names the site (`name`); later ones keep it.
    `accepted`: the check's findings published with it, by mark
    (projects.publish.acceptance), kept for the next Update; None keeps
    what was kept (the check did not run)."""
    if lock_current(project) is not None:
        # Its files are half-way through a change: not what anyone means to ship.
        return PublishRefused(
            "The assistant is working on this project right now: publish when it has "
            "finished (or stop the turn first)."
        )
    # The owner's instructions to the assistant (/AGENTS.md) are not part of the site.
    files = [
        record
        for record in ProjectFile.objects.filter(project=project).order_by("path")
        if not is_instructions(record.path)
    ]
    if not files:
        return PublishRefused("This project has no files yet: there is nothing to publish.")
    try:
        with transaction.atomic():
            site = _site_for_publish(project, name)
            if isinstance(site, PublishRefused):
                return site
            if accepted is not None:
                site.accepted_findings = dict(accepted)
                site.save(update_fields=["accepted_findings"])
            version = _version_make(site, files, user)
            _said(site, user, Kind.PUBLISHED, f"version {version.number}")
            return version
    except IntegrityError:  # another publish took the name (or the number) meanwhile
        return PublishRefused("That name was just taken: choose another.")


def _site_for_publish(project: Project, name: str | None) -> Site | PublishRefused:
    site = Site.objects.select_for_update().filter(project=project).first()
    if site is not None:
        return taken_down_error(site) or site
    wanted = (name or "").strip().lower()
    problem = name_problem(wanted)
    if problem:
        return PublishRefused(problem)
    if (
        Site.objects.filter(name=wanted).exists()
        or HeldSiteName.objects.filter(name=wanted).exists()
    ):
        return PublishRefused(f"“{wanted}” is taken: choose another name.")
    return Site.objects.create(project=project, name=wanted)


def _version_make(site: Site, files: list[ProjectFile], user: User | None) -> SiteVersion:
    project = site.project
    digests = {record.path: text_digest(record.content) for record in files}
    known = {
        blob.digest: blob
        for blob in RevisionBlob.objects.filter(project=project, digest__in=digests.values())
    }
    last = site.versions.aggregate(last=Max("number"))["last"] or 0
    version = SiteVersion.objects.create(
        site=site,
        number=last + 1,
        published_by=user,
        file_count=len(files),
        size=sum(record.size for record in files),
    )
    rows = []
    for record in files:
        blob = known.get(digests[record.path]) or blob_for(project, record.content)
        assert blob is not None  # a text, never "no file"
        rows.append(SiteFile(version=version, path=record.path, blob=blob))
    SiteFile.objects.bulk_create(rows)
    _make_live(site, version)
    # The oldest go: a script publishing in a loop makes rows without end.
    # Their files stay in history (and in any version kept).
    old = site.versions.order_by("-number").values_list("pk", flat=True)[MAX_VERSIONS:]
    SiteVersion.objects.filter(pk__in=list(old)).delete()
    return version


@transaction.atomic
def site_version_make_live(
    *, site: Site, version: SiteVersion, by: User | None = None
) -> PublishRefused | None:
    """Serve `version` again (a rollback, or a site taken offline put back)."""
    if version.site_id != site.pk:
        raise ValueError("the version is another site's")
    refused = taken_down_error(site)
    if refused:
        return refused
    _make_live(site, version)
    _said(site, by, Kind.PUBLISHED, f"version {version.number} again")
    return None


def taken_down_error(site: Site) -> PublishRefused | None:
    """Staff took the site down: its owner cannot put it back."""
    if not site.taken_down:
        return None
    return PublishRefused(
        f"Staff took this site down: {site.taken_down} It stays down until they put it back."
    )


@transaction.atomic
def site_unpublish(*, site: Site, by: User | None = None) -> None:
    """Take the site offline: its address answers 410 and says so; its versions stay."""
    _make_live(site, None)
    _said(site, by, Kind.UNPUBLISHED)


def _said(site: Site, by: User | None, kind: ProjectActivity.Kind, detail: str = "") -> None:
    """The owner's activity list says who did it (None: the server, by a command)."""
    activity_add(project=site.project, actor=by, kind=kind, detail=detail)


def _make_live(site: Site, version: SiteVersion | None) -> None:
    site.live = version
    site.published_at = timezone.now()
    site.save(update_fields=["live", "published_at"])


def version_export_zip(version: SiteVersion) -> bytes:
    """The version's files as a ZIP, as they were published."""
    project = version.site.project
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for record in version.files.select_related("blob").order_by("path"):
            entry = zip_entry(record.path, version.created_at)
            archive.writestr(entry, file_bytes(project, record.blob.text))
    return buffer.getvalue()


def site_protect(*, site: Site, password: str) -> PublishRefused | None:
    """Keep the site behind `password`: visitors must give it (passes given for
    an earlier password stop working)."""
    problem = password_problem(password)
    if problem:
        return PublishRefused(problem)
    if not has_own_host(site):
        return PublishRefused(
            "A password needs the site on a host of its own, which this server does not "
            "give sites (BUILTIT_SITES_SUBDOMAINS is off): add a domain of yours first."
        )
    site.password = password_hashed(password)
    site.save(update_fields=["password"])
    return None


def site_make_public(*, site: Site) -> None:
    site.password = ""
    site.save(update_fields=["password"])


def has_own_host(site: Site) -> bool:
    """Whether the site is served on a host of its own (its name's, or its domain)."""
    return bool(settings.BUILTIT_SITES_SUBDOMAINS or site.domain)


def site_name_hold(*, site: Site) -> None:
    """A site staff took down is going (its project purged): keep its name from
    everyone (HeldSiteName)."""
    if site.taken_down:
        HeldSiteName.objects.get_or_create(name=site.name, defaults={"reason": site.taken_down})


def _site_deleted(sender: Any, instance: Site, **kwargs: Any) -> None:
    site_name_hold(site=instance)


def connect() -> None:
    """Called once, when the app is ready: a site goes with its project's purge."""
    post_delete.connect(_site_deleted, sender=Site, dispatch_uid="held-site-names")
