"""The owner's activity list (projects.activity): publishing and taking the
site offline are lines in it, by whom; the latest 50, newest first."""

from __future__ import annotations

import pytest

from projects.activity import Kind, activity_add, activity_list
from projects.models import Project, ProjectActivity, SiteVersion
from projects.publish.services import site_publish, site_unpublish, site_version_make_live
from projects.services import Author, file_create

pytestmark = pytest.mark.django_db


def _lines(project: Project) -> list[str]:
    return [line.text for line in activity_list(project=project)]


def test_publishing_and_taking_offline_say_who_did_it(project: Project) -> None:
    file_create(
        project=project,
        path="/index.html",
        content="<p>Hi</p>",
        author=Author.person(project.owner),
    )
    version = site_publish(project=project, user=project.owner, name="ada-site")
    assert isinstance(version, SiteVersion)
    site_unpublish(site=version.site, by=project.owner)
    site_version_make_live(site=version.site, version=version)  # a command: no person
    assert _lines(project) == [
        "The server published version 1 again",
        "ada took the site offline",
        "ada published version 1",
    ]


def test_a_refused_publish_writes_no_line(project: Project) -> None:
    assert not isinstance(
        site_publish(project=project, user=project.owner, name="x-y"), SiteVersion
    )
    assert not ProjectActivity.objects.exists()


def test_the_owner_reads_the_latest_fifty_newest_first(project: Project) -> None:
    for number in range(55):
        activity_add(project=project, actor=project.owner, kind=Kind.PUBLISHED, detail=f"v{number}")
    lines = _lines(project)
    assert len(lines) == 50
    assert lines[0] == "ada published v54"
    assert lines[-1] == "ada published v5"
