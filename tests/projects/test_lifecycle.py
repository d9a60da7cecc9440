"""Project lifecycle (projects.lifecycle): names, create blank or from the starter site,
rename, delete, and rotating the secret preview token."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from projects.lifecycle import (
    MAX_DESCRIPTION,
    MAX_NAME,
    ProjectRefused,
    clean_name,
    project_create,
    project_purge,
    project_rename,
    project_rotate_preview_token,
)
from projects.models import FileRevision, Project, ProjectFile
from projects.starter import STARTER_FILES

LONG_AGO = datetime(2001, 1, 1, tzinfo=UTC)


def created(**kwargs: object) -> Project:
    result = project_create(**kwargs)  # type: ignore[arg-type]
    assert isinstance(result, Project), result
    return result


def assert_nothing_stored() -> None:
    assert Project.objects.count() == 0
    assert ProjectFile.objects.count() == 0
    assert FileRevision.objects.count() == 0


# --- names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("My site", "My site"),
        ("  My   site \n", "My site"),
        ("a\tb\r\nc", "a b c"),
        ("Café ☕ 2024", "Café ☕ 2024"),
        ("x" * MAX_NAME, "x" * MAX_NAME),
        ("  " + "x" * MAX_NAME + "  ", "x" * MAX_NAME),
        (42, "42"),
    ],
)
def test_clean_name_collapses_whitespace(raw: object, name: str) -> None:
    assert clean_name(raw) == name


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("", "Give the project a name"),
        ("   \n\t", "Give the project a name"),
        (None, "Give the project a name"),
        ("x" * (MAX_NAME + 1), f"at most {MAX_NAME} characters"),
        ("a\x00b", "control characters"),
        ("a\x1bb", "control characters"),
        ("a\x08b", "control characters"),
    ],
)
def test_clean_name_refuses_with_a_reason(raw: object, problem: str) -> None:
    result = clean_name(raw)
    assert isinstance(result, ProjectRefused)
    assert problem in result.message


@pytest.mark.parametrize("raw", ["a\x7fb", "a\x9bb"])
def test_clean_name_refuses_del_and_c1_control_characters(raw: str) -> None:
    assert isinstance(clean_name(raw), ProjectRefused)


# --- create ------------------------------------------------------------------


def test_create_blank_project_has_no_files(user):
    project = created(owner=user, name="  Blank  ", description="  About it. \n")
    project.refresh_from_db()
    assert (project.owner, project.name, project.description) == (user, "Blank", "About it.")
    assert project.preview_token
    assert not ProjectFile.objects.filter(project=project).exists()
    assert not FileRevision.objects.filter(project=project).exists()


def test_create_from_the_starter_adds_the_starter_files(user):
    project = created(owner=user, name="Site", starter=True)
    stored = dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    assert stored == STARTER_FILES
    assert set(stored) == {"/index.html", "/styles.css", "/script.js", "/AGENTS.md"}


def test_create_with_instructions_adds_the_starters_agents_md_alone(user):
    project = created(owner=user, name="Site", instructions=True)
    stored = dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    assert stored == {"/AGENTS.md": STARTER_FILES["/AGENTS.md"]}


def test_starter_files_are_recorded_as_created_by_the_owner(user):
    project = created(owner=user, name="Site", starter=True)
    revisions = FileRevision.objects.filter(project=project)
    assert sorted(r.path for r in revisions) == sorted(STARTER_FILES)
    for revision in revisions:
        assert revision.action == FileRevision.Action.CREATE
        assert (revision.actor, revision.user) == (FileRevision.Actor.USER, user)
        assert revision.content_after == STARTER_FILES[revision.path]
        assert revision.version_after == 1


def test_every_project_gets_its_own_preview_token(user):
    first = created(owner=user, name="One")
    second = created(owner=user, name="Two")
    assert first.preview_token != second.preview_token
    assert len(first.preview_token) >= 32


@pytest.mark.parametrize("name", ["", "   ", "x" * (MAX_NAME + 1), "bad\x00name"])
def test_create_refuses_a_bad_name_and_stores_nothing(user, name):
    assert isinstance(project_create(owner=user, name=name, starter=True), ProjectRefused)
    assert_nothing_stored()


def test_create_accepts_the_longest_description(user):
    project = created(owner=user, name="Site", description="d" * MAX_DESCRIPTION)
    assert len(project.description) == MAX_DESCRIPTION


def test_create_refuses_an_overlong_description_and_stores_nothing(user):
    result = project_create(owner=user, name="Site", description="d" * (MAX_DESCRIPTION + 1))
    assert isinstance(result, ProjectRefused)
    assert f"at most {MAX_DESCRIPTION} characters" in result.message
    assert_nothing_stored()


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("BUILTIT_MAX_FILES", 2),
        ("BUILTIT_MAX_FILE_BYTES", 10),
        ("BUILTIT_MAX_PROJECT_BYTES", 100),
    ],
)
def test_starter_refused_by_small_limits_undoes_the_whole_project(user, settings, setting, value):
    setattr(settings, setting, value)
    result = project_create(owner=user, name="Site", starter=True)
    assert isinstance(result, ProjectRefused)
    assert "starter site" in result.message
    assert_nothing_stored()


def test_blank_project_is_still_created_under_small_limits(user, settings):
    settings.BUILTIT_MAX_FILES = 1
    created(owner=user, name="Site")
    assert Project.objects.count() == 1


# --- rename ------------------------------------------------------------------


def test_rename_changes_and_stores_the_cleaned_name(project):
    result = project_rename(project=project, name="  New   name ")
    assert result == project
    project.refresh_from_db()
    assert project.name == "New name"


def test_rename_bumps_updated_at(project):
    Project.objects.filter(pk=project.pk).update(updated_at=LONG_AGO)
    project.refresh_from_db()
    project_rename(project=project, name="Renamed")
    project.refresh_from_db()
    assert project.updated_at > LONG_AGO


@pytest.mark.parametrize("name", ["", "  ", "x" * (MAX_NAME + 1), "a\x01b"])
def test_rename_refuses_a_bad_name_and_keeps_the_old_one(project, name):
    assert isinstance(project_rename(project=project, name=name), ProjectRefused)
    project.refresh_from_db()
    assert project.name == "Empty site"


# --- delete ------------------------------------------------------------------


def test_purge_removes_the_project_its_files_and_its_history(starter_project, other_user):
    theirs = created(owner=other_user, name="Theirs", starter=True)
    assert project_purge(project=starter_project) is None
    assert not Project.all_objects.filter(pk=starter_project.pk).exists()
    assert not ProjectFile.objects.filter(project_id=starter_project.pk).exists()
    assert not FileRevision.objects.filter(project_id=starter_project.pk).exists()
    assert ProjectFile.objects.filter(project=theirs).count() == len(STARTER_FILES)
    assert FileRevision.objects.filter(project=theirs).count() == len(STARTER_FILES)


# --- preview token -------------------------------------------------------------


def test_rotating_the_preview_token_replaces_the_old_one(project, starter_project):
    old = project.preview_token
    untouched = starter_project.preview_token
    new = project_rotate_preview_token(project=project)
    assert new != old
    project.refresh_from_db()
    assert project.preview_token == new
    assert not Project.objects.filter(preview_token=old).exists()
    starter_project.refresh_from_db()
    assert starter_project.preview_token == untouched


def test_rotating_twice_gives_two_different_tokens(project):
    first = project_rotate_preview_token(project=project)
    second = project_rotate_preview_token(project=project)
    assert first != second
