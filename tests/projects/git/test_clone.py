"""Clone and pull a project with the real `git` command line, signed in with
an access token; the project's history as commits."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User

from chat.models import Conversation
from projects.history.undo import project_restore
from projects.locks import lock_acquire, lock_release
from projects.models import FileRevision, Project, ProjectLock, Reversal
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


def test_a_restore_is_one_commit_saying_what_it_did(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    point = FileRevision.objects.filter(project=project).order_by("-pk").first()
    assert point is not None
    turn(project, user, "Two more pages", {"/a.html": "<p>A</p>\n", "/b.html": "<p>B</p>\n"})
    restored = project_restore(
        project=project, point=point.pk, user=user, summary="Restored to before Two more pages"
    )
    assert isinstance(restored, Reversal)
    git("clone", address(git_server, project, make_token(user)), "site")
    site = git.home / "site"
    assert git("log", "--format=%s", cwd=site).splitlines() == [
        "Restored to before Two more pages",
        "Two more pages",
        "A home page",
    ]
    assert sorted(path.name for path in site.iterdir() if path.name != ".git") == ["index.html"]


def test_a_turn_still_running_is_not_a_commit_yet(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    lock = lock_acquire(project=project, purpose="assistant", details={}, ttl=600)
    assert isinstance(lock, ProjectLock)
    turn(project, user, "An about page", {"/about.html": "<p>About</p>\n"})
    git("clone", address(git_server, project, make_token(user)), "site")
    site = git.home / "site"
    assert git("log", "--format=%s", cwd=site).splitlines() == ["A home page"]
    lock_release(lock)
    assert "Fast-forward" in git("pull", "--ff-only", cwd=site)
    assert git("log", "-1", "--format=%s", cwd=site).strip() == "An about page"


def test_commit_ids_do_not_change_when_the_chat_is_deleted(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    token = make_token(user)
    git("clone", address(git_server, project, token), "site")
    before = git("rev-parse", "HEAD", cwd=git.home / "site")
    Conversation.objects.filter(project=project).delete()
    git("clone", address(git_server, project, token), "again")
    assert git("rev-parse", "HEAD", cwd=git.home / "again") == before


def test_a_visual_edit_is_a_commit_named_by_its_note(
    git_server: ServerProcess, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<h1>Bakery</h1>\n"})
    file_update(
        project=project,
        path="/index.html",
        content="<h1 hidden>Bakery</h1>\n",
        author=Author.person_noting(user, "Edited in the preview: hid <h1>"),
    )
    git("clone", address(git_server, project, make_token(user)), "site")
    log = git("log", "--format=%an|%s", cwd=git.home / "site").splitlines()
    assert log == ["ada|Edited in the preview: hid <h1>", "Built-It assistant|A home page"]
