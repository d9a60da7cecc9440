"""What a published site's address answers, read through caches that never need
invalidating: a version never changes (its index is keyed by its id and the
moment it was made, as a database may give a deleted row's id again), and a
file's bytes are keyed by their digest. Only which version is live changes,
and that is read on each request.

Both caches are bounded (a version's index by count, bytes by total size) and
shared by the process's threads; at most four files are read at once."""

from __future__ import annotations

import gzip
import re
import sys
import threading
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from common.kept import Kept
from projects.files.binaries import blob_bytes, blob_for_marker, is_marker
from projects.files.paths import content_type_for
from projects.models import RevisionBlob, SiteFile

MAX_CACHED_BYTES = 64 * 1024 * 1024
_COMPRESSIBLE = re.compile(
    r"text/|application/(?:javascript|json|xml|manifest\+json)|image/svg\+xml"
)
_MIN_GZIP = 512  # bytes: below this gzip's own header costs more than it saves


@dataclass(frozen=True)
class Content:
    data: bytes
    content_type: str
    digest: str
    gzipped: bytes | None

    @property
    def weight(self) -> int:
        return len(self.data) + len(self.gzipped or b"")


@dataclass(frozen=True)
class Stored:
    blob_id: int
    digest: str


@lru_cache(maxsize=512)
def version_index(version_id: int, made: datetime) -> dict[str, Stored]:
    """The version's paths, each with the text it holds."""
    rows = SiteFile.objects.filter(version_id=version_id).values_list(
        "path", "blob_id", "blob__digest"
    )
    return {path: Stored(blob_id, digest) for path, blob_id, digest in rows}


def content_of(stored: Stored, path: str) -> Content | None:
    """The bytes `path` serves, from its stored text (a binary file's marker
    names its bytes); None if they are gone."""
    key = (stored.digest, path.rsplit(".", 1)[-1].lower())
    found = _CACHE.get(key)
    if found is not None:
        return found
    # A file read whole, even for one byte of a range: so few at once that a
    # stranger asking for many large files cannot make the process hold them all.
    with _READING:
        made = _read(stored.blob_id, path)
    if made is not None:
        _CACHE.put(key, made)
    return made


def _read(blob_id: int, path: str) -> Content | None:
    blob = RevisionBlob.objects.filter(pk=blob_id).first()
    if blob is None:
        return None
    text = blob.text
    if is_marker(text):
        stored = blob_for_marker(blob.project_id, text)
        if stored is None:
            return None
        data, content_type = blob_bytes(stored), stored.content_type
    else:
        data, content_type = text.encode("utf-8", "surrogatepass"), content_type_for(path)
    return Content(data, content_type, blob.digest, gzip_of(data, content_type))


# The largest file a site may hold (10 MiB) is kept, and asked for again served
# from here; one bigger than a quarter of the room is not (common.kept).
_CACHE: Kept[tuple[str, str], Content] = Kept(
    count=sys.maxsize, limit=MAX_CACHED_BYTES, weight=lambda content: content.weight
)
_READING = threading.BoundedSemaphore(4)


def gzip_of(data: bytes, content_type: str) -> bytes | None:
    """`data` gzipped, if its type compresses and it is worth it; else None."""
    if len(data) < _MIN_GZIP or not _COMPRESSIBLE.match(content_type):
        return None
    packed = gzip.compress(data, compresslevel=6, mtime=0)
    return packed if len(packed) < len(data) else None
