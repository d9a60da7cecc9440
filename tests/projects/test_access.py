"""The one rule of who may do what to a project (projects.access): the owner
everything, an editor the work, a viewer only looking; a stranger finds
nothing there, a member refused is told why."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.test import RequestFactory

from projects.access import (
    ACTIONS,
    Action,
    RoleRefused,
    access_for,
    project_access,
    project_for_person,
    projects_visible_to,
)
from projects.lifecycle import project_trash
from projects.models import Membership, Project

pytestmark = pytest.mark.django_db

ALL: tuple[Action, ...] = (
    "view", "chat", "edit", "forms", "publish", "settings", "share", "delete", "hand_over",
)  # fmt: skip


def _member(project: Project, username: str, role: str) -> User:
    person = User.objects.create_user(username, f"{username}@example.com", "a long enough secret")
    Membership.objects.create(project=project, user=person, role=role, added_by=project.owner)
    return person


def test_each_role_may_do_what_the_issue_says() -> None:
    assert set(ACTIONS["owner"]) == set(ALL)
    assert set(ACTIONS["editor"]) == {"view", "chat", "edit", "forms"}
    assert set(ACTIONS["viewer"]) == {"view"}


def test_a_project_is_found_for_each_person_by_their_role(
    project: Project, other_user: User
) -> None:
    editor = _member(project, "erin", "editor")
    viewer = _member(project, "vera", "viewer")
    for action in ALL:
        assert project_for_person(user=project.owner, project_id=project.pk, action=action)
        found = project_for_person(user=editor, project_id=project.pk, action=action)
        assert (found is not None) == (action in ACTIONS["editor"]), action
        found = project_for_person(user=viewer, project_id=project.pk, action=action)
        assert (found is not None) == (action == "view"), action
        assert project_for_person(user=other_user, project_id=project.pk, action=action) is None
    assert project_access(editor, project.pk).role == "editor"  # type: ignore[union-attr]
    assert project_access(viewer, project.pk).role == "viewer"  # type: ignore[union-attr]


def test_a_stranger_gets_a_404_and_a_member_a_403_in_words(
    project: Project, other_user: User
) -> None:
    viewer = _member(project, "vera", "viewer")
    request = RequestFactory().get("/")
    request.user = other_user
    with pytest.raises(Http404):
        access_for(request, project.pk, "view")
    request.user = viewer
    assert access_for(request, project.pk, "view").project == project
    with pytest.raises(RoleRefused) as refused:
        access_for(request, project.pk, "edit")
    assert isinstance(refused.value, PermissionDenied)
    assert str(refused.value) == "Viewers cannot change the project's files."


def test_a_shared_project_in_the_trash_is_found_by_no_one(project: Project) -> None:
    editor = _member(project, "erin", "editor")
    assert list(projects_visible_to(editor)) == [project]
    assert project_trash(project=project) is None
    assert list(projects_visible_to(editor)) == []
    assert project_for_person(user=editor, project_id=project.pk, action="view") is None
