"""A project kept in sync with a Git host (GitHub, GitLab, Codeberg…): its
remote (an HTTPS address and a token, sealed at rest), Push to remote, Pull
from remote, and a new project cloned from a Git URL.

A pull that fast-forwards is applied as a push is (projects.git.push): the
remote's files become the project's, refused whole if a rule breaks. One that
does not (both sides have commits the other lacks) is offered as a
replacement: a merge commit whose files are the remote's, so the project's
history is kept (restoring to before it takes it back) and the next push to
the remote fast-forwards there."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from dulwich.objects import Blob, Commit, ObjectID

from common.refusals import Refusal
from common.sealed import Sealer
from projects.files.binaries import storage_written
from projects.files.results import ErrorCode
from projects.git.identities import person_identity
from projects.git.push import ZERO, Command, files_apply, objects_keep, push_apply, said
from projects.git.pushed_tree import Binary, PushedFiles, pushed_files
from projects.git.receive import Incoming
from projects.git.remote_addresses import remote_url_problem
from projects.git.remote_client import (
    Fetched,
    Remote,
    RemoteFailed,
    descends,
    remote_fetch,
    remote_send,
)
from projects.git.repository import MAIN, Store, commit_record, repository_open
from projects.git.trees import TreeState
from projects.lifecycle import ProjectRefused, project_create
from projects.models import FileRevision, GitRemote, Project
from projects.services import Author
from projects.sweep import stored_files_delete

_SEALER = Sealer(salt=b"builtit.git-remote-token", info=b"fernet-key-v1")
MAX_TOKEN = 500
# Refusals about the project or its owner rather than one file: the import stops.
_WHOLE = frozenset({ErrorCode.STORAGE_FULL, ErrorCode.PROJECT_TOO_LARGE, ErrorCode.TOO_MANY_FILES})


@dataclass(frozen=True)
class RemoteRefused(Refusal):
    lines: tuple[str, ...] = ()  # each file refused, and why


@dataclass(frozen=True)
class PullDiverged:
    """The remote's main and the project's each have commits the other lacks."""


Pulled = Literal["up to date", "pulled", "replaced"]


def remote_save(
    *, project: Project, url: str, username: str, token: str
) -> GitRemote | RemoteRefused:
    url, username, token = url.strip(), username.strip(), token.strip()
    problem = remote_url_problem(url)
    if problem:
        return RemoteRefused(problem)
    if len(token) > MAX_TOKEN or len(username) > 100:
        return RemoteRefused("That token (or name) is too long to be one.")
    existing = GitRemote.objects.filter(project=project).first()
    # An empty token field keeps the token saved for the same address.
    kept = existing.token_sealed if existing and existing.url == url and not token else ""
    remote, _ = GitRemote.objects.update_or_create(
        project=project,
        defaults={
            "url": url,
            "username": username,
            "token_sealed": _SEALER.seal(token) if token else kept,
        },
    )
    return remote


def remote_delete(*, project: Project) -> bool:
    deleted, _ = GitRemote.objects.filter(project=project).delete()
    return deleted > 0


def remote_push(*, project: Project) -> str | RemoteRefused:
    """Move the remote's main to the project's; how it went, in words."""
    remote = _remote(project)
    if isinstance(remote, RemoteRefused):
        return remote
    opened = repository_open(project)
    tip = opened.refs.get(MAIN)
    if tip is None:
        return RemoteRefused("The project has no files yet: there is nothing to push.")
    try:
        remote_send(remote, opened.repository.store, tip)
    except RemoteFailed as error:
        return RemoteRefused(str(error))
    GitRemote.objects.filter(project=project).update(last_pushed_at=timezone.now())
    return f"Pushed to {remote.url}: its main is now the project's."


def remote_pull(
    *, project: Project, user: User, replace: bool = False
) -> Pulled | PullDiverged | RemoteRefused:
    """Bring the remote's main into the project: a fast-forward, or with
    `replace` the remote's files over the project's when they diverged."""
    remote = _remote(project)
    if isinstance(remote, RemoteRefused):
        return remote
    opened = repository_open(project)
    tip = opened.refs.get(MAIN)
    try:
        fetched = remote_fetch(remote, opened.repository.store, tip)
    except RemoteFailed as error:
        return RemoteRefused(str(error))
    if tip is not None and (
        fetched.tip == tip or descends(opened.repository.store, tip, fetched.tip)
    ):
        return "up to date"
    target = fetched.tip
    diverged = tip is not None and not descends(fetched.objects, target, tip)
    if diverged and not replace:
        return PullDiverged()
    if diverged:
        assert tip is not None
        target = _replacement(fetched, tip, user, remote.url)
    outcome = push_apply(
        project=project,
        user=user,
        opened=opened,
        commands=[Command(tip or ZERO, target, MAIN)],
        get=fetched.objects.find,
        received=fetched.objects.received(),
    )
    if outcome.statuses[0][1] != b"ok":
        return RemoteRefused("The remote's main could not be applied.", tuple(outcome.lines))
    GitRemote.objects.filter(project=project).update(last_pulled_at=timezone.now())
    return "replaced" if diverged else "pulled"


def _replacement(fetched: Fetched, tip: bytes, user: User, url: str) -> bytes:
    """A merge of the project's main and the remote's whose files are the remote's."""
    theirs = fetched.objects.find(fetched.tip)
    assert isinstance(theirs, Commit)
    merge = _commit(theirs.tree, [tip, fetched.tip], user, f"Replace the files with those of {url}")
    fetched.objects.keep(merge)
    return merge.id


def _commit(tree: bytes, parents: list[bytes], user: User, message: str) -> Commit:
    commit = Commit()
    commit.tree = ObjectID(tree)
    commit.parents = [ObjectID(parent) for parent in parents]
    commit.author = commit.committer = person_identity(user)
    commit.author_time = commit.commit_time = int(time.time())
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = (message + "\n").encode("utf-8")
    return commit


def _remote(project: Project) -> Remote | RemoteRefused:
    row = GitRemote.objects.filter(project=project).first()
    if row is None:
        return RemoteRefused("This project has no remote yet: add one first.")
    problem = remote_url_problem(row.url)
    if problem:
        return RemoteRefused(problem)
    token = _SEALER.unseal(row.token_sealed) if row.token_sealed else ""
    if token is None:
        return RemoteRefused("The saved token can no longer be read: enter it again.")
    return Remote(row.url, row.username, token)


# --- a new project from a Git URL ---------------------------------------------------


@dataclass(frozen=True)
class ImportedFromGit:
    project: Project
    skipped: tuple[str, ...]  # each file left out, and why


def project_import_git(
    *, owner: User, name: str, url: str, username: str = "", token: str = ""
) -> ImportedFromGit | RemoteRefused:
    """A new project holding the files of the repository's main (those the
    rules accept; the others named), with its history, and the repository as
    its remote."""
    url, token = url.strip(), token.strip()
    problem = remote_url_problem(url)
    if problem:
        return RemoteRefused(problem)
    try:
        fetched = remote_fetch(Remote(url, username.strip(), token), Store(), None)
    except RemoteFailed as error:
        return RemoteRefused(str(error))
    commit = fetched.objects.find(fetched.tip)
    if not isinstance(commit, Commit):
        return RemoteRefused("The repository's main is not a commit.")
    files = pushed_files(fetched.objects.find, commit.tree)
    if files.whole:
        return RemoteRefused(files.whole)
    with storage_written() as stored:
        created = _created(owner, name, fetched, files, url=url)
        if isinstance(created, RemoteRefused):
            stored_files_delete(stored)
            return created
    remote_save(project=created.project, url=url, username=username, token=token)
    return created


@transaction.atomic
def _created(
    owner: User, name: str, fetched: Fetched, files: PushedFiles, *, url: str
) -> ImportedFromGit | RemoteRefused:
    project = project_create(owner=owner, name=name)
    if isinstance(project, ProjectRefused):
        return RemoteRefused(project.message)
    refused = files_apply(project, Author.person(owner), files)
    whole = [error for error in refused if error.code in _WHOLE]
    skipped = (*files.problems, *(said(error) for error in refused))
    kept = dict(files.files)
    for error in refused:
        kept.pop(error.path or "", None)
    if whole or not kept:
        transaction.set_rollback(True)
        if whole:
            return RemoteRefused(whole[0].message)
        return RemoteRefused("Nothing was imported: no file of it can be used.", skipped[:10])
    main = fetched.objects.find(fetched.tip)
    assert isinstance(main, Commit)
    if skipped:
        # Its files are not all the project's: a commit on top says which are.
        tree = _tree_of(kept, fetched.objects)
        main = _commit(tree, [fetched.tip], owner, _left_out(url, skipped))
        fetched.objects.keep(main)
    full = objects_keep(project, fetched.objects.received())
    if full is not None:
        transaction.set_rollback(True)
        return RemoteRefused(full.message)
    newest = FileRevision.objects.filter(project=project).order_by("-pk")
    upto = newest.values_list("pk", flat=True).first() or 0
    commit_record(project.pk, main, sequence=1, upto=upto, pushed=True)
    return ImportedFromGit(project, skipped)


def _tree_of(files: dict[str, str | Binary], objects: Incoming) -> bytes:
    tree = TreeState()
    for path, content in files.items():
        data = content.data if isinstance(content, Binary) else content.encode("utf-8")
        tree.put(path, Blob.from_string(data).id)
    return tree.root(objects.keep)


def _left_out(url: str, skipped: tuple[str, ...]) -> str:
    lines = "\n".join(f"- {line}" for line in skipped[:50])
    return f"Import from {url}\n\nLeft out, as the project's rules refuse them:\n{lines}"
