"""A project's remote: pushed to, pulled from, and a new project cloned from
a Git URL, against a Git host started by the test on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings as SettingsWrapper

from projects.git.remotes import (
    ImportedFromGit,
    PullDiverged,
    RemoteRefused,
    project_import_git,
    remote_pull,
    remote_push,
    remote_save,
)
from projects.git.repository import MAIN, repository_open
from projects.models import GitCommit, GitRemote, Project, ProjectFile
from tests.fakes.git_host import GitHost, git_host
from tests.gitcli import Git
from tests.projects.git.conftest import turn

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def host(tmp_path: Path, settings: SettingsWrapper) -> Iterator[GitHost]:
    settings.BUILTIT_GIT_PRIVATE_REMOTES = True
    root = tmp_path / "host"
    root.mkdir()
    with git_host(root) as running:
        yield running


def _files(project: Project) -> dict[str, str]:
    return dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))


def _main(project: Project) -> str:
    return repository_open(project).refs[MAIN].decode()


def _host_commit(git: Git, url: str, files: dict[str, str], message: str) -> str:
    """A commit pushed to the host by someone else, from a clone of their own."""
    work = git.home / f"elsewhere-{message.replace(' ', '-')}"
    git("clone", url, str(work))
    for name, content in files.items():
        (work / name).write_text(content)
    git("add", "-A", cwd=work)
    git("commit", "-m", message, cwd=work)
    git("push", "origin", "HEAD:main", cwd=work)
    return git("rev-parse", "HEAD", cwd=work).strip()


def test_push_to_the_remote_gives_it_the_projects_history(
    host: GitHost, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    url = host.repository("site.git")
    assert isinstance(remote_save(project=project, url=url, username="", token="t"), GitRemote)
    said = remote_push(project=project)
    assert isinstance(said, str), said
    git("clone", url, "copy")
    assert git("rev-parse", "HEAD", cwd=git.home / "copy").strip() == _main(project)
    assert (git.home / "copy" / "index.html").read_text() == "<p>Home</p>\n"


def test_pull_from_the_remote_fast_forwards_the_project(
    host: GitHost, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    url = host.repository("site.git")
    remote_save(project=project, url=url, username="", token="")
    remote_push(project=project)
    theirs = _host_commit(git, url, {"about.html": "<p>About</p>\n"}, "About from GitHub")
    assert remote_pull(project=project, user=user) == "pulled"
    assert _files(project)["/about.html"] == "<p>About</p>\n"
    assert _main(project) == theirs
    assert remote_pull(project=project, user=user) == "up to date"


def test_a_diverged_pull_is_offered_and_replaces_undoably(
    host: GitHost, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    url = host.repository("site.git")
    remote_save(project=project, url=url, username="", token="")
    remote_push(project=project)
    _host_commit(git, url, {"index.html": "<p>Theirs</p>\n"}, "Theirs")
    turn(project, user, "Ours", {"/ours.html": "<p>Ours</p>\n"})
    assert isinstance(remote_pull(project=project, user=user), PullDiverged)
    assert _files(project)["/index.html"] == "<p>Home</p>\n"  # nothing changed yet
    assert remote_pull(project=project, user=user, replace=True) == "replaced"
    assert _files(project) == {"/index.html": "<p>Theirs</p>\n"}
    # The project's history is whole (a restore can take it back), and the
    # remote now fast-forwards to the project's main.
    assert project.revisions.filter(path="/ours.html").count() == 2
    assert isinstance(remote_push(project=project), str)


def test_a_pull_that_breaks_a_rule_changes_nothing(
    host: GitHost, git: Git, project: Project, user: User
) -> None:
    turn(project, user, "A home page", {"/index.html": "<p>Home</p>\n"})
    url = host.repository("site.git")
    remote_save(project=project, url=url, username="", token="")
    remote_push(project=project)
    _host_commit(git, url, {".gitignore": "*.log\n", "index.html": "<p>New</p>\n"}, "Ignore")
    refused = remote_pull(project=project, user=user)
    assert isinstance(refused, RemoteRefused)
    assert any(line.startswith(".gitignore:") for line in refused.lines)
    assert _files(project) == {"/index.html": "<p>Home</p>\n"}


def test_remotes_must_be_https_on_public_addresses(
    project: Project, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_GIT_PRIVATE_REMOTES = False
    plain = remote_save(project=project, url="http://example.com/a.git", username="", token="")
    assert isinstance(plain, RemoteRefused)
    assert "HTTPS" in plain.message
    local = remote_save(project=project, url="https://127.0.0.1/a.git", username="", token="")
    assert isinstance(local, RemoteRefused)
    assert "not a public address" in local.message
    assert not GitRemote.objects.exists()


def test_a_new_project_from_a_git_url_keeps_what_the_rules_accept(
    host: GitHost, git: Git, user: User
) -> None:
    url = host.repository("bakery.git")
    _host_commit(
        git,
        url,
        {"index.html": "<p>Bakery</p>\n", ".gitignore": "*.log\n", "logo.png": "not a picture"},
        "First",
    )
    imported = project_import_git(owner=user, name="Bakery", url=url)
    assert isinstance(imported, ImportedFromGit), imported
    assert _files(imported.project) == {"/index.html": "<p>Bakery</p>\n"}
    assert len(imported.skipped) == 2
    assert imported.skipped[0].startswith(".gitignore: ")
    assert imported.skipped[1].startswith("logo.png ")
    assert GitCommit.objects.filter(project=imported.project).count() == 1
    assert GitRemote.objects.get(project=imported.project).url == url
