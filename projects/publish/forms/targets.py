"""Where a form was sent: a published site (at its own host or at `/s/<name>/`)
or a project's preview, and what the answer needs to know of it: its pages
(for `_next` and `/thanks.html`) and the language they are written in."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Protocol

from projects.files.paths import PathError, normalize_path
from projects.live_previews import OpenPreview, preview_file
from projects.publish.addresses import file_for
from projects.publish.live_sites import LiveSite
from projects.publish.serving import content_of, version_index

THANKS_PAGE = "/thanks.html"
_LANG = re.compile(rb"<html\b[^>]*?\blang\s*=\s*[\"']?([A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*)", re.I)
_HEAD_BYTES = 4096  # where a page's <html lang> is looked for


class Pages(Protocol):
    def page_for(self, address: str) -> str | None:
        """The stored file `address` (from the site's root) serves, if any."""

    def html(self, path: str) -> bytes | None: ...


@dataclass(frozen=True)
class Target:
    project_id: uuid.UUID
    key: str  # for the bounds: one site (or preview) as one
    prefix: str  # the site's root on this host: "/", "/s/<name>/", "/preview/<token>/"
    name: str  # what the visitor knows it as
    test: bool  # the preview: kept as a test, never mailed
    shared: bool  # pages run in an opaque origin here (their Origin is "null")
    pages: Pages = field(compare=False)

    def language(self, page: str) -> str:
        """The `lang` of the page a form was sent from (else the home page's); "en"."""
        for path in (self.pages.page_for(page) if page else None, "/index.html"):
            data = self.pages.html(path) if path else None
            found = _LANG.search(data[:_HEAD_BYTES]) if data else None
            if found:
                return found.group(1).decode("ascii")
        return "en"


class _Version:
    def __init__(self, site: LiveSite) -> None:
        # A live site's (projects.views.site_forms checks before it asks).
        assert site.version_id is not None
        assert site.version_made is not None
        self._index = version_index(site.version_id, site.version_made)

    def page_for(self, address: str) -> str | None:
        found = file_for(address, self._index)
        return found.path if found is not None and not found.folder else None

    def html(self, path: str) -> bytes | None:
        stored = self._index.get(path)
        content = content_of(stored, path) if stored is not None else None
        return content.data if content is not None else None


class _Preview:
    def __init__(self, preview: OpenPreview) -> None:
        self._preview = preview

    def page_for(self, address: str) -> str | None:
        wanted = [address + "index.html"] if address.endswith("/") else []
        wanted += [address, address + ".html"] if not address.endswith("/") else []
        for path in wanted:
            canonical = normalize_path(path)
            if isinstance(canonical, PathError):
                continue
            if preview_file(preview=self._preview, path=canonical) is not None:
                return canonical
        return None

    def html(self, path: str) -> bytes | None:
        found = preview_file(preview=self._preview, path=path)
        return found.content.encode() if found is not None else None


def site_target(site: LiveSite, *, prefix: str) -> Target:
    """A live site (its version is live), at its own host ("/") or `/s/<name>/`."""
    return Target(
        project_id=site.project_id,
        key=f"site-{site.pk}",
        prefix=prefix,
        name=site.name,
        test=False,
        shared=prefix != "/",
        pages=_Version(site),
    )


def preview_target(preview: OpenPreview, *, prefix: str) -> Target:
    return Target(
        project_id=preview.project.pk,
        key=f"preview-{preview.project.pk}",
        prefix=prefix,
        name=preview.project.name,
        test=True,
        shared=True,
        pages=_Preview(preview),
    )
