"""The bytes of history's texts as Git blobs: each RevisionBlob (a text, or a
binary file's marker) read once, rebuilt from its bases, and hashed."""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Callable, Iterable

from dulwich.objects import Blob, ShaFile

from projects.files.binaries import blob_bytes, digest_of, is_marker
from projects.models import BinaryBlob, RevisionBlob


class BlobShas:
    """RevisionBlob id -> the Git blob sha of the file bytes it stands for; each
    new blob given to `add` once."""

    def __init__(self, project_id: uuid.UUID) -> None:
        self._project_id = project_id
        self._shas: dict[int, bytes] = {}
        self._binaries: dict[str, bytes] = {}  # BinaryBlob digest -> git sha

    def __getitem__(self, blob_id: int) -> bytes:
        return self._shas[blob_id]

    def load(self, blob_ids: Iterable[int], add: Callable[[ShaFile], None]) -> None:
        wanted = {blob_id for blob_id in blob_ids if blob_id not in self._shas}
        if not wanted:
            return
        texts = _texts(self._project_id, wanted)
        markers = {blob_id: text for blob_id, text in texts.items() if is_marker(text)}
        binaries = self._binary_shas({digest_of(text) for text in markers.values()}, add)
        for blob_id, text in texts.items():
            if blob_id in markers:
                # A binary file whose bytes are gone is an empty file, as in an export.
                self._shas[blob_id] = binaries.get(digest_of(text)) or _added(b"", add)
            else:
                self._shas[blob_id] = _added(text.encode("utf-8", "surrogatepass"), add)

    def _binary_shas(self, digests: set[str], add: Callable[[ShaFile], None]) -> dict[str, bytes]:
        missing = digests - self._binaries.keys()
        rows = BinaryBlob.objects.filter(project_id=self._project_id, digest__in=missing)
        for row in rows.iterator(chunk_size=50):
            self._binaries[row.digest] = _added(blob_bytes(row), add)
        return self._binaries


def _added(data: bytes, add: Callable[[ShaFile], None]) -> bytes:
    blob = Blob.from_string(data)
    add(blob)
    return blob.id


def _texts(project_id: uuid.UUID, wanted: set[int]) -> dict[int, str]:
    """The texts of blobs `wanted`, rebuilt from their bases (read once each)."""
    rows: dict[int, tuple[bytes, int | None, int, int]] = {}
    missing = set(wanted)
    while missing:
        found = list(
            RevisionBlob.objects.filter(project_id=project_id, pk__in=missing).values_list(
                "pk", "data", "base_id", "prefix", "suffix"
            )
        )
        for pk, data, base_id, prefix, suffix in found:
            rows[pk] = (bytes(data), base_id, prefix, suffix)
        if not found:
            break
        missing = {row[1] for row in rows.values() if row[1] is not None} - rows.keys()
    texts: dict[int, str] = {}

    def text(pk: int) -> str:
        if pk in texts:
            return texts[pk]
        data, base_id, prefix, suffix = rows[pk]
        stored = zlib.decompress(data).decode("utf-8", "surrogatepass")
        if base_id is not None:
            base = text(base_id)  # at most MAX_DEPTH deep (projects.files.blobs)
            stored = base[:prefix] + stored + base[len(base) - suffix :]
        texts[pk] = stored
        return stored

    return {pk: text(pk) for pk in wanted if pk in rows}
