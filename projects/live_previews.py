"""What a preview's address (`/preview/<token>/…`) serves, read from the
database once per change of its project rather than once per request.

A preview shows its project as it is now: a file saved a moment ago is served
at once, and a replaced token, a project in the trash or deleted, or its site
taken down closes it at once. So each project has a generation
(projects.generations): every file write moves it on (projects.services), and
so does a save or a delete of the project or its site (the signals in
`connect`). A request reads its project's generation once; what this process
kept under another is read again, under the one just read.

Kept: which project a token opens (never a token that opens none: a
stranger's guesses are asked of the database each time and kept nowhere), and
each project's files as the preview serves them, by path (a path that holds no
file too), least recently used first out, past MAX_KEPT_BYTES in all or
MAX_KEPT_FILES paths. Shared by the process's threads."""

from __future__ import annotations

import sys
import uuid
from dataclasses import dataclass
from typing import Any

from django.db.models.signals import post_delete, post_save

from common.kept import Kept
from projects.files.binaries import blob_bytes, blob_for_marker, is_marker
from projects.generations import generation, generation_advance, generation_drop
from projects.models import Project, Site
from projects.selectors import PreviewClosed, file_for_preview, preview_project

MAX_KEPT_TOKENS = 10_000
MAX_KEPT_FILES = 20_000
MAX_KEPT_BYTES = 64 * 1024 * 1024
_PATH_WEIGHT = 256  # bytes a kept path costs besides its content (the key, the entry)


@dataclass(frozen=True)
class Blob:
    data: bytes
    content_type: str
    digest: str


@dataclass(frozen=True)
class PreviewFile:
    path: str
    content: str  # the text, or a binary file's marker
    blob: Blob | None  # a binary file's bytes; None for text, or bytes that are gone


@dataclass(frozen=True)
class OpenPreview:
    """A preview a token opens, with its project's generation read for this request."""

    project: Project
    generation: str


def preview_open(*, token: str) -> OpenPreview | PreviewClosed:
    """The project `token` opens as it is now, or why none does (preview_project)."""
    kept = _tokens.get(token)
    if kept is not None:
        project_id, then = kept
        now = generation(_name(project_id))
        if now == then:
            return OpenPreview(_project(project_id), now)
    else:
        found = preview_project(token=token)
        if not isinstance(found, Project):
            return found
        project_id, now = found.pk, generation(_name(found.pk))
    # Read under `now`, which was read first: a change after it moves it on.
    found = preview_project(token=token)
    if not isinstance(found, Project):
        _tokens.drop(token)
        return found
    if found.pk != project_id:  # another project's now: its generation, not kept
        _tokens.drop(token)
        return OpenPreview(found, generation(_name(found.pk)))
    _tokens.put(token, (project_id, now))
    return OpenPreview(found, now)


def preview_file(*, preview: OpenPreview, path: str) -> PreviewFile | None:
    """The file at canonical `path` of the preview's project, as it is now."""
    key = (preview.project.pk, path)
    kept = _files.get(key)
    if kept is not None and kept[0] == preview.generation:
        return kept[1]
    found = _read(preview.project, path)
    _files.put(key, (preview.generation, found))
    return found


def preview_changed(project_id: uuid.UUID) -> None:
    """The project's files changed: every process reads its preview again."""
    generation_advance(_name(project_id))


def _name(project_id: uuid.UUID) -> str:
    return f"preview-{project_id}"


def _project(project_id: uuid.UUID) -> Project:
    # As preview_project's query gives it (only the key loaded), made anew for
    # each request: a row object is not shared between threads.
    return Project.from_db(None, ["id"], [project_id])


def _read(project: Project, path: str) -> PreviewFile | None:
    record = file_for_preview(project=project, path=path)
    if record is None:
        return None
    if not is_marker(record.content):
        return PreviewFile(record.path, record.content, None)
    stored = blob_for_marker(project.pk, record.content)
    blob = None if stored is None else Blob(blob_bytes(stored), stored.content_type, stored.digest)
    return PreviewFile(record.path, record.content, blob)


def _weight(kept: tuple[str, PreviewFile | None]) -> int:
    found = kept[1]
    if found is None:
        return _PATH_WEIGHT
    blob = len(found.blob.data) if found.blob is not None else 0
    return _PATH_WEIGHT + sys.getsizeof(found.content) + blob


_tokens: Kept[str, tuple[uuid.UUID, str]] = Kept(count=MAX_KEPT_TOKENS)
_files: Kept[tuple[uuid.UUID, str], tuple[str, PreviewFile | None]] = Kept(
    count=MAX_KEPT_FILES, limit=MAX_KEPT_BYTES, weight=_weight
)


# What a preview reads of each model besides its files: a save that names its
# fields and none of these (a rename, a model picked) changes nothing served.
_READ_FIELDS = {Project: {"preview_token", "deleted_at"}, Site: {"taken_down", "project"}}


def _saved(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    if update_fields is not None and not _READ_FIELDS[sender] & set(update_fields):
        return
    preview_changed(instance.pk if sender is Project else instance.project_id)


def _deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    if sender is Project:
        generation_drop(_name(instance.pk))
    else:
        preview_changed(instance.project_id)


def connect() -> None:
    """Called once, when the app is ready."""
    for model in (Project, Site):
        post_save.connect(_saved, sender=model, dispatch_uid=f"previews-{model.__name__}")
        post_delete.connect(_deleted, sender=model, dispatch_uid=f"previews-del-{model.__name__}")
