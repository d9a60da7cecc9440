"""Which stored file an address of a site names, as a static host answers it:
the file itself; a folder's `index.html` (`/blog/`); a page without its
extension (`/about` for `/about.html`, as GitHub Pages and Netlify do). The
pre-publish check reads links with this rule, and so will the server, so the
two never disagree about what a link reaches."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

INDEX = "index.html"
# Where a site's forms post on its own host (`<form action="/_forms/contact">`):
# an address the server answers for every site, never one of its files.
_FORM_ENDPOINT = re.compile(r"/_forms/[A-Za-z0-9_-]{1,40}/?")


@dataclass(frozen=True)
class Found:
    path: str  # the stored file
    folder: bool = False  # a folder named without its slash: a host redirects to `path`'s folder


def file_for(address: str, paths: Collection[str]) -> Found | None:
    """The stored file `address` (a path from the site's root, `/...`, already
    decoded) serves among `paths`, or None."""
    if address.endswith("/"):
        index = address + INDEX
        return Found(index) if index in paths else None
    if address in paths:
        return Found(address)
    if address + ".html" in paths:
        return Found(address + ".html")
    if address + "/" + INDEX in paths:
        return Found(address + "/" + INDEX, folder=True)
    return None


def link_target(page: str, reference: str) -> str | None:
    """The site address `reference`, found in the file at `page`, points to,
    decoded and without its query or fragment; None for what is not a file of
    this site (another site, `mailto:`, a fragment of the same page, data:)."""
    raw = _server_path(reference)
    if raw is None:
        return None
    path = unquote(raw)
    if not path.startswith("/"):
        path = page.rsplit("/", 1)[0] + "/" + path
    return _resolved(path)


def leaves_site(page: str, reference: str) -> bool:
    """Whether `reference`, in the file at `page`, points above the site's own
    root: written from the server's root (`/app.js`), or climbing out with
    `..`. At the site's address (`/s/<name>/`) and in its preview, that is
    somewhere else on the sites origin, never a file of this site."""
    raw = _server_path(reference)
    if raw is None:
        return False
    if raw.startswith("/"):
        return True
    depth = page.count("/") - 1  # folders between the site's root and the page
    segments = unquote(raw).split("/")
    for number, segment in enumerate(segments):
        if segment == "..":
            depth -= 1
        elif segment not in {"", "."} and number < len(segments) - 1:
            depth += 1  # a folder (the last segment names a file)
        if depth < 0:
            return True
    return False


def is_form_endpoint(reference: str) -> bool:
    """Whether `reference` (a form's action) is a site's form endpoint."""
    return _FORM_ENDPOINT.fullmatch(reference.strip()) is not None


def _server_path(reference: str) -> str | None:
    """The path (undecoded, without query or fragment) of a reference to this
    server; None for another server, another scheme or a fragment alone."""
    text = reference.strip()
    if not text or text.startswith(("#", "//")):
        return None
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    if parts.scheme or parts.netloc or not parts.path:
        return None
    return parts.path


def _resolved(path: str) -> str:
    """`path` with `.` and `..` segments taken out, as a browser does: a `..`
    at the root stays there."""
    kept: list[str] = []
    segments = path.split("/")[1:]
    for number, segment in enumerate(segments):
        last = number == len(segments) - 1
        if segment == "..":
            if kept:
                kept.pop()
            if last:
                kept.append("")
        elif segment == ".":
            if last:
                kept.append("")
        else:
            kept.append(segment)
    return "/" + "/".join(kept)
