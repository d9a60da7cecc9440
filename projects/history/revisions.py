"""A file's history and restoring any earlier state, built on the revision log.

Restoring is an ordinary write through the file service (an update, or a
create for a deleted file), so it is itself recorded and can be undone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce

from common.users import person_name
from projects.files.paths import PathError, normalize_path
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.models import FileRevision, Project, ProjectFile
from projects.selectors import path_error
from projects.services import Author, file_create, file_update

HISTORY_LIMIT = 100


@dataclass(frozen=True)
class RevisionInfo:
    id: int
    action: str
    path: str
    old_path: str
    actor: str
    username: str | None
    created_at: datetime
    chars: int | None
    via: str = ""  # "undo", "redo" or "restore" when one of those wrote it
    message_id: int | None = None  # the assistant's message whose turn made it
    note: str = ""  # what the person did, in words (FileRevision.note)
    name: str = ""  # the person as others are shown them (common.users.person_name)


@dataclass(frozen=True)
class RevisionState:
    """The file as it stood right after a revision (before it, for a delete)."""

    revision_id: int
    path: str
    content: str
    created_at: datetime


def file_history(project: Project, path: str) -> list[RevisionInfo] | FileError:
    canonical = normalize_path(path)
    if isinstance(canonical, PathError):
        return path_error(canonical)
    rows = _listing(FileRevision.objects.filter(project=project)).filter(
        Q(path=canonical) | Q(old_path=canonical)
    )
    return [_info(row) for row in rows[:HISTORY_LIMIT]]


def deleted_files(project: Project) -> list[RevisionInfo]:
    """The latest deletion of each path that has no file now, newest first."""
    current = ProjectFile.objects.filter(project=project, path=OuterRef("path"))
    later = FileRevision.objects.filter(
        project=project, path=OuterRef("path"), id__gt=OuterRef("id")
    )
    rows = (
        _listing(FileRevision.objects.filter(project=project, action=FileRevision.Action.DELETE))
        .exclude(Exists(current))
        .exclude(Exists(later))
    )
    return [_info(row) for row in rows[:HISTORY_LIMIT]]


def revision_state(project: Project, revision_id: int) -> RevisionState | FileError:
    row = (
        FileRevision.objects.filter(project=project, pk=revision_id)
        .select_related("before", "after")
        .first()
    )
    if row is None:
        return FileError(ErrorCode.NOT_FOUND, "That version does not exist in this project.")
    content = row.content_before if row.action == FileRevision.Action.DELETE else row.content_after
    return RevisionState(row.pk, row.path, content or "", row.created_at)


@transaction.atomic
def file_restore(*, project: Project, revision_id: int, author: Author) -> FileWrite | FileError:
    """Bring back the state of `revision_id` at its path, creating the file if needed."""
    state = revision_state(project, revision_id)
    if isinstance(state, FileError):
        return state
    if ProjectFile.objects.filter(project=project, path=state.path).exists():
        return file_update(project=project, path=state.path, content=state.content, author=author)
    return file_create(project=project, path=state.path, content=state.content, author=author)


@dataclass(frozen=True)
class RevisionDiff:
    """Two versions of a file to compare: before and after a revision, or the
    revision's version and the file as it is now."""

    path: str
    before: str | None
    after: str | None
    title: str


def revision_diff(
    project: Project, revision_id: int, *, against_current: bool
) -> RevisionDiff | FileError:
    row = (
        FileRevision.objects.filter(project=project, pk=revision_id)
        .select_related("before", "after")
        .first()
    )
    if row is None:
        return FileError(ErrorCode.NOT_FOUND, "That version does not exist in this project.")
    if not against_current:
        title = f"What this {row.action} changed in {row.path}"
        return RevisionDiff(row.path, row.content_before, row.content_after, title)
    then = row.content_before if row.action == FileRevision.Action.DELETE else row.content_after
    now = ProjectFile.objects.filter(project=project, path=row.path).values_list(
        "content", flat=True
    )
    title = f"From this version of {row.path} to the current one"
    return RevisionDiff(row.path, then, now.first(), title)


def _listing(rows: QuerySet[FileRevision]) -> QuerySet[FileRevision]:
    """Newest first, without loading the (possibly large) contents themselves."""
    return (
        rows.select_related("user", "reversal")
        .annotate(chars=Coalesce("after__chars", "before__chars"))
        .order_by("-created_at", "-id")
    )


def _info(row: FileRevision) -> RevisionInfo:
    return RevisionInfo(
        id=row.pk,
        action=row.action,
        path=row.path,
        old_path=row.old_path,
        actor=row.actor,
        username=row.user.get_username() if row.user else None,
        created_at=row.created_at,
        chars=getattr(row, "chars", None),
        via=row.reversal.kind if row.reversal else "",
        message_id=row.message_id,
        note=row.note,
        name=person_name(row.user) if row.user else "",
    )
