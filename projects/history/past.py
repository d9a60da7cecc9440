"""The project's files as they were, to show them before anything is restored
("see it as it was": the preview of an earlier turn or of one file's version,
projects.views.preview_past). Nothing here writes.

Two kinds of past: the whole project right after a revision (what "Restore the
project to here" brings back), and today's files with one file as a revision
left it (what a file's Restore brings back).

What the files were right after a revision never changes (revisions are only
ever added, each with a larger id), so a point's index is cached, keyed by the
project and its own newest revision at or before the point: a few dozen
indexes of a few hundred paths at most. The texts themselves are read and
cached by content (projects.publish.serving).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from types import MappingProxyType

from projects.history.undo import state_at
from projects.models import FileRevision, RevisionBlob

_CACHED_POINTS = 32


@dataclass(frozen=True)
class PastText:
    blob_id: int
    digest: str


@dataclass(frozen=True)
class PastFile:
    """One file as a revision left it (as it was before a deletion): its path,
    and its text, None when it was empty."""

    path: str
    text: PastText | None
    created_at: datetime


def past_files(*, project_id: uuid.UUID, point: int) -> Mapping[str, PastText]:
    """Every file of the project right after revision `point` (any number: the
    project's newest revision at or before it counts), by path."""
    settled = (
        FileRevision.objects.filter(project_id=project_id, pk__lte=point)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )
    return _index(project_id, settled or 0)


def past_version(*, project_id: uuid.UUID, revision_id: int) -> PastFile | None:
    """The file revision `revision_id` of the project left, as its Restore
    writes it back (projects.history.revisions.file_restore); None if the
    project has no such revision."""
    row = (
        FileRevision.objects.filter(project_id=project_id, pk=revision_id)
        .values_list("path", "action", "before_id", "after_id", "created_at")
        .first()
    )
    if row is None:
        return None
    path, action, before_id, after_id, created_at = row
    blob_id = before_id if action == FileRevision.Action.DELETE else after_id
    digest = RevisionBlob.objects.filter(pk=blob_id).values_list("digest", flat=True).first()
    return PastFile(path, PastText(blob_id, digest) if blob_id and digest else None, created_at)


@lru_cache(maxsize=_CACHED_POINTS)
def _index(project_id: uuid.UUID, point: int) -> Mapping[str, PastText]:
    if not point:
        return MappingProxyType({})
    state = state_at(project_id, point)
    wanted = {blob_id for blob_id in state.values() if blob_id is not None}
    digests = dict(RevisionBlob.objects.filter(pk__in=wanted).values_list("pk", "digest"))
    return MappingProxyType(
        {
            path: PastText(blob_id, digests[blob_id])
            for path, blob_id in state.items()
            if blob_id is not None and blob_id in digests
        }
    )
