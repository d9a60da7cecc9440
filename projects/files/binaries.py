"""Binary files (images, fonts, media, PDF): what they are, decided from their
bytes, and where their bytes live.

A binary file's `ProjectFile.content` (and its revisions' texts) is a marker,
`"\\ufdd0binary:<sha256>"`, naming a `BinaryBlob` of the project that holds the
bytes once. U+FDD0 is a Unicode noncharacter: no text file may begin with the
marker (projects.files.limits refuses it), so a marker is never mistaken for text
(and, unlike a NUL, PostgreSQL stores it in a text column). History, renames,
undo and restore work on binary files as on any other: they move markers.
The bytes are in the database unless BUILTIT_BINARY_STORAGE is "storage": then
Django's default storage (a folder, or an S3-compatible store through
django-storages) keeps them.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from projects.files.media.fonts import font_checked
from projects.files.media.images import image_checked
from projects.files.media.pdf import pdf_checked
from projects.files.media.results import BinaryRefused, Sniffed
from projects.files.media.signatures import sniff
from projects.files.media.video import mp4_checked, webm_checked
from projects.files.paths import BINARY_EXTENSIONS, CONTENT_TYPES
from projects.models import BinaryBlob, Project

__all__ = ["BinaryRefused", "Sniffed", "checked", "sniff"]

MARKER = "\ufdd0binary:"
# Where the bytes go in Django's storage: STORAGE_FOLDER/<project id>/<digest>.
STORAGE_FOLDER = "binaries"

# Extension -> the content type its bytes must show (the one list: projects.files.paths).
BINARY_TYPES: dict[str, str] = {ext: CONTENT_TYPES[ext] for ext in BINARY_EXTENSIONS}
_NAMES = {
    "image/png": "a PNG image",
    "image/jpeg": "a JPEG image",
    "image/gif": "a GIF image",
    "image/webp": "a WebP image",
    "image/avif": "an AVIF image",
    "image/x-icon": "an icon (ICO)",
    "font/woff": "a WOFF font",
    "font/woff2": "a WOFF2 font",
    "font/ttf": "a TrueType font",
    "font/otf": "an OpenType font",
    "application/pdf": "a PDF document",
    "video/mp4": "an MP4 video",
    "video/webm": "a WebM video",
}
# How each type is checked whole (projects.files.media): the first bytes only say what a
# file claims to be.
_CHECKS: dict[str, Callable[[str, bytes], Sniffed | BinaryRefused]] = {
    **dict.fromkeys(
        ("image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/x-icon"),
        image_checked,
    ),
    **dict.fromkeys(("font/woff", "font/woff2", "font/ttf", "font/otf"), font_checked),
    "application/pdf": lambda _type, data: pdf_checked(data),
    "video/mp4": lambda _type, data: mp4_checked(data),
    "video/webm": lambda _type, data: webm_checked(data),
}


def is_marker(content: str) -> bool:
    return content.startswith(MARKER)


def marker_for(digest: str) -> str:
    return MARKER + digest


def digest_of(marker: str) -> str:
    return marker[len(MARKER) :]


def type_name(content_type: str) -> str:
    return _NAMES.get(content_type, content_type)


def checked(path: str, extension: str, data: bytes) -> Sniffed | BinaryRefused:
    """What `data` is, if it is what `path`'s extension says it is and whole: its
    first bytes must say so (cheap), then its structure (projects.files.media)."""
    expected = BINARY_TYPES.get(extension)
    if expected is None:
        return BinaryRefused(f"{path}: '.{extension}' is not a binary file type Built-It keeps.")
    if not data:
        return BinaryRefused(f"{path} is empty.")
    found = sniff(data)
    if found is None:
        return BinaryRefused(
            f"{path} is not {type_name(expected)}: its content is not a file type "
            "Built-It keeps (or the file is damaged)."
        )
    if found != expected:
        return BinaryRefused(
            f"{path} is named like {type_name(expected)} but its content is "
            f"{type_name(found)}. Rename it to match what it is."
        )
    whole = _CHECKS[expected](expected, data)
    if isinstance(whole, BinaryRefused):
        return BinaryRefused(f"{path}: {whole.message}")
    return whole


# --- where the bytes live -----------------------------------------------------------


def bytes_digest(data: bytes) -> str:
    """The name bytes are stored under (BinaryBlob.digest)."""
    return hashlib.sha256(data).hexdigest()


# The names saved in Django's storage within `storage_written()`: a transaction
# rolled back cannot take them back, so whoever rolls it back deletes them.
_written: ContextVar[list[str] | None] = ContextVar("builtit_storage_written", default=None)


@contextmanager
def storage_written() -> Iterator[list[str]]:
    """The names `blob_store` saves in Django's storage while it is open; those
    left in the list when it closes go on to an enclosing one."""
    names: list[str] = []
    token = _written.set(names)
    try:
        yield names
    finally:
        _written.reset(token)
        outer = _written.get()
        if outer is not None:
            outer.extend(names)


def blob_store(project: Project, data: bytes, sniffed: Sniffed, *, digest: str) -> BinaryBlob:
    """The project's blob for `data` (whose `bytes_digest` is `digest`), made if
    new (identical uploads are kept once)."""
    found = BinaryBlob.objects.filter(project=project, digest=digest).first()
    if found is not None:
        return found
    in_storage = settings.BUILTIT_BINARY_STORAGE == "storage"
    name = ""
    if in_storage:
        name = default_storage.save(f"{STORAGE_FOLDER}/{project.pk}/{digest}", ContentFile(data))
        written = _written.get()
        if written is not None:
            written.append(name)
    return BinaryBlob.objects.create(
        project=project,
        digest=digest,
        size=len(data),
        content_type=sniffed.content_type,
        width=sniffed.width,
        height=sniffed.height,
        data=None if in_storage else data,
        stored_name=name,
    )


def blob_for_marker(project: Project | uuid.UUID, marker: str) -> BinaryBlob | None:
    project_id = project.pk if isinstance(project, Project) else project
    return BinaryBlob.objects.filter(project_id=project_id, digest=digest_of(marker)).first()


def blob_bytes(blob: BinaryBlob) -> bytes:
    if blob.data is not None:
        return bytes(blob.data)
    with default_storage.open(blob.stored_name, "rb") as stored:
        return bytes(stored.read())
