"""What a write must pass before it is kept: the file's size, the project's size
and count, the owner's storage, the path's place among the others, the
assistant's hold on the project, and an upload's bytes being what they say.

The file service (projects.services) asks these inside the write's
transaction, after the project's writers are held, so what they count cannot
change before the write lands; `upload_checked` alone runs before it (decoding
an image can take a second, and would hold every other writer meanwhile).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Q, Sum

from common.sizes import human_size
from projects.files.binaries import BinaryRefused, Sniffed, blob_for_marker, is_marker
from projects.files.binaries import checked as binary_checked
from projects.files.limits import (
    Limits,
    current_limits,
    encoded_size,
    file_count_problem,
    file_size_problem,
    project_size_problem,
    storage_problem,
)
from projects.files.paths import (
    PathError,
    extension_of,
    is_binary_path,
    normalize_path,
    parent_folders,
)
from projects.files.results import ErrorCode, FileError
from projects.locks import lock_current
from projects.models import FileRevision, Project, ProjectFile
from projects.selectors import path_error
from projects.usage import storage_used


def busy_problem(project: Project, *, actor: str) -> FileError | None:
    """A person's write while the assistant works on the project is refused, so
    neither overwrites the other silently; the assistant's own writes go on."""
    if actor == FileRevision.Actor.ASSISTANT or lock_current(project) is None:
        return None
    return FileError(
        ErrorCode.BUSY,
        "The assistant is changing this project's files right now, so saving is paused. "
        "Your text is still here: save again when it has finished, or stop it first.",
    )


def content_size(project: Project, content: str, path: str) -> int | FileError:
    """Bytes of a text file's content, or of the binary file a marker names (a
    binary file's content is its marker: projects.files.binaries)."""
    if not is_binary_path(path):
        return encoded_size(content, path)
    blob = blob_for_marker(project, content) if is_marker(content) else None
    if blob is None:
        return binary_as_text(path)
    return blob.size


def binary_as_text(path: str) -> FileError:
    return FileError(
        ErrorCode.INVALID_CONTENT,
        f"{path} is a binary file (an image, a font or other media): it cannot be written "
        "or edited as text. Upload it in the workspace instead; write drawings as .svg text.",
        path=path,
        shown=f"{path} is a picture or other media file, so it cannot be changed as text.",
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


def upload_checked(path: str, data: bytes) -> tuple[str, Sniffed] | FileError:
    """The canonical path and what `data` is, if it may be uploaded there; the
    check of `file_upload`, for a caller that writes many (a ZIP import) to do
    before its own transaction."""
    canonical = normalize_path(path)
    if isinstance(canonical, PathError):
        return path_error(canonical)
    sniffed = _upload_checked(canonical, data)
    return sniffed if isinstance(sniffed, FileError) else (canonical, sniffed)


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
    if isinstance(sniffed, BinaryRefused):
        return FileError(ErrorCode.INVALID_CONTENT, sniffed.message, path=path)
    return sniffed


def _project_size(project: Project) -> int:
    total = ProjectFile.objects.filter(project=project).aggregate(total=Sum("size"))["total"]
    return int(total or 0)


def create_limits_problem(
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


def update_limits_problem(
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


def placement_problem(
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
            shown=f"There is already a file called {path}.",
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
