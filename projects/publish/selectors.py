"""What the workspace shows of a project's published site."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import QuerySet
from django.utils import timezone

from projects.files.binaries import is_marker
from projects.files.blobs import text_digest
from projects.files.instructions import is_instructions
from projects.models import DomainClaim, Project, ProjectFile, Site, SiteFile, SiteVersion
from projects.publish.domain_proof import record_name, record_value


@dataclass(frozen=True)
class Changes:
    """How the project's files differ from the live version's."""

    changed: int
    added: int
    removed: int

    @property
    def total(self) -> int:
        return self.changed + self.added + self.removed


@dataclass(frozen=True)
class ClaimShown:
    """A site's claim to a domain, as the Publish dialog shows it."""

    claim: DomainClaim
    record_name: str  # the TXT record to add
    record_value: str
    serving: bool  # the site answers at the domain (proven)
    checking: bool  # the server looks again by itself

    @property
    def next_in(self) -> timedelta:
        """How long until the server looks again by itself (none: now)."""
        due = self.claim.next_check_at
        return max(due - timezone.now(), timedelta(0)) if due is not None else timedelta(0)

    @property
    def stamp(self) -> str:
        """Changes whenever what is shown does (the dialog asks with it)."""
        checked = self.claim.checked_at.timestamp() if self.claim.checked_at else 0
        return f"{self.claim.state}:{checked:.6f}"


def site_claim_shown(site: Site) -> ClaimShown | None:
    claim = DomainClaim.objects.filter(site=site).first()
    if claim is None:
        return None
    return ClaimShown(
        claim=claim,
        record_name=record_name(claim.domain),
        record_value=record_value(claim.token),
        serving=site.domain == claim.domain,
        checking=claim.next_check_at is not None,
    )


def site_of(project: Project) -> Site | None:
    return Site.objects.filter(project=project).select_related("live").first()


def site_versions(site: Site) -> QuerySet[SiteVersion]:
    return site.versions.select_related("published_by").order_by("-number")


def site_changes(site: Site) -> Changes | None:
    """What changed since the live version; None when nothing is live."""
    if site.live_id is None:
        return None
    live = dict(
        SiteFile.objects.filter(version_id=site.live_id).values_list("path", "blob__digest")
    )
    now = {
        path: text_digest(content)
        for path, content in ProjectFile.objects.filter(project_id=site.project_id).values_list(
            "path", "content"
        )
        if not is_instructions(path)  # never published: no change to it is unpublished
    }
    return _compared(live, now)


def _compared(live: Mapping[str, str], now: Mapping[str, str]) -> Changes:
    changed = sum(1 for path, digest in now.items() if path in live and live[path] != digest)
    return Changes(changed, len(now.keys() - live.keys()), len(live.keys() - now.keys()))


def site_files_for_check(project: Project) -> dict[str, str | None]:
    """The project's files as the pre-publish check reads them: a text file's
    text, None for a binary file. The owner's instructions to the assistant
    are left out, as a publish leaves them out: a link to them is then found
    broken, as it would be on the published site."""
    return {
        path: None if is_marker(content) else content
        for path, content in ProjectFile.objects.filter(project=project).values_list(
            "path", "content"
        )
        if not is_instructions(path)
    }
