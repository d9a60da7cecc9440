"""The remote from the workspace's Clone panel, and New project from a Git URL
on the dashboard, as a person uses them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings

from projects.models import GitRemote, Project, ProjectFile
from tests.fakes.git_host import GitHost, git_host
from tests.gitcli import Git
from tests.projects.git.conftest import turn
from tests.projects.git.test_remotes import _host_commit

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def host(tmp_path: Path, settings: Settings) -> Iterator[GitHost]:
    settings.BUILTIT_GIT_PRIVATE_REMOTES = True
    root = tmp_path / "host"
    root.mkdir()
    with git_host(root) as running:
        yield running


def test_a_remote_saved_pushed_and_a_diverged_pull_offered(
    host: GitHost, git: Git, user_client: Client, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    url = host.repository("site.git")
    base = f"/projects/{project.pk}/git/remote/"
    user_client.post(base, {"url": url, "token": "secret-token", "username": ""})
    remote = GitRemote.objects.get(project=project)
    assert "secret-token" not in remote.token_sealed
    page = user_client.get(f"/projects/{project.pk}/").content.decode()
    assert "Push to remote" in page
    assert "secret-token" not in page
    pushed = user_client.post(base + "push/", follow=True).content.decode()
    assert "Pushed to" in pushed
    _host_commit(git, url, {"index.html": "<p>Theirs</p>\n"}, "Theirs")
    turn(project, user, "Ours", {"/ours.html": "<p>Ours</p>\n"})
    offered = user_client.post(base + "pull/")
    assert offered.status_code == 409
    assert "Replace the files with the remote" in offered.content.decode()
    user_client.post(base + "pull/", {"replace": "1"})
    files = dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    assert files == {"/index.html": "<p>Theirs</p>\n"}


def test_new_project_from_a_git_url_lists_what_was_left_out(
    host: GitHost, git: Git, user_client: Client, user: User
) -> None:
    url = host.repository("bakery.git")
    _host_commit(git, url, {"index.html": "<p>Bakery</p>\n", ".gitignore": "*.log\n"}, "First")
    answer = user_client.post("/projects/import-git/", {"url": url}, follow=True)
    page = answer.content.decode()
    project = Project.objects.get(owner=user)
    assert project.name == "bakery"
    assert "Left out 1 file the project&#x27;s rules refuse" in page
    assert ".gitignore: hidden names" in page


def test_a_git_url_that_is_not_public_is_refused_in_words(
    user_client: Client, settings: Settings
) -> None:
    settings.BUILTIT_GIT_PRIVATE_REMOTES = False
    answer = user_client.post(
        "/projects/import-git/", {"url": "https://127.0.0.1/x.git"}, follow=True
    )
    assert "127.0.0.1 is not a public address." in answer.content.decode()
    assert not Project.objects.exists()
