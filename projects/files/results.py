"""What the file service returns: success values, or a `FileError` value.

Errors carry a stable `code`, a `message` that tells the model (or a script)
what to do next, `shown` when a person should read other words than the
model's (no tool names, no "read it again"), and typed context that helps
either recover (the files that do exist, the allowed extensions, the closest
match, the current version and limits).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class ErrorCode(StrEnum):
    INVALID_PATH = "invalid_path"
    INVALID_CONTENT = "invalid_content"
    INVALID_ARGUMENT = "invalid_argument"
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    CONFLICT = "conflict"
    FILE_TOO_LARGE = "file_too_large"
    TOO_MANY_FILES = "too_many_files"
    PROJECT_TOO_LARGE = "project_too_large"
    NO_MATCH = "no_match"
    AMBIGUOUS_MATCH = "ambiguous_match"
    NO_CHANGE = "no_change"
    BUSY = "busy"  # the assistant is working on the project
    GONE = "gone"  # the project is in the trash or deleted
    STORAGE_FULL = "storage_full"  # the owner's storage quota (files and history)


@dataclass(frozen=True)
class FileError:
    code: ErrorCode
    message: str
    path: str | None = None
    available_files: tuple[str, ...] = ()
    allowed_extensions: tuple[str, ...] = ()
    suggestion: str | None = None
    closest_match: str | None = None
    closest_match_line: int | None = None
    match_lines: tuple[int, ...] = ()
    current_version: int | None = None
    size: int | None = None
    limit: int | None = None
    edit_index: int | None = None
    shown: str = ""  # for people, when `message` is written for the model

    @property
    def for_people(self) -> str:
        return self.shown or self.message


@dataclass(frozen=True)
class BinaryInfo:
    """What a binary file is (its bytes stay in its blob: projects.files.binaries)."""

    content_type: str
    size: int
    digest: str
    width: int | None = None
    height: int | None = None

    @property
    def is_image(self) -> bool:
        return self.content_type.startswith("image/")

    def describe(self) -> str:
        shape = f", {self.width}x{self.height} px" if self.width and self.height else ""
        return f"{self.content_type}{shape}"


@dataclass(frozen=True)
class FileInfo:
    path: str
    size: int
    version: int
    updated_at: datetime
    binary: BinaryInfo | None = None


@dataclass(frozen=True)
class FileContent:
    path: str
    content: str  # "" for a binary file
    version: int
    size: int
    total_lines: int
    start_line: int
    end_line: int
    binary: BinaryInfo | None = None


@dataclass(frozen=True)
class FileWrite:
    """A change that was applied and recorded as revision `revision_id`."""

    path: str
    action: str
    version: int | None
    size: int
    revision_id: int
    old_path: str | None = None


@dataclass(frozen=True)
class SearchMatch:
    path: str
    line: int
    text: str


@dataclass(frozen=True)
class SearchResults:
    query: str
    matches: tuple[SearchMatch, ...]
    total_matches: int
    files_searched: int
    truncated: bool
