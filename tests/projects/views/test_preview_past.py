"""The preview of the project as it was: /preview/<token>/@<revision>/
serves every file as it was right after a revision, /preview/<token>/@file-<revision>/
today's files with one as that revision left it; both by token alone, sandboxed
like the live preview, without the bridge, and nothing is written."""

from __future__ import annotations

import time
from unittest import mock

import pytest
from django.test import Client

from fakes.images import png
from projects.files.results import FileWrite
from projects.lifecycle import project_create, project_rotate_preview_token
from projects.models import FileRevision, Project, ProjectFile
from projects.services import (
    Author,
    file_create,
    file_delete,
    file_rename,
    file_update,
    file_upload,
)
from projects.web.past_seals import past_seal
from projects.web.sandbox import SANDBOX
from projects.web.sites import past_preview_url, version_preview_url

SECRET = "MALLORY-ONLY-SECRET-4242"

pytestmark = pytest.mark.django_db


def _write(project: Project, path: str, content: str) -> int:
    """Create or update `path`; the id of the revision it made."""
    author = Author.person(project.owner)
    if ProjectFile.objects.filter(project=project, path=path).exists():
        result = file_update(project=project, path=path, content=content, author=author)
    else:
        result = file_create(project=project, path=path, content=content, author=author)
    assert isinstance(result, FileWrite), result
    return _latest(project)


def _latest(project: Project) -> int:
    return (
        FileRevision.objects.filter(project=project).order_by("-pk").values_list("pk", flat=True)[0]
    )


def _at(project: Project, point: int, path: str = "") -> str:
    seal = past_seal(project_id=project.pk, kind="point", number=point)
    return f"/preview/{project.preview_token}/@{point}-{seal}/{path}"


def _version(project: Project, revision: int, path: str = "") -> str:
    seal = past_seal(project_id=project.pk, kind="file", number=revision)
    return f"/preview/{project.preview_token}/@file-{revision}-{seal}/{path}"


@pytest.fixture
def others_project(other_user) -> Project:
    result = project_create(owner=other_user, name="Mallory's site")
    assert isinstance(result, Project)
    _write(result, "/secret.html", f"<p>{SECRET}</p>")
    return result


@pytest.fixture
def history(project: Project) -> dict[str, int]:
    """Three moments of one site: a first page, a second look, a third."""
    return {
        "first": _write(project, "/index.html", "<h1>First</h1>"),
        "styled": _write(project, "/styles.css", "h1 { color: red; }"),
        "second": _write(project, "/index.html", "<h1>Second</h1>"),
        "third": _write(project, "/styles.css", "h1 { color: blue; }"),
    }


def test_a_point_shows_every_file_as_it_was_then(sites_client: Client, project, history) -> None:
    page = sites_client.get(_at(project, history["styled"]))
    assert page.status_code == 200
    assert "<h1>First</h1>" in page.content.decode()
    style = sites_client.get(_at(project, history["styled"], "styles.css"))
    assert style.content == b"h1 { color: red; }"
    assert style["Content-Type"].startswith("text/css")
    later = sites_client.get(_at(project, history["second"], "index.html"))
    assert "<h1>Second</h1>" in later.content.decode()


def test_nothing_is_written_and_the_live_preview_is_unchanged(
    sites_client: Client, project, history
) -> None:
    revisions = FileRevision.objects.filter(project=project).count()
    sites_client.get(_at(project, history["first"]))
    assert FileRevision.objects.filter(project=project).count() == revisions
    assert ProjectFile.objects.get(project=project, path="/index.html").content == "<h1>Second</h1>"
    live = sites_client.get(f"/preview/{project.preview_token}/")
    assert "<h1>Second</h1>" in live.content.decode()


def test_a_file_not_yet_made_then_is_not_found(sites_client: Client, project, history) -> None:
    assert sites_client.get(_at(project, history["first"], "styles.css")).status_code == 404
    before_all = sites_client.get(_at(project, history["first"] - 1))
    assert before_all.status_code == 404
    assert "no <code>index.html</code> then" in before_all.content.decode()


def test_renames_and_deletions_are_followed(sites_client: Client, project, history) -> None:
    author = Author.person(project.owner)
    assert isinstance(
        file_rename(project=project, path="/styles.css", new_path="/site.css", author=author),
        FileWrite,
    )
    renamed = _latest(project)
    assert isinstance(file_delete(project=project, path="/site.css", author=author), FileWrite)
    assert sites_client.get(_at(project, renamed, "site.css")).content == b"h1 { color: blue; }"
    assert sites_client.get(_at(project, renamed, "styles.css")).status_code == 404
    assert sites_client.get(_at(project, _latest(project), "site.css")).status_code == 404


def test_a_past_page_is_sandboxed_without_the_bridge(
    sites_client: Client, project, history
) -> None:
    page = sites_client.get(_at(project, history["first"]), headers={"Sec-Fetch-Dest": "iframe"})
    csp = page["Content-Security-Policy"]
    assert csp.startswith(f"sandbox {SANDBOX};")
    assert "allow-same-origin" not in csp
    assert "frame-ancestors" in csp
    assert page["Cache-Control"] == "no-store"
    body = page.content.decode()
    assert "builtitPreview" not in body, "the past reports nothing to the workspace"
    assert "Dialogs are blocked in the preview" in body


def test_another_projects_revision_shows_nothing_of_it(
    sites_client: Client, project, history, others_project
) -> None:
    theirs = _latest(others_project)
    mine = sites_client.get(_at(project, theirs))
    assert SECRET not in mine.content.decode()
    assert "<h1>Second</h1>" in mine.content.decode(), "this project's files at that moment"
    assert sites_client.get(_version(project, theirs)).status_code == 404
    assert SECRET not in sites_client.get(_version(project, theirs, "secret.html")).content.decode()


def test_an_unknown_or_replaced_token_shows_nothing(sites_client: Client, project, history) -> None:
    assert sites_client.get(f"/preview/nope/@{history['first']}/").status_code == 404
    old = project.preview_token
    project_rotate_preview_token(project=project)
    assert sites_client.get(f"/preview/{old}/@{history['first']}/").status_code == 410


def test_a_file_version_is_shown_with_todays_other_files(
    sites_client: Client, project, history
) -> None:
    old_style = _version(project, history["styled"], "styles.css")
    assert sites_client.get(old_style).content == b"h1 { color: red; }"
    page = sites_client.get(_version(project, history["styled"]))
    assert "<h1>Second</h1>" in page.content.decode(), "today's page"
    assert "builtitPreview" not in page.content.decode()
    old_page = sites_client.get(_version(project, history["first"]))
    assert "<h1>First</h1>" in old_page.content.decode()


def test_a_deleted_files_version_shows_it_as_it_was_before(
    sites_client: Client, project, history
) -> None:
    author = Author.person(project.owner)
    assert isinstance(file_delete(project=project, path="/styles.css", author=author), FileWrite)
    deleted = _latest(project)
    shown = sites_client.get(_version(project, deleted, "styles.css"))
    assert shown.content == b"h1 { color: blue; }"


def test_a_picture_of_the_past_is_served_as_its_bytes(sites_client: Client, project) -> None:
    data = png()
    author = Author.person(project.owner)
    assert isinstance(
        file_upload(project=project, path="/logo.png", data=data, author=author), FileWrite
    )
    point = _latest(project)
    assert isinstance(file_delete(project=project, path="/logo.png", author=author), FileWrite)
    shown = sites_client.get(_at(project, point, "logo.png"))
    assert shown.status_code == 200
    assert shown["Content-Type"] == "image/png"
    assert shown.content == data


def test_the_addresses_are_on_the_sites_origin_and_sealed(rf, project) -> None:
    request = rf.get("/", HTTP_HOST="testserver")
    token = project.preview_token
    assert past_preview_url(request, token, project_id=project.pk, point=7) == (
        "http://sites.testserver" + _at(project, 7)
    )
    page = version_preview_url(request, token, project_id=project.pk, revision=8, page="about.html")
    assert page == "http://sites.testserver" + _version(project, 8, "about.html")


def test_the_shared_token_alone_does_not_open_the_past(sites_client, project) -> None:
    """A preview link is made to be shared: it shows the site as it is, never a
    file written once and deleted (a review walked @1, @2, … for one)."""
    _write(project, "/notes.html", f"<p>{SECRET}</p>")
    point = _latest(project)
    assert isinstance(
        file_delete(project=project, path="/notes.html", author=Author.person(project.owner)),
        FileWrite,
    )
    assert SECRET in sites_client.get(_at(project, point, "notes.html")).content.decode()
    token = project.preview_token
    for address in (
        f"/preview/{token}/@{point}/notes.html",  # no seal
        _at(project, point, "notes.html").replace(
            f"@{point}-", f"@{point - 1}-"
        ),  # another point's
        f"/preview/{token}/@file-{point}-" + _at(project, point).split("-", 1)[1],  # kind swapped
    ):
        answer = sites_client.get(address)
        assert answer.status_code == 404, address
        assert SECRET not in answer.content.decode()


def test_a_seal_lapses(sites_client, project) -> None:
    _write(project, "/index.html", "<p>Then</p>")
    point = _latest(project)
    assert sites_client.get(_at(project, point)).status_code == 200
    fresh = _at(project, point)
    with mock.patch("django.core.signing.time.time", return_value=time.time() + 7 * 3600):
        assert sites_client.get(fresh).status_code == 404
