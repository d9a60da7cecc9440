"""A style the person set in the preview, written where a person would put it:
into the rule of the element's own class (a class only it has), else into a
new rule for a new class of a readable name, added to the element, in the
last stylesheet of the project the page links (the one whose rules win).

A page that links none of the project's stylesheets is given the site's: the
one the project's other pages link, else a new `/styles.css`; the page gains
one `<link rel="stylesheet">` line at the end of its head. The page and the
stylesheet are written together, in the caller's transaction, as one edit
(taken back together by its undo).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from projects.files import style_rules
from projects.files.elements import Document, Element
from projects.files.paths import PathError, normalize_path
from projects.files.results import FileError, FileWrite
from projects.files.visual import ASK, VisualRefused, class_add, class_joined
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_update

SITE_STYLESHEET = "/styles.css"  # a site's stylesheet, when it has none yet
_WORDS = re.compile(r"[a-z0-9]+")
_CLASSES = re.compile(r"""\bclass\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)
_LINKS = re.compile(r"""<link\b[^>]*>""", re.IGNORECASE)
_HREF = re.compile(r"""\bhref\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)


@dataclass(frozen=True)
class EditTarget:
    project: Project
    page: ProjectFile
    document: Document  # the page, parsed
    element: Element
    author: Author


@dataclass(frozen=True)
class _Sheet:
    path: str
    record: ProjectFile | None  # None: written new with the edit
    linked: bool  # the page links it already

    @property
    def content(self) -> str:
        return self.record.content if self.record is not None else ""


@dataclass(frozen=True)
class EditWritten:
    """What a visual edit wrote: its files' writes, in order."""

    writes: tuple[FileWrite, ...]
    # The element's class attribute as now written, when that is all the page's
    # change (a new class for a new rule); else None.
    classes: str | None = None


def style_write(
    target: EditTarget, *, prop: str, value: str
) -> EditWritten | VisualRefused | FileError:
    problem = style_rules.value_problem(prop, value)
    if problem:
        return VisualRefused(problem)
    value = value.strip()
    sheet = _stylesheet(target)
    uses = _class_uses(target.project, target.page.path, target.document)
    html: str | None = None
    classes: str | None = None
    css: str | None = None
    for name in target.element.attributes.get("class", "").split():
        css = _own_rule(sheet.content, name, uses, prop, value)
        if css is not None:
            break
    if css is None:
        name = _new_class(target.element, uses, sheet.content)
        added = class_add(target.document, target.element, name)
        if isinstance(added, VisualRefused):
            return added
        html, classes = added, class_joined(target.element, name)
        css = style_rules.rule_add(sheet.content, selector=f".{name}", prop=prop, value=value)
    if not sheet.linked:
        linked = _link_added(target, html or target.document.text, sheet.path)
        if isinstance(linked, VisualRefused):
            return linked
        html, classes = linked, None
    written = _written(target, html, sheet, css)
    return written if isinstance(written, FileError) else EditWritten(written, classes)


def _written(
    target: EditTarget, html: str | None, sheet: _Sheet, css: str
) -> tuple[FileWrite, ...] | FileError:
    """The page (when it changed) and then the stylesheet, or the first refusal."""
    writes: list[FileWrite] = []
    if html is not None:
        page = target.page
        done = file_update(
            project=target.project,
            path=page.path,
            content=html,
            author=target.author,
            expected_version=page.version,
        )
        if isinstance(done, FileError):
            return done
        writes.append(done)
    if sheet.record is None:
        rule = file_create(
            project=target.project, path=sheet.path, content=css, author=target.author
        )
    else:
        rule = file_update(
            project=target.project,
            path=sheet.path,
            content=css,
            author=target.author,
            expected_version=sheet.record.version,
        )
    if isinstance(rule, FileError):
        return rule
    return (*writes, rule)


def _own_rule(css: str, name: str, uses: dict[str, int], prop: str, value: str) -> str | None:
    """The stylesheet with the style in the rule of class `name`, if only one
    element has that class; None when its rules are others' too."""
    if uses.get(name, 0) != 1:
        return None
    selector = f".{name}"
    changed = style_rules.declaration_set(css, selector=selector, prop=prop, value=value)
    if changed is not None:
        return changed
    if style_rules.selectors_naming(css, name):
        return None  # named in other selectors only (".card .x"): a rule of its own would mislead
    return style_rules.rule_add(css, selector=selector, prop=prop, value=value)


# --- which stylesheet --------------------------------------------------------------


def _stylesheet(target: EditTarget) -> _Sheet:
    """The last of the project's stylesheets the page links; else the site's."""
    found = None
    for path in _linked_paths(target.page.path, target.document):
        sheet = ProjectFile.objects.filter(project=target.project, path=path).first()
        if sheet is not None:
            found = sheet
    if found is not None:
        return _Sheet(found.path, found, linked=True)
    path = _site_stylesheet(target.project, target.page.path)
    record = ProjectFile.objects.filter(project=target.project, path=path).first()
    return _Sheet(path, record, linked=False)


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


def _site_stylesheet(project: Project, page: str) -> str:
    """The stylesheet most of the project's other pages link (the first such
    that is a file of the project), else `/styles.css`."""
    counts: dict[str, int] = {}
    others = ProjectFile.objects.filter(project=project, path__iregex=r"\.html?$").exclude(
        path=page
    )
    for path, content in others.values_list("path", "content"):
        for link in _LINKS.findall(content):
            href = _HREF.search(link)
            if "stylesheet" not in link.lower() or href is None:
                continue
            sheet = _resolved(path, href.group(1).strip("\"'"))
            if sheet is not None:
                counts[sheet] = counts.get(sheet, 0) + 1
    existing = set(
        ProjectFile.objects.filter(project=project, path__in=counts).values_list("path", flat=True)
    )
    ranked = sorted(existing, key=lambda sheet: (-counts[sheet], sheet))
    return ranked[0] if ranked else SITE_STYLESHEET


def _resolved(page: str, href: str) -> str | None:
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", href.strip()):
        return None
    bare = re.split(r"[?#]", href.strip(), maxsplit=1)[0]
    joined = bare if bare.startswith("/") else posixpath.join(posixpath.dirname(page), bare)
    canonical = normalize_path(posixpath.normpath(joined))
    return None if isinstance(canonical, PathError) or not canonical.endswith(".css") else canonical


def _link_added(target: EditTarget, text: str, sheet: str) -> str | VisualRefused:
    """`text` (the page, perhaps with a class added to the element) with a
    `<link rel="stylesheet">` line at the end of its head, indented as the
    line before it."""
    page = target.page.path
    head = next((e for e in target.document.elements() if e.name == "head"), None)
    end = head.content_end if head is not None and head.closed_by_tag else None
    if head is None or head.tag_end is None or end is None or (target.element.start or 0) < end:
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


# --- classes -------------------------------------------------------------------------


def _class_uses(project: Project, page: str, document: Document) -> dict[str, int]:
    """How many elements of the project's pages have each class: this page's as
    parsed, the others' as their class attributes say."""
    counts: dict[str, int] = {}
    for element in document.elements():
        for name in set(element.attributes.get("class", "").split()):
            counts[name] = counts.get(name, 0) + 1
    others = ProjectFile.objects.filter(project=project, path__iregex=r"\.html?$").exclude(
        path=page
    )
    for content in others.values_list("content", flat=True):
        for match in _CLASSES.finditer(content):
            for name in set(match.group(1).strip("\"'").split()):
                counts[name] = counts.get(name, 0) + 1
    return counts


def _new_class(element: Element, uses: dict[str, int], css: str) -> str:
    """A readable class name for the element, used nowhere yet: its tag and first words."""
    words = _WORDS.findall(element.text().lower())[:3]
    base = "-".join([element.name, *words])[:40].rstrip("-")
    name, number = base, 2
    while name in uses or style_rules.selectors_naming(css, name):
        name, number = f"{base}-{number}", number + 1
    return name
