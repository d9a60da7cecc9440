"""The file service: the ONLY code that writes project files (DESIGN §3); and a
person's workspace preferences (`preferences_save`).

Every write validates its path through `projects.files.paths`, checks the limits,
honours optimistic locking (`expected_version`), and records a
`FileRevision` in the same transaction. Problems come back as `FileError`
values; nothing is half-written (projects.writing).

A caller may add a refusal of its own (`ContentCheck`) for the texts it writes:
the model's file tools refuse a new text that leaves content out
(chat.tools.placeholders), which a person's editor must not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from projects import write_checks
from projects.files.binaries import (
    Sniffed,
    blob_store,
    bytes_digest,
    is_marker,
    marker_for,
)
from projects.files.blobs import blob_for
from projects.files.editing import Edit, apply_edits
from projects.files.paths import (
    PathError,
    is_binary_path,
    normalize_path,
)
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.live_previews import preview_changed
from projects.models import (
    BinaryBlob,
    FileRevision,
    Project,
    ProjectFile,
    Reversal,
    WorkspacePreferences,
)
from projects.selectors import file_not_found, path_error
from projects.writing import all_or_nothing, writes_held

__all__ = [
    "Author",
    "ContentCheck",
    "Edit",
    "file_create",
    "file_delete",
    "file_edit",
    "file_rename",
    "file_update",
    "file_upload",
    "preferences_save",
]

# (the text a write replaces, "" for a new file; the new text) -> why the caller
# refuses the new text, in words for whoever sent it; None to let it through.
ContentCheck = Callable[[str, str], str | None]


@dataclass(frozen=True)
class Author:
    """Who a change is recorded as coming from."""

    actor: FileRevision.Actor
    user: User | None = None
    # The chat message (its id) whose tool call made the change, if any.
    message_id: int | None = None
    # The undo, redo or restore (its id) the change is part of, if any.
    reversal_id: int | None = None
    # What the person did, in words, when it was more than a save (FileRevision.note).
    note: str = ""

    @classmethod
    def person(cls, user: User) -> Author:
        return cls(FileRevision.Actor.USER, user)

    @classmethod
    def person_noting(cls, user: User, note: str) -> Author:
        """The person, with what they did in words (a visual edit in the preview)."""
        return cls(FileRevision.Actor.USER, user, note=note)

    @classmethod
    def reversing(cls, reversal: Reversal) -> Author:
        """The person taking changes back, as part of `reversal` (projects.history.undo)."""
        return cls(FileRevision.Actor.USER, reversal.user, reversal_id=reversal.pk)

    @classmethod
    def assistant(cls, user: User | None = None, *, message_id: int | None = None) -> Author:
        return cls(FileRevision.Actor.ASSISTANT, user, message_id)


@all_or_nothing
def file_create(
    *,
    project: Project,
    path: str,
    content: str,
    author: Author,
    check: ContentCheck | None = None,
) -> FileWrite | FileError:
    canonical = normalize_path(path)
    if isinstance(canonical, PathError):
        return path_error(canonical)
    size = write_checks.content_size(project, content, canonical)
    if isinstance(size, FileError):
        return size
    # Before the project's writers are held: the check reads only the text.
    refused = _refused(check, "", content, canonical, None)
    if refused:
        return refused
    problem = (
        writes_held(project)
        or write_checks.busy_problem(project, actor=author.actor)
        or write_checks.placement_problem(project, canonical)
        or write_checks.create_limits_problem(project, canonical, size)
    )
    if problem:
        return problem
    record = ProjectFile.objects.create(project=project, path=canonical, content=content, size=size)
    return _record(project, record, FileRevision.Action.CREATE, author, before=None)


@all_or_nothing
def file_update(
    *,
    project: Project,
    path: str,
    content: str,
    author: Author,
    expected_version: int | None = None,
    check: ContentCheck | None = None,
) -> FileWrite | FileError:
    record = _locked_file(project, path, expected_version, author)
    if isinstance(record, FileError):
        return record
    return _write_content(project, record, content, FileRevision.Action.UPDATE, author, check=check)


@all_or_nothing
def file_edit(
    *,
    project: Project,
    path: str,
    edits: Sequence[Edit],
    author: Author,
    expected_version: int | None = None,
    check: ContentCheck | None = None,
) -> FileWrite | FileError:
    record = _locked_file(project, path, expected_version, author)
    if isinstance(record, FileError):
        return record
    if is_marker(record.content):
        return write_checks.binary_as_text(record.path)
    edited = apply_edits(record.content, edits)
    if isinstance(edited, FileError):
        return replace(edited, path=record.path, current_version=record.version)
    return _write_content(project, record, edited, FileRevision.Action.EDIT, author, check=check)


@all_or_nothing
def file_rename(
    *,
    project: Project,
    path: str,
    new_path: str,
    author: Author,
    expected_version: int | None = None,
) -> FileWrite | FileError:
    target = normalize_path(new_path)
    if isinstance(target, PathError):
        return path_error(target)
    record = _locked_file(project, path, expected_version, author)
    if isinstance(record, FileError):
        return record
    if target == record.path:
        return FileError(
            ErrorCode.NO_CHANGE, f"{record.path} already has that name.", path=record.path
        )
    if is_binary_path(target) != is_binary_path(record.path):
        return FileError(
            ErrorCode.INVALID_PATH,
            f"{record.path} cannot be renamed to {target}: a "
            f"{'binary' if is_binary_path(record.path) else 'text'} file keeps an extension "
            "of its kind.",
            path=record.path,
        )
    problem = write_checks.placement_problem(project, target, ignoring=record)
    if problem:
        return problem
    old_path = record.path
    record.path = target
    record.version += 1
    record.save(update_fields=["path", "version", "updated_at"])
    return _record(
        project,
        record,
        FileRevision.Action.RENAME,
        author,
        before=record.content,
        old_path=old_path,
    )


@all_or_nothing
def file_delete(
    *, project: Project, path: str, author: Author, expected_version: int | None = None
) -> FileWrite | FileError:
    record = _locked_file(project, path, expected_version, author)
    if isinstance(record, FileError):
        return record
    revision = FileRevision.objects.create(
        project=project,
        action=FileRevision.Action.DELETE,
        path=record.path,
        before=blob_for(project, record.content),
        after=None,
        version_after=None,
        actor=author.actor,
        user=author.user,
        message_id=author.message_id,
        reversal_id=author.reversal_id,
    )
    record.delete()
    _touch(project)
    return FileWrite(record.path, FileRevision.Action.DELETE, None, 0, revision.pk)


# --- helpers ---------------------------------------------------------------


def _locked_file(
    project: Project, path: str, expected_version: int | None, author: Author
) -> ProjectFile | FileError:
    canonical = normalize_path(path)
    if isinstance(canonical, PathError):
        return path_error(canonical)
    busy = writes_held(project) or write_checks.busy_problem(project, actor=author.actor)
    if busy:
        return busy
    record = ProjectFile.objects.filter(project=project, path=canonical).first()
    if record is None:
        return file_not_found(project, canonical)
    if expected_version is not None and record.version != expected_version:
        return FileError(
            ErrorCode.CONFLICT,
            f"{canonical} changed since it was opened (you have version {expected_version}, "
            f"it is now version {record.version}). Reload it and apply your change again.",
            path=canonical,
            current_version=record.version,
        )
    return record


def _write_content(
    project: Project,
    record: ProjectFile,
    content: str,
    action: FileRevision.Action,
    author: Author,
    *,
    check: ContentCheck | None = None,
) -> FileWrite | FileError:
    size = write_checks.content_size(project, content, record.path)
    if isinstance(size, FileError):
        return size
    if content == record.content:
        return FileError(
            ErrorCode.NO_CHANGE,
            f"{record.path} already has exactly this content; nothing was changed.",
            path=record.path,
            current_version=record.version,
        )
    refused = _refused(check, record.content, content, record.path, record.version)
    if refused:
        return refused
    problem = write_checks.update_limits_problem(project, record, size)
    if problem:
        return problem
    before = record.content
    record.content = content
    record.size = size
    record.version += 1
    record.save(update_fields=["content", "size", "version", "updated_at"])
    return _record(project, record, action, author, before=before)


def _refused(
    check: ContentCheck | None, old: str, new: str, path: str, version: int | None
) -> FileError | None:
    reason = check(old, new) if check is not None else None
    if reason is None:
        return None
    return FileError(ErrorCode.INVALID_CONTENT, reason, path=path, current_version=version)


def _record(
    project: Project,
    record: ProjectFile,
    action: FileRevision.Action,
    author: Author,
    *,
    before: str | None,
    old_path: str = "",
) -> FileWrite:
    before_blob = blob_for(project, before)
    revision = FileRevision.objects.create(
        project=project,
        action=action,
        path=record.path,
        old_path=old_path,
        before=before_blob,
        after=blob_for(project, record.content, base=before_blob, base_text=before),
        version_after=record.version,
        actor=author.actor,
        user=author.user,
        message_id=author.message_id,
        reversal_id=author.reversal_id,
        note=author.note[:200],
    )
    _touch(project)
    return FileWrite(
        record.path, action, record.version, record.size, revision.pk, old_path=old_path or None
    )


def file_upload(
    *, project: Project, path: str, data: bytes, author: Author
) -> FileWrite | FileError:
    """A binary file from its bytes: created, or replacing the binary file at `path`.
    The bytes must be what the extension says (projects.files.binaries). They are
    checked (an image decoded whole) before the write's transaction begins: on
    SQLite that holds every other writer (IMMEDIATE), for as long as it lasts."""
    checked = write_checks.upload_checked(path, data)
    if isinstance(checked, FileError):
        return checked
    canonical, sniffed = checked
    return file_upload_checked(
        project=project, path=canonical, data=data, sniffed=sniffed, author=author
    )


@all_or_nothing
def file_upload_checked(
    *, project: Project, path: str, data: bytes, sniffed: Sniffed, author: Author
) -> FileWrite | FileError:
    """`file_upload`'s write, for bytes `upload_checked` found to be `sniffed` at
    the canonical `path`."""
    busy = writes_held(project) or write_checks.busy_problem(project, actor=author.actor)
    if busy:
        return busy
    existing = ProjectFile.objects.filter(project=project, path=path).first()
    # Every limit before the bytes are kept: a refusal after them would have
    # stored them for nothing.
    digest = bytes_digest(data)
    adding = 0 if BinaryBlob.objects.filter(project=project, digest=digest).exists() else len(data)
    problem = (
        write_checks.update_limits_problem(project, existing, len(data), adding=adding)
        if existing is not None
        else write_checks.placement_problem(project, path)
        or write_checks.create_limits_problem(project, path, len(data), adding=adding)
    )
    if problem:
        return problem
    marker = marker_for(blob_store(project, data, sniffed, digest=digest).digest)
    if existing is not None:
        return _write_content(project, existing, marker, FileRevision.Action.UPDATE, author)
    return file_create(project=project, path=path, content=marker, author=author)


def _touch(project: Project) -> None:
    """After every write of a file: the project was updated, and its preview
    is read again in every process."""
    preview_changed(project.pk)
    now = timezone.now()
    Project.objects.filter(pk=project.pk).update(updated_at=now)
    project.updated_at = now


@transaction.atomic
def preferences_save(*, user: User, changes: dict[str, object]) -> dict[str, object]:
    """Merge `changes` (from projects.web.preferences.preferences_clean) into the
    person's preferences."""
    row, _ = WorkspacePreferences.objects.select_for_update().get_or_create(user=user)
    values = dict(row.values) if isinstance(row.values, dict) else {}
    values.update(changes)
    row.values = values
    row.save(update_fields=["values", "updated_at"])
    return values
