"""What each published version holds, in words, for the Publish dialog's list of
versions: the requests of the turns since the version before (the turns whose
changes it is the first to publish) and the files it added, changed and removed
against the version before.

Turns are chat's, and projects does not know chat: the app that keeps them
registers a reader here when it is ready (`turns_reader_register`); without
one, versions say what files changed and nothing of requests.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from common.text import plain_excerpt
from projects.models import Site, SiteFile, SiteVersion

REQUESTS_SHOWN = 3
NAMES_SHOWN = 3  # of the files of one kind of change
_REQUEST_CHARS = 70


@dataclass(frozen=True)
class TurnRequest:
    text: str  # the person's request, as written (its start is enough)
    at: datetime  # when its turn last changed a file


# (project id, after, until): the requests of the turns that changed the
# project's files after `after` (None: from the start) up to `until`.
TurnsReader = Callable[[uuid.UUID, datetime | None, datetime], list[TurnRequest]]
_readers: list[TurnsReader] = []


def turns_reader_register(reader: TurnsReader) -> None:
    if reader not in _readers:
        _readers.append(reader)


@dataclass(frozen=True)
class FilesChanged:
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]

    def said(self) -> str:
        """ "2 changed: index.html, styles.css · 1 added: about.html"."""
        parts = [
            f"{len(paths)} {kind}: {_names(paths)}"
            for kind, paths in (
                ("changed", self.changed),
                ("added", self.added),
                ("removed", self.removed),
            )
            if paths
        ]
        return " · ".join(parts)


@dataclass(frozen=True)
class VersionNote:
    version: SiteVersion
    requests: tuple[str, ...]  # the first REQUESTS_SHOWN, each cut short
    more_requests: int
    files: FilesChanged | None  # None: no version before it is kept to compare with
    before: int | None  # the number of the version before

    @property
    def files_said(self) -> str:
        if self.files is None:
            return f"{self.version.file_count} file{'s' if self.version.file_count != 1 else ''}."
        if self.before is None:
            return f"First version: {_names(self.files.added)}."
        said = self.files.said()
        if not said:
            return f"The same files as version {self.before}."
        return said + "."


def version_notes(site: Site, versions: Sequence[SiteVersion]) -> list[VersionNote]:
    """A note for each of `versions` (newest first, as the dialog lists them)."""
    if not versions:
        return []
    oldest = versions[-1]
    earlier = site.versions.filter(number__lt=oldest.number).order_by("-number").first()
    chain = [*versions, *([earlier] if earlier is not None else [])]
    files = _files_of(version.pk for version in chain)
    # Version 1 holds every turn before it; after one no longer kept, which is unknown.
    known = earlier is not None or oldest.number == 1
    start = earlier.created_at if earlier is not None else None
    requests = _requests(site.project_id, start, versions[0].created_at) if known else []
    notes = []
    for index, version in enumerate(versions):
        before = chain[index + 1] if index + 1 < len(chain) else None
        since = before.created_at if before is not None else None
        asked = [r.text for r in requests if _between(r.at, since, version.created_at)]
        asked = list(dict.fromkeys(asked))  # the same words twice, once
        notes.append(
            VersionNote(
                version=version,
                requests=tuple(asked[:REQUESTS_SHOWN]),
                more_requests=max(len(asked) - REQUESTS_SHOWN, 0),
                files=_files_changed(version, before, files),
                before=before.number if before is not None else None,
            )
        )
    return notes


def _between(at: datetime, after: datetime | None, until: datetime) -> bool:
    return (after is None or at > after) and at <= until


def _files_changed(
    version: SiteVersion, before: SiteVersion | None, files: Mapping[int, Mapping[str, str]]
) -> FilesChanged | None:
    if before is not None:
        return _compared(files.get(before.pk, {}), files.get(version.pk, {}))
    if version.number == 1:  # everything it holds is new
        return FilesChanged(tuple(sorted(files.get(version.pk, {}))), (), ())
    return None


def _requests(project_id: uuid.UUID, after: datetime | None, until: datetime) -> list[TurnRequest]:
    found = [request for reader in _readers for request in reader(project_id, after, until)]
    shown = [TurnRequest(_short(request.text), request.at) for request in found]
    return sorted((request for request in shown if request.text), key=lambda r: r.at)


def _short(text: str) -> str:
    """A request's first line, as one short line of plain text."""
    line = next((line for line in text.splitlines() if line.strip()), "")
    return plain_excerpt(line, _REQUEST_CHARS)


def _files_of(version_ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """Each version's paths, with the digest of what each holds."""
    files: dict[int, dict[str, str]] = {}
    rows = SiteFile.objects.filter(version_id__in=list(version_ids)).values_list(
        "version_id", "path", "blob__digest"
    )
    for version_id, path, digest in rows:
        files.setdefault(version_id, {})[path] = digest
    return files


def _compared(before: Mapping[str, str], after: Mapping[str, str]) -> FilesChanged:
    return FilesChanged(
        added=tuple(sorted(after.keys() - before.keys())),
        changed=tuple(sorted(p for p in after.keys() & before.keys() if after[p] != before[p])),
        removed=tuple(sorted(before.keys() - after.keys())),
    )


def _names(paths: Sequence[str]) -> str:
    shown = ", ".join(path.lstrip("/") for path in paths[:NAMES_SHOWN])
    more = len(paths) - NAMES_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown
