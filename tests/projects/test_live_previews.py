"""What the preview keeps between requests (projects.live_previews): nothing it
serves is ever older than the project, nothing of one project reaches
another's preview, and what it keeps is bounded."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.test import Client

from fakes.images import png
from projects import live_previews
from projects.files.results import FileWrite
from projects.lifecycle import (
    project_create,
    project_purge,
    project_restore,
    project_rotate_preview_token,
    project_trash,
)
from projects.models import Project, Site
from projects.services import (
    Author,
    file_create,
    file_delete,
    file_rename,
    file_update,
    file_upload,
)


def _url(project: Project, path: str = "") -> str:
    return f"/preview/{project.preview_token}/{path}"


def _write(project: Project, path: str, content: str) -> None:
    written = file_create(
        project=project, path=path, content=content, author=Author.person(project.owner)
    )
    assert isinstance(written, FileWrite), written


@pytest.fixture
def seen(sites_client: Client, starter_project: Project) -> Project:
    """The starter project, its page and stylesheet asked for once: kept."""
    assert sites_client.get(_url(starter_project)).status_code == 200
    assert sites_client.get(_url(starter_project, "styles.css")).status_code == 200
    return starter_project


def test_a_page_asked_for_again_is_answered_without_the_database(
    sites_client: Client, seen: Project, django_assert_num_queries
) -> None:
    with django_assert_num_queries(0):
        again = sites_client.get(_url(seen, "styles.css"))
    assert again.status_code == 200
    assert b"--accent" in again.content


def test_a_file_saved_after_it_was_served_is_served_new(
    sites_client: Client, seen: Project, user: User
) -> None:
    file_update(project=seen, path="/styles.css", content="p{}", author=Author.person(user))
    assert sites_client.get(_url(seen, "styles.css")).content == b"p{}"


def test_a_file_made_where_none_was_is_served(sites_client: Client, seen: Project) -> None:
    assert sites_client.get(_url(seen, "new.css")).status_code == 404
    assert sites_client.get(_url(seen, "shop")).status_code == 404
    _write(seen, "/new.css", "b{}")
    _write(seen, "/shop/index.html", "<p>shop</p>")
    assert sites_client.get(_url(seen, "new.css")).content == b"b{}"
    assert sites_client.get(_url(seen, "shop")).status_code == 302


def test_a_deleted_or_renamed_file_is_404(sites_client: Client, seen: Project, user: User) -> None:
    file_delete(project=seen, path="/styles.css", author=Author.person(user))
    file_rename(project=seen, path="/index.html", new_path="/home.html", author=Author.person(user))
    assert sites_client.get(_url(seen, "styles.css")).status_code == 404
    assert sites_client.get(_url(seen)).status_code == 404
    assert sites_client.get(_url(seen, "home.html")).status_code == 200


def test_a_replaced_picture_is_served_new(
    sites_client: Client, project: Project, user: User
) -> None:
    first, second = png(8, 8), png(9, 9)
    assert isinstance(
        file_upload(project=project, path="/a.png", data=first, author=Author.person(user)),
        FileWrite,
    )
    assert sites_client.get(_url(project, "a.png")).content == first
    assert isinstance(
        file_upload(project=project, path="/a.png", data=second, author=Author.person(user)),
        FileWrite,
    )
    assert sites_client.get(_url(project, "a.png")).content == second


def test_a_replaced_token_stops_at_once(sites_client: Client, seen: Project) -> None:
    old = seen.preview_token
    new = project_rotate_preview_token(project=seen)
    assert sites_client.get(f"/preview/{old}/styles.css").status_code == 410
    assert sites_client.get(f"/preview/{new}/styles.css").status_code == 200


def test_a_project_in_the_trash_stops_at_once_and_comes_back_with_it(
    sites_client: Client, seen: Project
) -> None:
    assert project_trash(project=seen) is None
    assert sites_client.get(_url(seen, "styles.css")).status_code == 404
    project_restore(project=Project.all_objects.get(pk=seen.pk))
    assert sites_client.get(_url(seen, "styles.css")).status_code == 200


def test_a_deleted_project_stops_at_once(sites_client: Client, seen: Project) -> None:
    assert project_purge(project=seen) is None
    assert sites_client.get(_url(seen, "styles.css")).status_code == 404
    assert sites_client.get(_url(seen)).status_code == 404


def test_a_site_taken_down_closes_its_preview_at_once(sites_client: Client, seen: Project) -> None:
    site = Site.objects.create(project=seen, name="bakery")
    assert sites_client.get(_url(seen, "styles.css")).status_code == 200
    site.taken_down = "It broke the rules."
    site.save(update_fields=["taken_down"])
    assert sites_client.get(_url(seen, "styles.css")).status_code == 410


def test_two_projects_never_see_each_others_files(
    sites_client: Client, other_user: User, seen: Project
) -> None:
    other = project_create(owner=other_user, name="Another", starter=True)
    assert isinstance(other, Project)
    file_update(
        project=other, path="/styles.css", content="other{}", author=Author.person(other_user)
    )
    for _ in range(2):  # the second time, both kept
        assert sites_client.get(_url(other, "styles.css")).content == b"other{}"
        assert b"--accent" in sites_client.get(_url(seen, "styles.css")).content
    file_update(
        project=seen, path="/styles.css", content="mine{}", author=Author.person(seen.owner)
    )
    assert sites_client.get(_url(other, "styles.css")).content == b"other{}"
    assert sites_client.get(_url(seen, "styles.css")).content == b"mine{}"


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Room for a few files and tokens, emptied before and after."""
    monkeypatch.setattr(live_previews._files, "count", 5)
    monkeypatch.setattr(live_previews._files, "limit", 40_000)
    monkeypatch.setattr(live_previews._tokens, "count", 3)
    for kept in (live_previews._files, live_previews._tokens):
        kept.clear()
    yield
    for kept in (live_previews._files, live_previews._tokens):
        kept.clear()


@pytest.mark.usefixtures("small")
def test_what_is_kept_is_bounded_in_count(sites_client: Client, project: Project) -> None:
    for number in range(12):
        _write(project, f"/page-{number}.html", "<p>hello</p>")
        assert sites_client.get(_url(project, f"page-{number}.html")).status_code == 200
        assert sites_client.get(_url(project, f"nothing-{number}.html")).status_code == 404
    assert len(live_previews._files) == 5
    for number in range(6):
        other = project_create(owner=project.owner, name=f"Site {number}")
        assert isinstance(other, Project)
        sites_client.get(_url(other))
    assert len(live_previews._tokens) == 3


@pytest.mark.usefixtures("small")
def test_what_is_kept_is_bounded_in_bytes(sites_client: Client, project: Project) -> None:
    for number in range(5):
        _write(project, f"/big-{number}.txt", "x" * 9_000)
        assert sites_client.get(_url(project, f"big-{number}.txt")).status_code == 200
    assert live_previews._files.total <= 40_000
    assert len(live_previews._files) == 4
    # Past a quarter of the room, a file is served and not kept at all.
    _write(project, "/huge.txt", "x" * 20_000)
    assert len(sites_client.get(_url(project, "huge.txt")).content) == 20_000
    assert len(live_previews._files) == 4


@pytest.mark.usefixtures("small")
def test_a_strangers_guesses_are_kept_nowhere(sites_client: Client, project: Project) -> None:
    for _ in range(20):
        assert sites_client.get(f"/preview/{secrets.token_urlsafe(24)}/").status_code == 404
    assert len(live_previews._tokens) == 0
    assert len(live_previews._files) == 0
