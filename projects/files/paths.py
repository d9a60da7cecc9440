"""The rules for project file paths (DESIGN §3), and the only place they live.

Every entry point (tools, editor, import, admin, preview) turns untrusted
input into a canonical path with `normalize_path`. Input may omit the leading
slash; nothing else is ever "fixed": a path that breaks a rule is refused
with a message that says which rule and how to comply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

ALLOWED_EXTENSIONS: Final = (
    "html",
    "htm",
    "css",
    "js",
    "mjs",
    "json",
    "svg",
    "txt",
    "md",
    "xml",
    "webmanifest",
    # Binary files: uploaded, never written as text (projects.files.binaries).
    "png",
    "jpg",
    "jpeg",
    "gif",
    "webp",
    "avif",
    "ico",
    "woff",
    "woff2",
    "ttf",
    "otf",
    "pdf",
    "mp4",
    "webm",
)
TEXT_EXTENSIONS: Final = ALLOWED_EXTENSIONS[: ALLOWED_EXTENSIONS.index("png")]
BINARY_EXTENSIONS: Final = ALLOWED_EXTENSIONS[len(TEXT_EXTENSIONS) :]
MAX_DEPTH: Final = 8
MAX_LENGTH: Final = 200

CONTENT_TYPES: Final = {
    "html": "text/html; charset=utf-8",
    "htm": "text/html; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "mjs": "text/javascript; charset=utf-8",
    "json": "application/json; charset=utf-8",
    "svg": "image/svg+xml; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "xml": "application/xml; charset=utf-8",
    "webmanifest": "application/manifest+json; charset=utf-8",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "avif": "image/avif",
    "ico": "image/x-icon",
    "woff": "font/woff",
    "woff2": "font/woff2",
    "ttf": "font/ttf",
    "otf": "font/otf",
    "pdf": "application/pdf",
    "mp4": "video/mp4",
    "webm": "video/webm",
}

_SEGMENT = re.compile(r"[A-Za-z0-9._-]+")
# Names Windows refuses to create; an exported ZIP must unpack anywhere.
_RESERVED_STEMS: Final = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(1, 10)}
    | {f"lpt{i}" for i in range(1, 10)}
)


@dataclass(frozen=True)
class PathError:
    """A refused path: `message` is written for a person and for a model alike,
    unless `shown` gives a person other words.

    `path` is the input as given (cut to a sane length), for context only."""

    path: str
    message: str
    shown: str = ""


def allowed_extensions_text() -> str:
    return ", ".join(f".{ext}" for ext in ALLOWED_EXTENSIONS)


def normalize_path(raw: object) -> str | PathError:
    """Return the canonical form `/dir/name.ext`, or the rule `raw` breaks."""
    if not isinstance(raw, str):
        return PathError(str(raw), "A file path must be text, like /index.html.")
    shown = _printable(raw)
    kept = raw[: MAX_LENGTH + 20]
    if raw in {"", "/"}:
        return PathError(
            kept,
            "The path is empty: give a file path such as /index.html.",
            shown="No file was named.",
        )
    problem = _character_problem(raw)
    if problem:
        return PathError(kept, f"Invalid path {shown}: {problem}.")
    path = raw if raw.startswith("/") else "/" + raw
    problem = _structure_problem(path)
    if problem:
        return PathError(kept, f"Invalid path {shown}: {problem}.")
    return path


def extension_of(path: str) -> str:
    """The lower-cased extension of a canonical path."""
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[-1].lower()


def is_binary_path(path: str) -> bool:
    """Whether files at `path` hold bytes (an image, a font…), not text."""
    return extension_of(path) in BINARY_EXTENSIONS


def content_type_for(path: str) -> str:
    return CONTENT_TYPES.get(extension_of(path), "application/octet-stream")


def parent_folders(path: str) -> list[str]:
    """`/a/b/c.html` -> `["/a", "/a/b"]`: the folders a canonical path implies."""
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def _printable(raw: str) -> str:
    # repr() escapes control characters so messages never carry them raw.
    text = raw if len(raw) <= MAX_LENGTH + 20 else raw[: MAX_LENGTH + 20] + "…"
    return repr(text)


def _character_problem(raw: str) -> str | None:
    if "\x00" in raw or any(ord(ch) < 32 or ord(ch) == 127 for ch in raw):
        return "it contains control characters"
    if "\\" in raw:
        return "use / to separate folders, not \\"
    if not raw.isascii():
        return (
            "only ASCII letters, digits, '.', '_' and '-' are allowed in names "
            "(it contains non-ASCII characters)"
        )
    if len(raw if raw.startswith("/") else "/" + raw) > MAX_LENGTH:
        return f"it is longer than {MAX_LENGTH} characters"
    return None


def _structure_problem(path: str) -> str | None:
    segments = path[1:].split("/")
    if len(segments) > MAX_DEPTH:
        return f"it is nested deeper than {MAX_DEPTH} levels"
    for segment in segments:
        problem = _segment_problem(segment)
        if problem:
            return problem
    return _extension_problem(segments[-1])


# Each folder or file name is checked against these in order; the first that
# fails names the problem. (A check, then the message for `segment`.)
_SEGMENT_RULES: Final[tuple[tuple[Callable[[str], bool], Callable[[str], str]], ...]] = (
    (
        lambda seg: seg != "",
        lambda seg: "it has an empty folder or file name (a doubled or trailing '/')",
    ),
    (
        lambda seg: seg not in {".", ".."},
        lambda seg: "'.' and '..' are not allowed; paths are always from the project root",
    ),
    (
        lambda seg: not seg.startswith("."),
        lambda seg: f"hidden names starting with '.' are not allowed ({seg!r})",
    ),
    (
        lambda seg: _SEGMENT.fullmatch(seg) is not None,
        lambda seg: (
            f"{seg!r} may only contain ASCII letters, digits, '.', '_' and '-' "
            "(no spaces or other symbols)"
        ),
    ),
    # Windows drops a trailing dot when unpacking, so an export would change names.
    (lambda seg: not seg.endswith("."), lambda seg: f"{seg!r} may not end with '.'"),
    (
        lambda seg: seg.split(".", 1)[0].lower() not in _RESERVED_STEMS,
        lambda seg: f"{seg!r} is a reserved device name on Windows",
    ),
)


def _segment_problem(segment: str) -> str | None:
    for holds, message in _SEGMENT_RULES:
        if not holds(segment):
            return message(segment)
    return None


def _extension_problem(name: str) -> str | None:
    if "." not in name:
        return f"the file name needs an extension; allowed: {allowed_extensions_text()}"
    extension = name.rsplit(".", 1)[1].lower()
    if extension not in ALLOWED_EXTENSIONS:
        return f"'.{extension}' files are not allowed; allowed: {allowed_extensions_text()}"
    return None
