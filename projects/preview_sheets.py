"""The stylesheets of a project a page links, read as a browser finds them
(its parsed <link rel="stylesheet"> tags, in order), and as the project's
other pages link them (their tags read without parsing), and a link added to
a page that has none: for the visual edits of projects.preview_styles.
"""

from __future__ import annotations

import posixpath
import re

from projects.files.elements import Document, Element
from projects.files.paths import PathError, normalize_path
from projects.files.visual import ASK, VisualRefused
from projects.models import Project, ProjectFile

SITE_STYLESHEET = "/styles.css"  # a site's stylesheet, when it has none yet
_LINKS = re.compile(r"""<link\b[^>]*>""", re.IGNORECASE)
_HREF = re.compile(r"""\bhref\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)


def linked_sheets(*, project: Project, page: str, document: Document) -> list[ProjectFile]:
    """The project's stylesheets the page links, in the page's order."""
    paths = _linked_paths(page, document)
    records = ProjectFile.objects.filter(project=project, path__in=paths)
    found = {record.path: record for record in records}
    return [found[path] for path in paths if path in found]


def _linked_paths(page: str, document: Document) -> list[str]:
    paths = []
    for element in document.elements():
        rel = element.attributes.get("rel", "").lower().split()
        href = element.attributes.get("href", "")
        if element.name == "link" and "stylesheet" in rel and href:
            path = _resolved(page, href)
            if path is not None:
                paths.append(path)
    return paths


def site_stylesheet(*, project: Project, page: str) -> str:
    """The stylesheet most of the project's other pages link (the first such
    that is a file of the project), else `/styles.css`."""
    counts: dict[str, int] = {}
    others = ProjectFile.objects.filter(project=project, path__iregex=r"\.html?$").exclude(
        path=page
    )
    for path, content in others.values_list("path", "content"):
        for sheet in _links_written(path, content):
            counts[sheet] = counts.get(sheet, 0) + 1
    existing = set(
        ProjectFile.objects.filter(project=project, path__in=counts).values_list("path", flat=True)
    )
    ranked = sorted(existing, key=lambda sheet: (-counts[sheet], sheet))
    return ranked[0] if ranked else SITE_STYLESHEET


def pages_linking(*, project: Project, page: str, sheet: str) -> list[str]:
    """The text of the project's other pages that link the stylesheet `sheet`."""
    others = ProjectFile.objects.filter(project=project, path__iregex=r"\.html?$").exclude(
        path=page
    )
    return [
        content
        for path, content in others.values_list("path", "content")
        if sheet in _links_written(path, content)
    ]


def _links_written(page: str, content: str) -> list[str]:
    """The stylesheets a page's text links, as its link tags say (read without parsing)."""
    found = []
    for link in _LINKS.findall(content):
        href = _HREF.search(link)
        if "stylesheet" in link.lower() and href is not None:
            sheet = _resolved(page, href.group(1).strip("\"'"))
            if sheet is not None:
                found.append(sheet)
    return found


def _resolved(page: str, href: str) -> str | None:
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", href.strip()):
        return None
    bare = re.split(r"[?#]", href.strip(), maxsplit=1)[0]
    joined = bare if bare.startswith("/") else posixpath.join(posixpath.dirname(page), bare)
    canonical = normalize_path(posixpath.normpath(joined))
    return None if isinstance(canonical, PathError) or not canonical.endswith(".css") else canonical


def link_added(
    *, page: str, document: Document, element: Element, text: str, sheet: str
) -> str | VisualRefused:
    """`text` (the page, perhaps with a class added to the element) with a
    `<link rel="stylesheet">` line at the end of its head, indented as the
    line before it."""
    head = next((e for e in document.elements() if e.name == "head"), None)
    end = head.content_end if head is not None and head.closed_by_tag else None
    if head is None or head.tag_end is None or end is None or (element.start or 0) < end:
        return VisualRefused(
            f"{page} links no stylesheet, and its <head> has no end tag to put the link "
            f"before. {ASK}",
            ask=f"Link a stylesheet from {page}",
        )
    href = posixpath.relpath(sheet, posixpath.dirname(page))
    tag = f'<link rel="stylesheet" href="{href}">'
    line_start = text.rfind("\n", 0, end) + 1
    closing = text[line_start:end]
    if closing.strip():  # "</head>" shares its line: the tag goes just before it
        return f"{text[:end]}{tag}{text[end:]}"
    previous = text.rfind("\n", 0, max(line_start - 1, 0)) + 1
    above = text[previous:line_start]
    inside = head.tag_end is not None and previous >= head.tag_end and above.strip()
    indent = above[: len(above) - len(above.lstrip(" \t"))] if inside else closing + "  "
    newline = "\r\n" if text[max(line_start - 2, 0) : line_start] == "\r\n" else "\n"
    return f"{text[:line_start]}{indent}{tag}{newline}{text[line_start:]}"
