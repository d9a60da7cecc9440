"""Sweeping away bytes nothing refers to any more, so storage holds only what
a file, a revision or a message still names.

A refused write keeps nothing (projects.services), but bytes can still lose
their last reference: a binary file's blob once no file or revision names its
marker, a history text no revision or later text is built on, a file in
Django's storage (BUILTIT_BINARY_STORAGE = "storage") whose row is gone (a
purged project: the database cascade cannot delete files) or never committed
(a write that failed after the file was saved). `manage.py sweep_storage`
sweeps everything, `purge_trash` does too, and a purge removes its project's
stored files at once.

A project is swept under its writers' lock (the row lock every file write
takes), so a write cannot reuse a blob the sweep is deleting. A stored file
is only deleted once it is an hour old: a write saves it before its row
commits.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from projects.files.binaries import MARKER, STORAGE_FOLDER, digest_of, is_marker, marker_for
from projects.models import BinaryBlob, FileRevision, Project, ProjectFile, RevisionBlob, SiteFile
from projects.usage import keepers

logger = logging.getLogger(__name__)

# A stored file younger than this may belong to a write not yet committed.
_STORED_FILE_GRACE = timedelta(hours=1)
_MARKER_CHARS = len(marker_for("0" * 64))


@dataclass(frozen=True)
class Swept:
    texts: int = 0  # history texts (RevisionBlob)
    binaries: int = 0  # binary files' bytes (BinaryBlob)
    stored_files: int = 0  # files in Django's storage
    kept_elsewhere: dict[str, int] | None = None  # each Keeper's count (chat pictures)

    def describe(self) -> str:
        parts = [
            f"{self.texts} history text{'' if self.texts == 1 else 's'}",
            f"{self.binaries} binary file blob{'' if self.binaries == 1 else 's'}",
            f"{self.stored_files} stored file{'' if self.stored_files == 1 else 's'}",
            *(f"{count} {name}" for name, count in (self.kept_elsewhere or {}).items()),
        ]
        return "Swept " + ", ".join(parts) + " that nothing refers to any more."


def storage_sweep() -> Swept:
    """Everything nothing refers to, in every project, in storage and kept by
    the other apps."""
    texts = binaries = 0
    for project_id in Project.all_objects.values_list("pk", flat=True).iterator():
        swept_texts, swept_binaries = project_sweep(project_id=project_id)
        texts += swept_texts
        binaries += swept_binaries
    stored = stored_files_sweep()
    elsewhere = {keeper.name: keeper.sweep() for keeper in keepers()}
    return Swept(texts, binaries, stored, elsewhere)


def project_sweep(*, project_id: uuid.UUID) -> tuple[int, int]:
    """One project's history texts and binary blobs that nothing refers to:
    how many of each were deleted."""
    with transaction.atomic():
        locked = Project.all_objects.select_for_update().filter(pk=project_id).exists()
        if not locked:
            return 0, 0
        texts = _texts_sweep(project_id)
        orphans = _binaries_unreferenced(project_id)
        names = [name for name in orphans.values_list("stored_name", flat=True) if name]
        binaries, _ = orphans.delete()
        transaction.on_commit(lambda: stored_files_delete(names))
    return texts, binaries


def _texts_sweep(project_id: uuid.UUID) -> int:
    """History texts no revision or published version names and no other text
    is built on; a text freed by the deletion (the base of one deleted) goes in
    the next round."""
    deleted = 0
    while True:
        named = FileRevision.objects.filter(project_id=project_id)
        in_use = (
            Q(pk__in=named.exclude(before=None).values("before"))
            | Q(pk__in=named.exclude(after=None).values("after"))
            | Q(
                pk__in=RevisionBlob.objects.filter(
                    project_id=project_id, base__isnull=False
                ).values("base")
            )
            # A published version keeps the texts it names (and, through a
            # binary file's marker text, its bytes: _binaries_unreferenced).
            | Q(pk__in=SiteFile.objects.filter(version__site__project_id=project_id).values("blob"))
        )
        orphans = RevisionBlob.objects.filter(project_id=project_id).exclude(in_use)
        count, _ = orphans.delete()
        if not count:
            return deleted
        deleted += count


def _binaries_unreferenced(project_id: uuid.UUID) -> QuerySet[BinaryBlob]:
    files = ProjectFile.objects.filter(project_id=project_id, content__startswith=MARKER)
    named = {digest_of(content) for content in files.values_list("content", flat=True)}
    # History names a binary file by its marker, stored as a text like any other.
    for blob in RevisionBlob.objects.filter(project_id=project_id, chars=_MARKER_CHARS):
        text = blob.text
        if is_marker(text):
            named.add(digest_of(text))
    return BinaryBlob.objects.filter(project_id=project_id).exclude(digest__in=named)


def stored_files_sweep() -> int:
    """Files under the storage's binaries folder that no blob names (older than
    the grace, so a write under way keeps its file)."""
    named = set(BinaryBlob.objects.exclude(stored_name="").values_list("stored_name", flat=True))
    cutoff = timezone.now() - _STORED_FILE_GRACE
    stale = [
        name
        for name in _stored_names()
        if name not in named and default_storage.get_modified_time(name) < cutoff
    ]
    stored_files_delete(stale)
    return len(stale)


def stored_files_delete(names: Iterable[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except OSError as error:  # a full or read-only disk: the next sweep tries again
            logger.warning("Could not delete the stored file %s: %s", name, error)


def _stored_names() -> list[str]:
    try:
        folders, _ = default_storage.listdir(STORAGE_FOLDER)
    except (FileNotFoundError, NotADirectoryError):
        return []
    names: list[str] = []
    for folder in folders:
        _, files = default_storage.listdir(f"{STORAGE_FOLDER}/{folder}")
        names += [f"{STORAGE_FOLDER}/{folder}/{name}" for name in files]
    return names
