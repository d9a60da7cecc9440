"""History's texts (RevisionBlob): stored once per project, compressed, and a
new text as the change from the text before it. A change to a page usually
touches one stretch of it, so the new text is kept as the start and end it
shares with the old (two counts) and the changed stretch between them; reading
it back rebuilds it from its base, at most MAX_DEPTH bases deep, where a whole
text is stored again. Only the file service writes blobs, inside its own
transaction (with the project's writers serialised)."""

from __future__ import annotations

import hashlib
import zlib

from projects.models import Project, RevisionBlob

MAX_DEPTH = 16
# A change sharing less than this share of its base is stored whole: rebuilding
# it through a chain would cost more than it saves.
_MIN_SHARED = 0.25
_STEP = 4096


def blob_for(
    project: Project,
    text: str | None,
    *,
    base: RevisionBlob | None = None,
    base_text: str | None = None,
) -> RevisionBlob | None:
    """The blob holding `text` in this project's history (made if new); None for
    "no file". With `base` (holding `base_text`) a new blob keeps only the change."""
    if text is None:
        return None
    raw = text.encode("utf-8", "surrogatepass")
    digest = text_digest(text)
    found = RevisionBlob.objects.filter(project=project, digest=digest).first()
    if found is not None:
        return found
    prefix = suffix = 0
    if base is not None and base_text is not None and base.depth < MAX_DEPTH:
        prefix, suffix = shared_ends(base_text, text)
        if prefix + suffix < _MIN_SHARED * len(text):
            base, prefix, suffix = None, 0, 0
    else:
        base = None
    stored = text[prefix : len(text) - suffix] if base is not None else text
    data = zlib.compress(stored.encode("utf-8", "surrogatepass"), 6)
    return RevisionBlob.objects.create(
        project=project,
        digest=digest,
        data=data,
        base=base,
        prefix=prefix,
        suffix=suffix,
        depth=0 if base is None else base.depth + 1,
        size=len(raw),
        chars=len(text),
        stored_size=len(data),
    )


def text_digest(text: str) -> str:
    """The name a text is stored under (RevisionBlob.digest): equal texts, equal digests."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def shared_ends(old: str, new: str) -> tuple[int, int]:
    """Characters `new` shares with `old` at its start and at its end, the two not
    overlapping in either text."""
    prefix = _shared_start(old, new)
    room = min(len(old), len(new)) - prefix
    suffix = _shared_start(old[::-1], new[::-1], room)
    return prefix, suffix


def _shared_start(a: str, b: str, limit: int | None = None) -> int:
    """Length of the common start, by comparing slices (memcmp in C): blocks
    first, then halves within the first block that differs."""
    end = min(len(a), len(b)) if limit is None else limit
    at = 0
    while at + _STEP <= end and a[at : at + _STEP] == b[at : at + _STEP]:
        at += _STEP
    low, high = at, min(at + _STEP, end)
    while low < high:
        middle = (low + high + 1) // 2
        if a[at:middle] == b[at:middle]:
            low = middle
        else:
            high = middle - 1
    return low
