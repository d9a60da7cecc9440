"""A push: the branches and tags it moves, and `main` applied to the project's
files as a person's change.

`main` is the site, so a push to it must leave the project's history whole: it
must fast-forward (forced or not), and its newest commit's files replace the
project's through the file service, with every rule of a save or an upload, in
one transaction, as revisions by the person. One file refused refuses the
whole push: nothing of it is kept, and each file is named with why. Other
branches and tags are kept as pushed (`GitRef`, `GitObject`). While the
assistant works on the project, nothing is pushed."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from dulwich.objects import Commit, ShaFile
from dulwich.refs import Ref, check_ref_format

from projects.files.binaries import bytes_digest, digest_of, is_marker, storage_written
from projects.files.limits import current_limits, storage_problem
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.git.pushed_tree import Binary, PushedFiles, pushed_files
from projects.git.repository import MAIN, Opened, commit_record
from projects.locks import lock_current
from projects.models import FileRevision, GitCommit, GitObject, GitRef, Project, ProjectFile
from projects.services import Author, file_create, file_delete, file_update, file_upload_checked
from projects.sweep import stored_files_delete
from projects.usage import storage_used
from projects.writing import writes_held

ZERO = b"0" * 40
BUSY = "The assistant is working on this project; push again when it finishes."
_MAX_ANCESTORS = 100_000  # commits walked to tell a fast-forward


@dataclass(frozen=True)
class Command:
    old: bytes
    new: bytes
    ref: bytes


@dataclass
class PushOutcome:
    statuses: list[tuple[bytes, bytes]] = field(default_factory=list)  # (ref, "ok" or why)
    lines: list[str] = field(default_factory=list)  # said to the person (remote: …)


Getter = Callable[[bytes], ShaFile]


def push_apply(
    *,
    project: Project,
    user: User,
    opened: Opened,
    commands: list[Command],
    get: Getter,
    received: Iterable[ShaFile],
) -> PushOutcome:
    """Apply `commands` (all or none) with the objects `get` finds, of which
    `received` came with the push."""
    refused = _refusals(project, opened, commands, get)
    if refused:
        return _refused_whole(commands, refused)
    main = next((command for command in commands if command.ref == MAIN), None)
    files = None
    if main is not None:
        commit = get(main.new)
        assert isinstance(commit, Commit)
        files = pushed_files(get, commit.tree)
        if files.problems:
            return _refused_whole(commands, ["Nothing of this push was kept:", *files.problems])
    with storage_written() as stored:
        outcome = _written(
            project, user, opened, commands=commands, files=files, get=get, received=received
        )
        if outcome.lines and outcome.statuses[0][1] != b"ok":
            stored_files_delete(stored)
    return outcome


def _refusals(project: Project, opened: Opened, commands: list[Command], get: Getter) -> list[str]:
    if lock_current(project) is not None:
        return [BUSY]
    problems: list[str] = []
    for command in commands:
        problem = _ref_problem(command, opened, get)
        if problem:
            problems.append(f"{command.ref.decode('utf-8', 'replace')}: {problem}")
    return problems


def _ref_problem(command: Command, opened: Opened, get: Getter) -> str | None:
    ref = command.ref
    if not ref.startswith((b"refs/heads/", b"refs/tags/")) or not check_ref_format(Ref(ref[5:])):
        return "only branches and tags can be pushed."
    if len(ref) > 250:
        return "the name is too long."
    if command.new != ZERO and not _exists(get, command.new):
        return "the push did not bring its commit."
    return _main_problem(command, opened, get) if ref == MAIN else None


def _main_problem(command: Command, opened: Opened, get: Getter) -> str | None:
    if command.new == ZERO:
        return "main is the project's site; it cannot be deleted."
    if not isinstance(get(command.new), Commit):
        return "main must name a commit."
    tip = opened.refs.get(MAIN)
    if tip is not None and not _descends(get, command.new, tip):
        return (
            "rejected: not a fast-forward. The project's history is never rewritten, "
            "forced or not: pull first (git pull), or push to another branch."
        )
    return None


def _exists(get: Getter, sha: bytes) -> bool:
    try:
        get(sha)
    except KeyError:
        return False
    return True


def _descends(get: Getter, commit_id: bytes, ancestor: bytes) -> bool:
    seen: set[bytes] = set()
    pending = [commit_id]
    while pending and len(seen) < _MAX_ANCESTORS:
        current = pending.pop()
        if current == ancestor:
            return True
        if current in seen:
            continue
        seen.add(current)
        try:
            commit = get(current)
        except KeyError:
            continue
        if isinstance(commit, Commit):
            pending.extend(commit.parents)
    return False


def _refused_whole(commands: list[Command], lines: list[str]) -> PushOutcome:
    reason = b"refused: " + lines[0].encode("utf-8")[:200].replace(b"\n", b" ")
    if len(lines) > 1:
        reason = b"refused (see the lines above)"
    return PushOutcome([(command.ref, reason) for command in commands], lines)


def _written(
    project: Project,
    user: User,
    opened: Opened,
    *,
    commands: list[Command],
    files: PushedFiles | None,
    get: Getter,
    received: Iterable[ShaFile],
) -> PushOutcome:
    with transaction.atomic():
        gone = writes_held(project)
        stale = gone.message if gone else _moved_since(project, opened)
        problems = [stale] if stale else []
        if not problems and files is not None:
            problems = [said(error) for error in files_apply(project, Author.person(user), files)]
        full = None if problems else objects_keep(project, received)
        if full is not None:
            problems = [full.message]
        if problems:
            transaction.set_rollback(True)
            return _refused_whole(commands, ["Nothing of this push was kept:", *problems])
        for command in commands:
            _ref_moved(project, opened, command, get)
    changed = "" if files is None else " The project's files are now main's."
    return PushOutcome([(command.ref, b"ok") for command in commands], [f"Pushed.{changed}"])


def _moved_since(project: Project, opened: Opened) -> str | None:
    """Whether main moved since the push read it (another push, a save): then
    the push's fast-forward check means nothing."""
    repository = opened.repository
    newest = GitCommit.objects.filter(project=project).order_by("-sequence").first()
    later = FileRevision.objects.filter(project=project, pk__gt=repository.walked).exists()
    if later or (newest.sequence if newest else 0) != repository.sequence:
        return "main changed while you pushed: pull, then push again."
    return None


def files_apply(project: Project, author: Author, files: PushedFiles) -> list[FileError]:
    """Make `files` the project's (inside the caller's transaction); each write
    refused (nothing of it written)."""
    current = dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    refused: list[FileError] = []
    for path in sorted(current.keys() - files.files.keys()):
        refused += _refusal(file_delete(project=project, path=path, author=author))
    for path, content in sorted(files.files.items()):
        refused += _refusal(_file_written(project, author, path, content, current.get(path)))
    return refused


def _refusal(result: FileWrite | FileError | None) -> list[FileError]:
    if isinstance(result, FileError) and result.code != ErrorCode.NO_CHANGE:
        return [result]
    return []


def _file_written(
    project: Project, author: Author, path: str, content: str | Binary, now: str | None
) -> FileWrite | FileError | None:
    if isinstance(content, Binary):
        if now is not None and is_marker(now) and digest_of(now) == bytes_digest(content.data):
            return None
        return file_upload_checked(
            project=project, path=path, data=content.data, sniffed=content.sniffed, author=author
        )
    if now == content:
        return None
    if now is None:
        return file_create(project=project, path=path, content=content, author=author)
    return file_update(project=project, path=path, content=content, author=author)


def said(error: FileError) -> str:
    """A refused write as "path: why", the path as Git names it."""
    message = error.message
    path = (error.path or "").lstrip("/")
    if error.path and message.startswith(error.path):
        return path + message[len(error.path) :]
    if path and not message.startswith(path):
        return f"{path}: {message}"
    return message


def objects_keep(project: Project, received: Iterable[ShaFile]) -> FileError | None:
    """Keep the objects not kept yet, if the owner's storage has room for them
    (inside the caller's transaction: refused, nothing is kept)."""
    known = set(GitObject.objects.filter(project=project).values_list("sha", flat=True))
    rows = []
    for obj in received:
        sha = obj.id.decode()
        if sha in known:
            continue
        known.add(sha)
        raw = obj.as_raw_string()
        data = zlib.compress(raw, 6)
        rows.append(
            GitObject(
                project=project,
                sha=sha,
                type_num=obj.type_num,
                data=data,
                size=len(raw),
                stored_size=len(data),
            )
        )
    adding = sum(row.stored_size for row in rows)
    full = storage_problem("this push", storage_used(project.owner_id), adding, current_limits())
    if full is not None:
        return full
    GitObject.objects.bulk_create(rows, batch_size=500)
    return None


def _ref_moved(project: Project, opened: Opened, command: Command, get: Getter) -> None:
    name = command.ref.decode()
    if command.ref == MAIN:
        commit = get(command.new)
        assert isinstance(commit, Commit)
        newest = FileRevision.objects.filter(project=project).order_by("-pk")
        upto = newest.values_list("pk", flat=True).first() or 0
        commit_record(
            project.pk, commit, sequence=opened.repository.sequence + 1, upto=upto, pushed=True
        )
    elif command.new == ZERO:
        GitRef.objects.filter(project=project, name=name).delete()
    else:
        GitRef.objects.update_or_create(
            project=project, name=name, defaults={"sha": command.new.decode()}
        )
