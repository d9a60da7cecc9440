"""What a run of revisions did to a project's files, file by file, net.

A turn (or an undo) may create a file, edit it twice and rename it: as a change
that is one file, from nothing to its last text at its last path. Files are
followed through renames; a file deleted and another created at the same path
are two changes. Texts stay in their blobs until someone asks (`texts`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from django.core.cache import cache

from projects.history.diffs import LineCounts, line_counts
from projects.models import FileRevision, RevisionBlob

Action = Literal["created", "edited", "renamed", "deleted"]
_ORDER = {"deleted": 0, "renamed": 1, "edited": 2, "created": 3}
_COUNTS_KEPT = 7 * 24 * 3600  # seconds a change's line counts stay cached


@dataclass
class FileChange:
    start_path: str | None  # where the file was before; None: it did not exist
    end_path: str | None  # where it is after; None: deleted
    before_id: int | None  # the blob of its text before
    after_id: int | None  # and after
    revision_ids: list[int] = field(default_factory=list)

    @property
    def path(self) -> str:
        """Where to find it: its path after, or before for a deleted file."""
        path = self.end_path or self.start_path
        assert path is not None
        return path

    @property
    def action(self) -> Action:
        if self.start_path is None:
            return "created"
        if self.end_path is None:
            return "deleted"
        return "renamed" if self.start_path != self.end_path else "edited"

    @property
    def text_changed(self) -> bool:
        return self.before_id != self.after_id

    @property
    def is_noop(self) -> bool:
        return self.start_path == self.end_path and self.before_id == self.after_id


def net_changes(revisions: Iterable[FileRevision]) -> list[FileChange]:
    """The net change to each file of `revisions` (read in id order), those that
    cancel out left out; deletions first, then renames, edits, creations."""
    live: dict[str, FileChange] = {}
    ended: list[FileChange] = []
    for revision in sorted(revisions, key=lambda row: row.pk):
        action = revision.action
        if action == FileRevision.Action.CREATE:
            live[revision.path] = FileChange(None, revision.path, None, revision.after_id)
        elif action == FileRevision.Action.RENAME:
            change = _taken(live, revision.old_path) or _untouched(revision, revision.old_path)
            change.end_path = revision.path
            change.after_id = revision.after_id
            live[revision.path] = change
        elif action == FileRevision.Action.DELETE:
            change = _taken(live, revision.path) or _untouched(revision, revision.path)
            change.end_path, change.after_id = None, None
            ended.append(change)
        else:
            change = live.get(revision.path) or _untouched(revision, revision.path)
            change.after_id = revision.after_id
            live[revision.path] = change
        (live.get(revision.path) or ended[-1]).revision_ids.append(revision.pk)
    changes = [change for change in [*ended, *live.values()] if not change.is_noop]
    return sorted(changes, key=lambda change: (_ORDER[change.action], change.path))


def _taken(live: dict[str, FileChange], path: str) -> FileChange | None:
    return live.pop(path) if path in live else None


def _untouched(revision: FileRevision, path: str) -> FileChange:
    """A file the run had not touched yet, as it stood before this revision."""
    return FileChange(path, path, revision.before_id, revision.before_id)


def texts(blob_ids: Iterable[int | None]) -> dict[int, str]:
    """The texts of these blobs, by id."""
    wanted = {blob_id for blob_id in blob_ids if blob_id is not None}
    blobs = RevisionBlob.objects.filter(pk__in=wanted).select_related("base")
    return {blob.pk: blob.text for blob in blobs}


def counts_of(change: FileChange) -> LineCounts | None:
    """Lines added and removed by a change. Cached by the texts' digests, which
    name the texts themselves, so an entry is never stale (even if a database
    is rebuilt under a cache that outlives it)."""
    ids = [blob_id for blob_id in (change.before_id, change.after_id) if blob_id is not None]
    digests = dict(RevisionBlob.objects.filter(pk__in=ids).values_list("pk", "digest"))
    key = "builtit:linecounts:" + ":".join(
        digests.get(blob_id, "") if blob_id is not None else "-"
        for blob_id in (change.before_id, change.after_id)
    )
    cached = cache.get(key)
    if isinstance(cached, tuple) and len(cached) == 2:
        return LineCounts(*cached)
    found = texts(ids)
    counts = line_counts(
        found.get(change.before_id) if change.before_id is not None else None,
        found.get(change.after_id) if change.after_id is not None else None,
    )
    if counts is not None:
        cache.set(key, (counts.added, counts.removed), timeout=_COUNTS_KEPT)
    return counts
