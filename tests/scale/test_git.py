"""A project's Git repository served by two processes on one PostgreSQL: what
one process serves, the other serves the same, and pushes to both apply to
the same history (nothing of a repository lives on one process's disk)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User

from projects.models import Project, ProjectFile
from tests.gitcli import Git
from tests.projects.git.conftest import address, make_token, turn
from tests.scale.conftest import Servers

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_processes_serve_one_repository(
    servers: Servers, git: Git, project: Project, user: User, tmp_path: Path
) -> None:
    first, second = servers.start("A"), servers.start("B")
    token = make_token(user)
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    git("clone", address(first, project, token), "one")
    git("clone", address(second, project, token), "two")
    one, two = git.home / "one", git.home / "two"
    assert git("rev-parse", "HEAD", cwd=one) == git("rev-parse", "HEAD", cwd=two)
    # A push through A, pulled through B, then a push through B on top.
    (one / "index.html").write_text("<p>From A</p>\n")
    git("commit", "-am", "Through A", cwd=one)
    git("push", "origin", "main", cwd=one)
    assert "Fast-forward" in git("pull", "--ff-only", cwd=two)
    (two / "about.html").write_text("<p>From B</p>\n")
    git("add", "-A", cwd=two)
    git("commit", "-m", "Through B", cwd=two)
    git("push", "origin", "main", cwd=two)
    files = dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    assert files == {"/index.html": "<p>From A</p>\n", "/about.html": "<p>From B</p>\n"}
    # A turn after both, fetched from A, builds on B's push.
    turn(project, user, "A contact page", {"/contact.html": "<p>Write</p>\n"})
    assert "Fast-forward" in git("pull", "--ff-only", cwd=one)
    assert git("log", "--format=%s", cwd=one).splitlines() == [
        "A contact page",
        "Through B",
        "Through A",
        "A home page",
    ]
