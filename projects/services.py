"""The file service: the ONLY code that writes project files (DESIGN §3).

Every write validates its path through `projects.paths`, checks the limits,
honours optimistic locking (`expected_version`), and records a
`FileRevision` in the same transaction. Problems come back as `FileError`
values; nothing is half-written.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import ParamSpec

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone

from projects.binaries import (
    BinaryProblem,
    Sniffed,
    blob_for_marker,
    blob_store,
    bytes_digest,
    is_marker,
    marker_for,
    storage_written,
)
from projects.binaries import checked as binary_checked
from projects.blobs import blob_for
from projects.editing import Edit, apply_edits
from projects.limits import (
    Limits,
    current_limits,
    encoded_size,
    file_count_problem,
    file_size_problem,
    human_size,
    project_size_problem,
    storage_problem,
)
from projects.locks import lock_current
from projects.models import BinaryBlob, FileRevision, Project, ProjectFile, Reversal
from projects.paths import (
    PathError,
    extension_of,
    is_binary_path,
    normalize_path,
    parent_folders,
)
from projects.results import ErrorCode, FileError, FileWrite
from projects.selectors import file_not_found, path_error
from projects.sweep import stored_files_delete
from projects.usage import storage_used

__all__ = [
    "Author",
    "Edit",
    "file_create",
    "file_delete",
    "file_edit",
    "file_rename",
    "file_update",
    "file_upload",
]

_P = ParamSpec("_P")


def _all_or_nothing(
    write: Callable[_P, FileWrite | FileError],
) -> Callable[_P, FileWrite | FileError]:
    """One transaction per write, undone whole when the write is refused.

    A refusal is a value, not an exception, so `transaction.atomic` alone would
    commit whatever the write stored before something refused it (a binary
    file's bytes, history's texts): a refused upload kept its bytes, ten MiB a
    request. Inside a caller's transaction (an undo, an import) this is a
    savepoint, and only the refused write is taken back; the caller that rolls
    back a larger transaction deletes what its writes stored (binaries.storage_written)."""

    @functools.wraps(write)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> FileWrite | FileError:
        with storage_written() as stored:
            with transaction.atomic():
                result = write(*args, **kwargs)
                if isinstance(result, FileError):
                    transaction.set_rollback(True)
            if isinstance(result, FileError):
                # A file saved in Django's storage is not the database's to take
                # back: it goes now (a sweep would find it only an hour later).
                stored_files_delete(stored)
                stored.clear()
        return result

    return run


@dataclass(frozen=True)
class Author:
    """Who a change is recorded as coming from."""

    actor: FileRevision.Actor
    user: User | None = None
    # The chat message (its id) whose tool call made the change, if any.
    message_id: int | None = None
    # The undo, redo or restore (its id) the change is part of, if any.
    reversal_id: int | None = None

    @classmethod
    def person(cls, user: User) -> Author:
        return cls(FileRevision.Actor.USER, user)

    @classmethod
    def reversing(cls, reversal: Reversal) -> Author:
        """The person taking changes back, as part of `reversal` (projects.undo)."""
        return cls(FileRevision.Actor.USER, reversal.user, reversal_id=reversal.pk)

    @classmethod
    def assistant(cls, user: User | None = None, *, message_id: int | None = None) -> Author:
        return cls(FileRevision.Actor.ASSISTANT, user, message_id)


@_all_or_nothing
def file_create(
    *, project: Project, path: str, content: str, author: Author
) -> FileWrite | FileError:
    canonical = normalize_path(path)
    if isinstance(canonical, PathError):
        return path_error(canonical)
    size = _size_of(project, content, canonical)
    if isinstance(size, FileError):
        return size
    problem = (
        writes_held(project)
        or _busy_problem(project, author)
        or _placement_problem(project, canonical)
        or _create_limits_problem(project, canonical, size)
    )
    if problem:
        return problem
    record = ProjectFile.objects.create(project=project, path=canonical, content=content, size=size)
    return _record(project, record, FileRevision.Action.CREATE, author, before=None)


@_all_or_nothing
def file_update(
    *,
    project: Project,
    path: str,
    content: str,
    author: Author,
    expected_version: int | None = None,
) -> FileWrite | FileError:
    record = _locked_file(project, path, expected_version, author)
    if isinstance(record, FileError):
        return record
    return _write_content(project, record, content, FileRevision.Action.UPDATE, author)


@_all_or_nothing
def file_edit(
    *,
    project: Project,
    path: str,
    edits: Sequence[Edit],
    author: Author,
    expected_version: int | None = None,
) -> FileWrite | FileError:
    record = _locked_file(project, path, expected_version, author)
    if isinstance(record, FileError):
        return record
    if is_marker(record.content):
        return _binary_as_text(record.path)
    edited = apply_edits(record.content, edits)
    if isinstance(edited, FileError):
        return replace(edited, path=record.path, current_version=record.version)
    return _write_content(project, record, edited, FileRevision.Action.EDIT, author)


@_all_or_nothing
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
    problem = _placement_problem(project, target, ignoring=record)
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


@_all_or_nothing
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


def writes_held(project: Project) -> FileError | None:
    """Serialise writers of one project until the transaction ends (PostgreSQL: a
    row lock; SQLite: IMMEDIATE transactions); a project in the trash, or deleted
    meanwhile, takes no writes. Every write takes it first; so does a larger
    write that must read and write with nothing changing between (projects.undo)."""
    found = Project.objects.select_for_update().filter(pk=project.pk).values_list("pk").first()
    if found is None:
        return FileError(
            ErrorCode.GONE,
            "This project is in the trash (or was deleted), so its files cannot change. "
            "Restore it from the Trash first.",
        )
    return None


def _busy_problem(project: Project, author: Author) -> FileError | None:
    """A person's write while the assistant works on the project is refused, so
    neither overwrites the other silently; the assistant's own writes go on."""
    if author.actor == FileRevision.Actor.ASSISTANT or lock_current(project) is None:
        return None
    return FileError(
        ErrorCode.BUSY,
        "The assistant is changing this project's files right now, so saving is paused. "
        "Your text is still here: save again when it has finished, or stop it first.",
    )


def _locked_file(
    project: Project, path: str, expected_version: int | None, author: Author
) -> ProjectFile | FileError:
    canonical = normalize_path(path)
    if isinstance(canonical, PathError):
        return path_error(canonical)
    busy = writes_held(project) or _busy_problem(project, author)
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
) -> FileWrite | FileError:
    size = _size_of(project, content, record.path)
    if isinstance(size, FileError):
        return size
    if content == record.content:
        return FileError(
            ErrorCode.NO_CHANGE,
            f"{record.path} already has exactly this content; nothing was changed.",
            path=record.path,
            current_version=record.version,
        )
    problem = _update_limits_problem(project, record, size)
    if problem:
        return problem
    before = record.content
    record.content = content
    record.size = size
    record.version += 1
    record.save(update_fields=["content", "size", "version", "updated_at"])
    return _record(project, record, action, author, before=before)


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
    )
    _touch(project)
    return FileWrite(
        record.path, action, record.version, record.size, revision.pk, old_path=old_path or None
    )


def _size_of(project: Project, content: str, path: str) -> int | FileError:
    """Bytes of a text file's content, or of the binary file a marker names (a
    binary file's content is its marker: projects.binaries)."""
    if not is_binary_path(path):
        return encoded_size(content, path)
    blob = blob_for_marker(project, content) if is_marker(content) else None
    if blob is None:
        return _binary_as_text(path)
    return blob.size


def _binary_as_text(path: str) -> FileError:
    return FileError(
        ErrorCode.INVALID_CONTENT,
        f"{path} is a binary file (an image, a font or other media): it cannot be written "
        "or edited as text. Upload it in the workspace instead; write drawings as .svg text.",
        path=path,
    )


def _file_size_problem(path: str, size: int, limits: Limits) -> FileError | None:
    if not is_binary_path(path):
        return file_size_problem(path, size, limits)
    limit = settings.BUILTIT_MAX_BINARY_BYTES
    if size <= limit:
        return None
    return FileError(
        ErrorCode.FILE_TOO_LARGE,
        f"{path} is {human_size(size)}; a binary file may be at most {human_size(limit)}.",
        path=path,
        size=size,
        limit=limit,
    )


def file_upload(
    *, project: Project, path: str, data: bytes, author: Author
) -> FileWrite | FileError:
    """A binary file from its bytes: created, or replacing the binary file at `path`.
    The bytes must be what the extension says (projects.binaries). They are
    checked (an image decoded whole) before the write's transaction begins: on
    SQLite that holds every other writer (IMMEDIATE), for as long as it lasts."""
    checked = upload_checked(path, data)
    if isinstance(checked, FileError):
        return checked
    canonical, sniffed = checked
    return file_upload_checked(
        project=project, path=canonical, data=data, sniffed=sniffed, author=author
    )


def upload_checked(path: str, data: bytes) -> tuple[str, Sniffed] | FileError:
    """The canonical path and what `data` is, if it may be uploaded there; the
    check of `file_upload`, for a caller that writes many (a ZIP import) to do
    before its own transaction."""
    canonical = normalize_path(path)
    if isinstance(canonical, PathError):
        return path_error(canonical)
    sniffed = _upload_checked(canonical, data)
    return sniffed if isinstance(sniffed, FileError) else (canonical, sniffed)


@_all_or_nothing
def file_upload_checked(
    *, project: Project, path: str, data: bytes, sniffed: Sniffed, author: Author
) -> FileWrite | FileError:
    """`file_upload`'s write, for bytes `upload_checked` found to be `sniffed` at
    the canonical `path`."""
    busy = writes_held(project) or _busy_problem(project, author)
    if busy:
        return busy
    existing = ProjectFile.objects.filter(project=project, path=path).first()
    # Every limit before the bytes are kept: a refusal after them would have
    # stored them for nothing.
    digest = bytes_digest(data)
    adding = 0 if BinaryBlob.objects.filter(project=project, digest=digest).exists() else len(data)
    problem = (
        _update_limits_problem(project, existing, len(data), adding=adding)
        if existing is not None
        else _placement_problem(project, path)
        or _create_limits_problem(project, path, len(data), adding=adding)
    )
    if problem:
        return problem
    marker = marker_for(blob_store(project, data, sniffed, digest=digest).digest)
    if existing is not None:
        return _write_content(project, existing, marker, FileRevision.Action.UPDATE, author)
    return file_create(project=project, path=path, content=marker, author=author)


def _upload_checked(path: str, data: bytes) -> Sniffed | FileError:
    if not is_binary_path(path):
        return FileError(
            ErrorCode.INVALID_PATH,
            f"{path} is a text file type: create it and write it in the editor instead.",
            path=path,
        )
    too_large = _file_size_problem(path, len(data), current_limits())
    if too_large:
        return too_large
    sniffed = binary_checked(path, extension_of(path), data)
    if isinstance(sniffed, BinaryProblem):
        return FileError(ErrorCode.INVALID_CONTENT, sniffed.message, path=path)
    return sniffed


def _touch(project: Project) -> None:
    now = timezone.now()
    Project.objects.filter(pk=project.pk).update(updated_at=now)
    project.updated_at = now


def _project_size(project: Project) -> int:
    total = ProjectFile.objects.filter(project=project).aggregate(total=Sum("size"))["total"]
    return int(total or 0)


def _create_limits_problem(
    project: Project, path: str, size: int, *, adding: int | None = None
) -> FileError | None:
    """Every limit a new file of `size` bytes must fit. `adding`: what it adds to
    the owner's storage, if not `_adding`'s answer (an upload not yet stored)."""
    limits = current_limits()
    count = ProjectFile.objects.filter(project=project).count()
    return (
        _file_size_problem(path, size, limits)
        or file_count_problem(path, count + 1, limits)
        or project_size_problem(path, _project_size(project) + size, limits)
        or _storage_problem(project, path, _adding(path, size, adding), limits)
    )


def _update_limits_problem(
    project: Project, record: ProjectFile, size: int, *, adding: int | None = None
) -> FileError | None:
    limits = current_limits()
    return (
        _file_size_problem(record.path, size, limits)
        or project_size_problem(record.path, _project_size(project) - record.size + size, limits)
        or _storage_problem(project, record.path, _adding(record.path, size, adding), limits)
    )


def _adding(path: str, size: int, adding: int | None) -> int:
    """Bytes a write adds to the owner's storage: a text's size; nothing for a
    binary file, whose content names a blob already stored (and counted)."""
    if adding is not None:
        return adding
    return 0 if is_binary_path(path) else size


def _storage_problem(project: Project, path: str, adding: int, limits: Limits) -> FileError | None:
    """The owner's quota, counted across all their projects; skipped without one.
    The owner's row is held to the end of the transaction (after the project's:
    always in that order), so writes to two of their projects at once, or a
    write and a chat picture, cannot each pass the quota unseen by the other."""
    if not limits.max_user_storage_bytes:
        return None
    User.objects.select_for_update().filter(pk=project.owner_id).first()
    return storage_problem(path, storage_used(project.owner_id), adding, limits)


def _placement_problem(
    project: Project, path: str, *, ignoring: ProjectFile | None = None
) -> FileError | None:
    """Refuse a path taken (in any case), or one that collides with a folder."""
    others = ProjectFile.objects.filter(project=project)
    if ignoring is not None:
        others = others.exclude(pk=ignoring.pk)
    same = others.filter(path__iexact=path).values_list("path", flat=True).first()
    if same == path:
        return FileError(
            ErrorCode.ALREADY_EXISTS,
            f"{path} already exists. Use update or edit to change it, or pick another name.",
            path=path,
        )
    if same is not None:
        return FileError(
            ErrorCode.ALREADY_EXISTS,
            f"{path} differs only in letter case from the existing {same}; "
            "two paths may not differ only in case.",
            path=path,
            suggestion=same,
        )
    folder_clash = Q(path__istartswith=path + "/")
    for folder in parent_folders(path):
        folder_clash |= Q(path__iexact=folder)
    clash = others.filter(folder_clash).values_list("path", flat=True).first()
    if clash is not None:
        return FileError(
            ErrorCode.ALREADY_EXISTS,
            f"{path} cannot be created: {clash} is in the way (a file and a folder "
            "cannot share a name).",
            path=path,
            suggestion=clash,
        )
    return None
