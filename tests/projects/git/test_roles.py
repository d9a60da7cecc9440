"""Git by role, with the real `git` command line: anyone a project is shared
with clones and pulls it with their own token, an editor also pushes, a viewer's
push is refused in words Git prints, a stranger finds nothing; a token follows
the person's role at each request."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User

from projects.models import FileRevision, Membership, Project, ProjectFile
from tests.gitcli import Git
from tests.projects.git.conftest import address, make_token, turn
from tests.servers import ServerProcess

pytestmark = pytest.mark.django_db(transaction=True)


def _member(project: Project, name: str, role: str) -> User:
    person = User.objects.create_user(name, f"{name}@example.com", "pw-for-tests-1")
    Membership.objects.create(project=project, user=person, role=role, added_by=project.owner)
    return person


def _edited(git: Git, server: ServerProcess, project: Project, token: str, where: str) -> Path:
    git("clone", address(server, project, token), where)
    site = git.home / where
    (site / "index.html").write_text("<p>Home, edited</p>\n")
    git("commit", "-am", "Edit home", cwd=site)
    return site


def test_a_viewer_clones_but_cannot_push(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    viewer = _member(project, "vera", "viewer")
    site = _edited(git, git_server, project, make_token(viewer), "site")
    said = git.run("push", "origin", "main", cwd=site)
    assert said.returncode != 0
    assert "Viewers cannot change the project's files." in said.stderr
    assert ProjectFile.objects.get(project=project, path="/index.html").content == "<p>Home</p>\n"


def test_an_editor_pushes_as_themselves(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    editor = _member(project, "eddie", "editor")
    site = _edited(git, git_server, project, make_token(editor), "site")
    said = git.run("push", "origin", "main", cwd=site)
    assert said.returncode == 0, said.stderr
    saved = ProjectFile.objects.get(project=project, path="/index.html")
    assert saved.content == "<p>Home, edited</p>\n"
    newest = FileRevision.objects.filter(project=project).order_by("-pk").first()
    assert newest is not None
    assert newest.user_id == editor.pk


def test_a_stranger_finds_no_project(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    stranger = User.objects.create_user("sam", "sam@example.com", "pw-for-tests-1")
    said = git.run("clone", address(git_server, project, make_token(stranger)), "site")
    assert said.returncode != 0
    assert "There is no project at this address that your token opens." in said.stderr


def test_a_token_follows_the_role_at_each_request(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    editor = _member(project, "eddie", "editor")
    token = make_token(editor)
    site = _edited(git, git_server, project, token, "site")
    Membership.objects.filter(user=editor).update(role="viewer")
    refused = git.run("push", "origin", "main", cwd=site)
    assert refused.returncode != 0
    assert "Viewers cannot change the project's files." in refused.stderr
    Membership.objects.filter(user=editor).delete()
    gone = git.run("pull", cwd=site)
    assert gone.returncode != 0
    assert "There is no project at this address that your token opens." in gone.stderr
