"""The size and count limits of DESIGN §3, read from settings at call time."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from common.sizes import human_size
from projects.files.binaries import MARKER as BINARY_MARKER
from projects.files.results import ErrorCode, FileError


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int
    max_files: int
    max_project_bytes: int
    max_user_storage_bytes: int  # 0: no bound


def current_limits() -> Limits:
    return Limits(
        max_file_bytes=settings.BUILTIT_MAX_FILE_BYTES,
        max_files=settings.BUILTIT_MAX_FILES,
        max_project_bytes=settings.BUILTIT_MAX_PROJECT_BYTES,
        max_user_storage_bytes=settings.BUILTIT_MAX_USER_STORAGE_BYTES,
    )


def encoded_size(content: object, path: str) -> int | FileError:
    """UTF-8 size of text content, or why the content cannot be stored."""
    if not isinstance(content, str):
        return FileError(ErrorCode.INVALID_CONTENT, "File content must be text.", path=path)
    if content.startswith(BINARY_MARKER):
        return FileError(
            ErrorCode.INVALID_CONTENT,
            f"The content for {path} begins with characters reserved for binary files.",
            path=path,
        )
    if "\x00" in content:
        return FileError(
            ErrorCode.INVALID_CONTENT,
            f"The content for {path} contains NUL characters; only text files can be stored.",
            path=path,
        )
    try:
        return len(content.encode("utf-8"))
    except UnicodeEncodeError:
        return FileError(
            ErrorCode.INVALID_CONTENT,
            f"The content for {path} contains invalid characters (unpaired surrogates).",
            path=path,
        )


def file_size_problem(path: str, size: int, limits: Limits) -> FileError | None:
    if size <= limits.max_file_bytes:
        return None
    return FileError(
        ErrorCode.FILE_TOO_LARGE,
        f"{path} would be {human_size(size)}; the limit is {human_size(limits.max_file_bytes)} "
        "per file. Split it into smaller files.",
        path=path,
        size=size,
        limit=limits.max_file_bytes,
    )


def project_size_problem(path: str, new_total: int, limits: Limits) -> FileError | None:
    if new_total <= limits.max_project_bytes:
        return None
    return FileError(
        ErrorCode.PROJECT_TOO_LARGE,
        f"Writing {path} would bring the project to {human_size(new_total)}; the limit is "
        f"{human_size(limits.max_project_bytes)} per project. Remove or shrink other files first.",
        path=path,
        size=new_total,
        limit=limits.max_project_bytes,
    )


def file_count_problem(path: str, count_after: int, limits: Limits) -> FileError | None:
    if count_after <= limits.max_files:
        return None
    return FileError(
        ErrorCode.TOO_MANY_FILES,
        f"Cannot create {path}: a project may hold at most {limits.max_files} files. "
        "Delete or merge files first.",
        path=path,
        size=count_after - 1,
        limit=limits.max_files,
    )


def storage_problem(path: str, used: int, adding: int, limits: Limits) -> FileError | None:
    """`adding` bytes more would pass the owner's storage quota. A text write adds
    its size to the files and, in history, the text compressed (at most its size
    again): so storage can pass the quota by at most one write's history copy,
    less than one file's limit."""
    quota = limits.max_user_storage_bytes
    if not quota or used + adding <= quota:
        return None
    return FileError(
        ErrorCode.STORAGE_FULL,
        f"Writing {path} would pass the project owner's storage: their projects take "
        f"{human_size(used)} of {human_size(quota)} (files, their history and chat "
        "pictures, the trash included). Make room by deleting projects that are no longer "
        "needed and then deleting them for good from the Trash.",
        path=path,
        size=used + adding,
        limit=quota,
    )
