"""`manage.py publish <project>`: publish a project's site from a script, as the
workspace's Publish dialog does: the check first (what it finds goes to
stderr, and stops the publish unless --anyway), then a new version live.
Findings published anyway before, and unchanged, stop nothing, as in the
dialog. `--make-live N` serves an earlier version again; `--unpublish` takes
the site offline. Exits 1, saying why, when nothing was done."""

from __future__ import annotations

import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from projects.models import Project, Site
from projects.publish.acceptance import check_asked, marks_counted
from projects.publish.checking import CheckUnfinished, site_check_bounded
from projects.publish.selectors import site_files_for_check, site_of
from projects.publish.services import (
    PublishRefused,
    site_publish,
    site_unpublish,
    site_version_make_live,
)


class Command(BaseCommand):
    help = "Publish a project's site (its files as they are now), or change which version is live."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project", help="The project's id (its UUID, as in its address).")
        parser.add_argument("--name", help="The site's address, the first time it is published.")
        parser.add_argument(
            "--anyway", action="store_true", help="Publish even if the check finds something."
        )
        changes = parser.add_mutually_exclusive_group()
        changes.add_argument(
            "--make-live", type=int, metavar="N", help="Serve version N again instead."
        )
        changes.add_argument("--unpublish", action="store_true", help="Take the site offline.")

    def handle(self, *args: Any, **options: Any) -> None:
        project = _project(options["project"])
        if options["unpublish"]:
            site = _site(project)
            site_unpublish(site=site)
            self.stdout.write(f"{site.name}: taken offline.")
            return
        if options["make_live"] is not None:
            self._make_live(_site(project), options["make_live"])
            return
        accepted = self._checked(project, anyway=options["anyway"])
        published = site_publish(
            project=project, user=None, name=options["name"], accepted=accepted
        )
        if isinstance(published, PublishRefused):
            raise CommandError(published.message)
        self.stdout.write(f"{published.site.name}: version {published.number} is live.")

    def _checked(self, project: Project, *, anyway: bool) -> dict[str, int] | None:
        """The check, as the dialog asks it: what it finds that was not published
        anyway before goes to stderr, and stops the publish unless `anyway`.
        What the publish accepts; None when the check did not finish."""
        check = site_check_bounded(site_files_for_check(project))
        if isinstance(check, CheckUnfinished):
            if not anyway:
                raise CommandError(f"{check.message} Nothing was published (--anyway).")
            return None
        site = site_of(project)
        asked = check_asked(check, site.accepted_findings if site is not None else {})
        for heading, findings in asked.check.by_kind():
            self.stderr.write(heading + ":")
            for finding in findings:
                where = f"{finding.path}:{finding.line}" if finding.line else finding.path
                self.stderr.write(f"  {where}: {finding.text}")
        if asked.known:
            known = asked.known
            self.stderr.write(f"Not listed again: {known} published anyway before, unchanged.")
        if not asked.clean and not anyway:
            raise CommandError("The check found the above; nothing was published (--anyway).")
        return marks_counted(asked.marks)

    def _make_live(self, site: Site, number: int) -> None:
        version = site.versions.filter(number=number).first()
        if version is None:
            raise CommandError(f"{site.name} has no version {number}.")
        refused = site_version_make_live(site=site, version=version)
        if refused:
            raise CommandError(refused.message)
        self.stdout.write(f"{site.name}: version {number} is live again.")


def _project(raw: str) -> Project:
    try:
        project_id = uuid.UUID(raw)
    except ValueError:
        raise CommandError(f"{raw!r} is not a project id (a UUID).") from None
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        raise CommandError(f"No project {raw} (is it in the trash?).")
    return project


def _site(project: Project) -> Site:
    site = site_of(project)
    if site is None:
        raise CommandError(f"{project.name} has never been published.")
    return site
