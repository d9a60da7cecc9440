"""Binary files (images, fonts, media, PDF): what they are, decided from their
bytes, and where their bytes live.

A binary file's `ProjectFile.content` (and its revisions' texts) is a marker,
`"\\ufdd0binary:<sha256>"`, naming a `BinaryBlob` of the project that holds the
bytes once. U+FDD0 is a Unicode noncharacter: no text file may begin with the
marker (projects.limits refuses it), so a marker is never mistaken for text
(and, unlike a NUL, PostgreSQL stores it in a text column). History, renames,
undo and restore work on binary files as on any other: they move markers.
The bytes are in the database unless BUILTIT_BINARY_STORAGE is "storage": then
Django's default storage (a folder, or an S3-compatible store through
django-storages) keeps them.
"""

from __future__ import annotations

import hashlib
import struct
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from projects.models import BinaryBlob, Project
from projects.paths import BINARY_EXTENSIONS, CONTENT_TYPES

MARKER = "\ufdd0binary:"
# Where the bytes go in Django's storage: STORAGE_FOLDER/<project id>/<digest>.
STORAGE_FOLDER = "binaries"
MAX_PIXELS = 100_000_000  # an image declaring more is refused (a decompression bomb)

# Extension -> the content type its bytes must show (the one list: projects.paths).
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


@dataclass(frozen=True)
class Sniffed:
    content_type: str
    width: int | None = None
    height: int | None = None


@dataclass(frozen=True)
class BinaryProblem:
    message: str


def is_marker(content: str) -> bool:
    return content.startswith(MARKER)


def marker_for(digest: str) -> str:
    return MARKER + digest


def digest_of(marker: str) -> str:
    return marker[len(MARKER) :]


def type_name(content_type: str) -> str:
    return _NAMES.get(content_type, content_type)


def checked(path: str, extension: str, data: bytes) -> Sniffed | BinaryProblem:
    """What `data` is, if it is what `path`'s extension says it is and whole."""
    expected = BINARY_TYPES.get(extension)
    if expected is None:
        return BinaryProblem(f"{path}: '.{extension}' is not a binary file type Built-It keeps.")
    if not data:
        return BinaryProblem(f"{path} is empty.")
    found = sniff(data)
    if found is None:
        return BinaryProblem(
            f"{path} is not {type_name(expected)}: its content is not a file type "
            "Built-It keeps (or the file is damaged)."
        )
    if isinstance(found, BinaryProblem):
        return BinaryProblem(f"{path}: {found.message}")
    if found.content_type != expected:
        return BinaryProblem(
            f"{path} is named like {type_name(expected)} but its content is "
            f"{type_name(found.content_type)}. Rename it to match what it is."
        )
    return found


def sniff(data: bytes) -> Sniffed | BinaryProblem | None:
    """The type of `data` from its first bytes (and, for images, that it is whole)."""
    for check in (_png, _jpeg, _gif, _webp, _others):
        found = check(data)
        if found is not None:
            return found
    return None


def _png(data: bytes) -> Sniffed | BinaryProblem | None:
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    if len(data) < 33 or data[12:16] != b"IHDR":
        return BinaryProblem("the PNG image is cut short (no header).")
    if not data.rstrip(b"\x00").endswith(b"IEND\xaeB`\x82"):
        return BinaryProblem("the PNG image is cut short (it does not end).")
    width, height = struct.unpack(">II", data[16:24])
    return _image("image/png", width, height)


def _jpeg(data: bytes) -> Sniffed | BinaryProblem | None:
    if not data.startswith(b"\xff\xd8\xff"):
        return None
    if not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        return BinaryProblem("the JPEG image is cut short (it does not end).")
    at = 2
    while at + 9 < len(data):  # segments up to the frame header, which has the size
        if data[at] != 0xFF:
            break
        marker = data[at + 1]
        length = struct.unpack(">H", data[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return _image("image/jpeg", width, height)
        at += 2 + length
    return Sniffed("image/jpeg")


def _gif(data: bytes) -> Sniffed | BinaryProblem | None:
    if not data.startswith((b"GIF87a", b"GIF89a")):
        return None
    if len(data) < 14 or not data.rstrip(b"\x00").endswith(b";"):
        return BinaryProblem("the GIF image is cut short.")
    width, height = struct.unpack("<HH", data[6:10])
    return _image("image/gif", width, height)


def _webp(data: bytes) -> Sniffed | BinaryProblem | None:
    if not (data.startswith(b"RIFF") and data[8:12] == b"WEBP"):
        return None
    declared = struct.unpack("<I", data[4:8])[0]
    if declared + 8 > len(data) or len(data) < 30:
        return BinaryProblem("the WebP image is cut short.")
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
    elif chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        width, height = 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    elif chunk == b"VP8 ":
        width = struct.unpack("<H", data[26:28])[0] & 0x3FFF
        height = struct.unpack("<H", data[28:30])[0] & 0x3FFF
    else:
        return Sniffed("image/webp")
    return _image("image/webp", width, height)


def _others(data: bytes) -> Sniffed | None:
    head = data[:16]
    if head[4:12] in (b"ftypavif", b"ftypavis"):
        return Sniffed("image/avif")
    if head[4:8] == b"ftyp":
        return Sniffed("video/mp4")
    signatures = (
        (b"\x00\x00\x01\x00", "image/x-icon"),
        (b"wOFF", "font/woff"),
        (b"wOF2", "font/woff2"),
        (b"\x00\x01\x00\x00", "font/ttf"),
        (b"true", "font/ttf"),
        (b"OTTO", "font/otf"),
        (b"%PDF-", "application/pdf"),
        (b"\x1a\x45\xdf\xa3", "video/webm"),
    )
    for signature, content_type in signatures:
        if head.startswith(signature):
            return Sniffed(content_type)
    return None


def _image(content_type: str, width: int, height: int) -> Sniffed | BinaryProblem:
    if width <= 0 or height <= 0:
        return BinaryProblem("the image says it has no size.")
    if width * height > MAX_PIXELS:
        return BinaryProblem(
            f"the image says it is {width:,} by {height:,} pixels, too large to show safely."
        )
    return Sniffed(content_type, width, height)


# --- where the bytes live -----------------------------------------------------------


def bytes_digest(data: bytes) -> str:
    """The name bytes are stored under (BinaryBlob.digest)."""
    return hashlib.sha256(data).hexdigest()


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
