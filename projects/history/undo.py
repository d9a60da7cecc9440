"""Taking changes back: undo a run of revisions (a turn's, or an undo's), or put
the whole project back as it was at a point of its history.

Nothing is destroyed on the way: every file is put back through the file
service, as new revisions tied to one `Reversal`, in one transaction; if any
write is refused (a limit, the assistant at work) nothing changes at all. A
file changed since the run being undone is a conflict: the person is told which,
and chooses to undo the rest or to restore the whole project instead.

Nothing is overwritten unseen: the plan is made inside the transaction that
writes it, with the project's writers held (projects.writing.writes_held), and each
write names the version the plan saw. A save racing an undo either lands first,
and the undo sees it as a conflict, or waits and is refused as stale.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.contrib.auth.models import User
from django.db import transaction

from common.refusals import Refusal
from projects.files.blobs import text_digest
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.history.changesets import FileChange, net_changes, texts
from projects.locks import lock_current
from projects.models import FileRevision, Project, ProjectFile, Reversal, RevisionBlob
from projects.services import (
    Author,
    file_create,
    file_delete,
    file_rename,
    file_update,
)
from projects.writing import writes_held

BUSY = (
    "The assistant is working on this project right now. Wait for it to finish "
    "(or stop it), then try again."
)


@dataclass(frozen=True)
class Conflict:
    path: str
    reason: str


@dataclass(frozen=True)
class UndoRefused(Refusal):
    conflicts: tuple[Conflict, ...] = ()


@dataclass(frozen=True)
class Plan:
    """What taking back a run would do: `steps` from the files as they are now,
    and the files that changed since, which it would leave as they are."""

    steps: list[FileChange]
    conflicts: list[Conflict]


def undo_plan(project: Project, revisions: Iterable[FileRevision]) -> Plan:
    """Taking back `revisions`: each file they changed, back as it was before."""
    steps = [_inverse(change) for change in net_changes(revisions)]
    digests = _digests(step.before_id for step in steps)
    current = {
        row.path: row for row in ProjectFile.objects.filter(project=project).only("path", "content")
    }
    vacated = {step.start_path.lower() for step in steps if step.start_path}
    conflicts: list[Conflict] = []
    for step in steps:
        reason = _conflict(step, current, digests, vacated)
        if reason:
            conflicts.append(Conflict(step.path, reason))
    return Plan(steps, conflicts)


@transaction.atomic
def changes_undo(
    *,
    project: Project,
    revisions: Iterable[FileRevision],
    user: User,
    kind: Reversal.Kind,
    summary: str,
    message_id: int | None = None,
    reverses: Reversal | None = None,
    keep_changed: bool = False,
) -> Reversal | UndoRefused:
    """Take back `revisions`. Files changed since are a refusal listing them,
    unless `keep_changed`: then they stay as they are and the rest is undone."""
    held = _hold(project)
    if held is not None:
        return held
    if reverses is not None and reverses.reversed_by.exists():
        # Asked again while the first took it back (a double click): checked
        # under the writers' hold, so the second learns it was done.
        return UndoRefused("That was already done: nothing changed.")
    plan = undo_plan(project, revisions)
    if plan.conflicts and not keep_changed:
        names = ", ".join(conflict.path for conflict in plan.conflicts)
        return UndoRefused(f"Changed since: {names}.", tuple(plan.conflicts))
    blocked = {conflict.path for conflict in plan.conflicts}
    steps = [step for step in plan.steps if step.path not in blocked]
    reversal = Reversal(
        project=project,
        kind=kind,
        user=user,
        message_id=message_id,
        reverses=reverses,
        summary=summary,
    )
    return _apply(project, steps, reversal)


def state_at(project: Project | uuid.UUID, point: int) -> dict[str, int | None]:
    """The project's files right after revision `point` (any revision id, even
    another project's): each path, with the blob of its text. `project` may be
    its id (projects.history.past caches by it)."""
    state: dict[str, int | None] = {}
    rows = (
        FileRevision.objects.filter(project=project, pk__lte=point)
        .order_by("pk")
        .values_list("action", "path", "old_path", "after_id")
    )
    for action, path, old_path, after_id in rows.iterator(chunk_size=2000):
        if action == FileRevision.Action.DELETE:
            state.pop(path, None)
            continue
        if action == FileRevision.Action.RENAME:
            state.pop(old_path, None)
        state[path] = after_id
    return state


def restore_plan(project: Project, point: int) -> list[FileChange]:
    """What putting the project back to right after revision `point` would do.
    A file with no recorded history is left alone."""
    latest = FileRevision.objects.filter(project=project).order_by("-pk").values_list("pk")[:1]
    now = state_at(project, latest[0][0]) if latest else {}
    target = state_at(project, point)
    steps = [
        FileChange(path, path, now[path], target[path])
        for path in sorted(now.keys() & target.keys())
        if now[path] != target[path]
    ]
    going = sorted(now.keys() - target.keys())
    coming = sorted(target.keys() - now.keys())
    for path in list(coming):  # a file whose text is somewhere that goes: a rename
        match = next((old for old in going if now[old] == target[path]), None)
        if match is not None:
            going.remove(match)
            coming.remove(path)
            steps.append(FileChange(match, path, now[match], target[path]))
    steps += [FileChange(path, None, now[path], None) for path in going]
    steps += [FileChange(None, path, None, target[path]) for path in coming]
    order = {"deleted": 0, "renamed": 1, "edited": 2, "created": 3}
    return sorted(steps, key=lambda step: (order[step.action], step.path))


@transaction.atomic
def project_restore(
    *, project: Project, point: int, user: User, summary: str, message_id: int | None = None
) -> Reversal | UndoRefused:
    """Put every file back as it was right after revision `point`."""
    held = _hold(project)
    if held is not None:
        return held
    steps = restore_plan(project, point)
    if not steps:
        return UndoRefused("The files are already exactly as they were then; nothing to restore.")
    reversal = Reversal(
        project=project,
        kind=Reversal.Kind.RESTORE,
        user=user,
        message_id=message_id,
        point=point,
        summary=summary,
    )
    return _apply(project, steps, reversal)


# --- applying ----------------------------------------------------------------------


class _Rollback(Exception):
    def __init__(self, error: FileError) -> None:
        super().__init__(error.message)
        self.error = error


def _hold(project: Project) -> UndoRefused | None:
    """Hold the project's writers for the rest of the transaction: from here to
    the last write, no save can land unseen between the plan and the writes."""
    gone = writes_held(project)
    if gone is not None:
        return UndoRefused(gone.message)
    if lock_current(project) is not None:
        return UndoRefused(BUSY)
    return None


def _apply(project: Project, steps: list[FileChange], reversal: Reversal) -> Reversal | UndoRefused:
    if not steps:
        return UndoRefused("Nothing is left to put back: every file it changed has changed since.")
    try:
        with transaction.atomic():
            reversal.save()
            _Writer(project, Author.reversing(reversal)).run(steps)
    except _Rollback as failed:
        return UndoRefused(f"Nothing was changed. {failed.error.message}")
    return reversal


class _Writer:
    """Writes the steps: deletions, renames (in an order that frees each name
    before it is taken), texts, creations. Each write names the version of the
    file it saw (and the one its own earlier write left), so a file changed in
    between is refused, never overwritten."""

    def __init__(self, project: Project, author: Author) -> None:
        self.project = project
        self.author = author
        self.texts: dict[int, str] = {}
        self.versions: dict[str, int] = {}

    def run(self, steps: list[FileChange]) -> None:
        self.texts = texts(step.after_id for step in steps)
        self.versions = dict(
            ProjectFile.objects.filter(project=self.project).values_list("path", "version")
        )
        for step in steps:
            if step.action == "deleted":
                path = _path(step.start_path)
                self._check(
                    file_delete(
                        project=self.project,
                        path=path,
                        author=self.author,
                        expected_version=self.versions.get(path),
                    )
                )
        self._renames([step for step in steps if step.action == "renamed"])
        for step in steps:
            if (
                step.end_path is not None
                and step.after_id is not None
                and step.start_path is not None
            ):
                self._check(
                    file_update(
                        project=self.project,
                        path=step.end_path,
                        content=self.texts[step.after_id],
                        author=self.author,
                        expected_version=self.versions.get(step.end_path),
                    )
                )
        for step in steps:
            if step.action == "created":
                assert step.end_path is not None
                assert step.after_id is not None
                self._check(
                    file_create(
                        project=self.project,
                        path=step.end_path,
                        content=self.texts[step.after_id],
                        author=self.author,
                    )
                )

    def _renames(self, renames: list[FileChange]) -> None:
        taken = {
            path.lower()
            for path in ProjectFile.objects.filter(project=self.project).values_list(
                "path", flat=True
            )
        }
        pending = list(renames)
        while pending:
            ready = [
                step
                for step in pending
                if _lower(step.end_path) not in taken
                or _lower(step.end_path) == _lower(step.start_path)
            ]
            if not ready:  # names that swap places: one steps aside first
                step = pending.pop(0)
                aside = _free_name(_path(step.start_path), taken)
                self._rename(_path(step.start_path), aside, taken)
                pending.append(replace(step, start_path=aside))
                continue
            for step in ready:
                pending.remove(step)
                self._rename(_path(step.start_path), _path(step.end_path), taken)

    def _rename(self, old: str, new: str, taken: set[str]) -> None:
        self._check(
            file_rename(
                project=self.project,
                path=old,
                new_path=new,
                author=self.author,
                expected_version=self.versions.pop(old, None),
            )
        )
        taken.discard(old.lower())
        taken.add(new.lower())

    def _check(self, result: FileWrite | FileError) -> None:
        if isinstance(result, FileWrite) and result.version is not None:
            self.versions[result.path] = result.version
        elif isinstance(result, FileError) and result.code != ErrorCode.NO_CHANGE:
            raise _Rollback(result)


def _inverse(change: FileChange) -> FileChange:
    return FileChange(change.end_path, change.start_path, change.after_id, change.before_id)


def _conflict(
    step: FileChange,
    current: dict[str, ProjectFile],
    digests: dict[int, str],
    vacated: set[str],
) -> str:
    """Why `step` cannot be taken as planned ("" if it can): the file is not as
    the run left it, or its old name is taken by another file now."""
    if step.start_path is not None:
        now = current.get(step.start_path)
        if now is None:
            return "it was renamed or deleted since"
        if step.before_id is not None and text_digest(now.content) != digests.get(step.before_id):
            return "it was changed since"
    target = step.end_path
    if target is not None and target != step.start_path:
        lowered = target.lower()
        taken = any(path.lower() == lowered for path in current)
        if taken and lowered not in vacated:
            return f"another file is at {target} now"
    return ""


def _digests(blob_ids: Iterable[int | None]) -> dict[int, str]:
    wanted = {blob_id for blob_id in blob_ids if blob_id is not None}
    return dict(RevisionBlob.objects.filter(pk__in=wanted).values_list("pk", "digest"))


def _free_name(path: str, taken: set[str]) -> str:
    """A name beside `path` no file has, with the same extension."""
    folder, _, name = path.rpartition("/")
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, ""
    number = 1
    while True:
        candidate = f"{folder}/{stem}-moving-{number}{dot}{extension}"
        if candidate.lower() not in taken:
            return candidate
        number += 1


def _path(path: str | None) -> str:
    assert path is not None
    return path


def _lower(path: str | None) -> str:
    return (path or "").lower()
