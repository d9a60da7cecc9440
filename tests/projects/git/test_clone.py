"""Clone and pull a project with the real `git` command line, signed in with
an access token; the project's history as commits."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User

from projects.models import Project
from projects.services import Author, file_update
from tests.gitcli import Git
from tests.projects.git.conftest import address, make_token, turn
from tests.servers import ServerProcess

pytestmark = pytest.mark.django_db(transaction=True)


def test_clone_has_every_turn_and_save_as_commits(
    git_server: ServerProcess, git: Git, project: Project, user: User, tmp_path: Path
) -> None:
    turn(project, user, "Make me a bakery site", {"/index.html": "<h1>Bakery</h1>\n"})
    file_update(
        project=project,
        path="/index.html",
        content="<h1>Our bakery</h1>\n",
        author=Author.person(user),
    )
    token = make_token(user)
    git("clone", address(git_server, project, token), "site")
    site = git.home / "site"
    assert (site / "index.html").read_text() == "<h1>Our bakery</h1>\n"
    log = git("log", "--format=%an|%cn|%s", cwd=site).splitlines()
    assert log == [
        "ada|ada|Save /index.html",
        "Built-It assistant|ada|Make me a bakery site",
    ]


def test_pull_after_a_turn_fast_forwards(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    token = make_token(user)
    git("clone", address(git_server, project, token), "site")
    site = git.home / "site"
    first = git("rev-parse", "HEAD", cwd=site).strip()
    turn(project, user, "Add an about page", {"/about.html": "<p>About</p>\n"})
    said = git("pull", "--ff-only", cwd=site)
    assert "Fast-forward" in said
    assert (site / "about.html").read_text() == "<p>About</p>\n"
    assert git("rev-parse", "HEAD~1", cwd=site).strip() == first
