"""A visual edit: one change the person made to an element in the preview,
written to the project's files as the smallest edit, as the person's revision
("Edited in the preview: …"), through the file service. No model is asked.

The page's text is checked against what the preview loaded (its digest): a
page changed since is refused like a stale save. While the assistant's turn
runs the edit is refused in words, and nothing is written. A style change that
writes two files (a class on the element, a rule in its stylesheet) writes
both or neither.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass
from typing import Literal

from django.contrib.auth.models import User
from django.db import transaction

from projects.files import style_rules
from projects.files.elements import Document, Element, document_of, document_problem
from projects.files.inline_markup import inner_replace
from projects.files.paths import PathError, normalize_path
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.files.visual import (
    ASK,
    Picked,
    VisualRefused,
    attribute_add_flag,
    attribute_set,
    class_add,
    element_delete,
    element_find,
    element_move,
    text_replace,
    words_check,
)
from projects.locks import lock_current
from projects.models import Project, ProjectFile
from projects.services import Author, file_update

Kind = Literal["text", "attribute", "hide", "delete", "move", "style"]
ATTRIBUTES = frozenset(("href", "src", "alt"))
MAX_ADDRESS = 2000  # characters of a link address or an image's
_WORDS = re.compile(r"[a-z0-9]+")
_CLASSES = re.compile(r"""\bclass\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)
BUSY = (
    "The assistant is changing this project's files right now, so edits in the preview "
    "wait: nothing was changed. Try again when it has finished, or stop it first."
)


@dataclass(frozen=True)
class VisualEdit:
    page: str  # the page's path
    source: str  # the digest of the page's text as the preview loaded it (page_digest)
    picked: Picked
    kind: Kind
    before: tuple[str, ...] = ()  # text: the element's text nodes as they were
    after: tuple[str, ...] = ()  # and as the person left them
    markup: str = ""  # text: the element's content as the person left it, when its tags changed
    name: str = ""  # attribute: href, src or alt; style: the property
    value: str = ""
    up: bool = False  # move: up (or down)


@dataclass(frozen=True)
class PreviewEdited:
    writes: tuple[FileWrite, ...]
    note: str
    source: str  # the page's digest after the edit (for the next edit before a reload)


def page_digest(text: str) -> str:
    """What names a page's text for the stale check (given to the preview's bridge)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def preview_edit(
    *, project: Project, user: User, edit: VisualEdit
) -> PreviewEdited | VisualRefused | FileError:
    if lock_current(project) is not None:
        return FileError(ErrorCode.BUSY, BUSY)
    found = _located(project, edit)
    if not isinstance(found, tuple):
        return found
    record, document, element = found
    note = f"Edited in the preview: {_what(edit, element)}"
    target = _Target(project, record, document, element, Author.person_noting(user, note))
    with transaction.atomic():
        done = _style(target, edit) if edit.kind == "style" else _html(target, edit)
        if not isinstance(done, tuple):
            transaction.set_rollback(True)
            return done
    record.refresh_from_db(fields=["content"])
    return PreviewEdited(done, note, page_digest(record.content))


@dataclass(frozen=True)
class _Target:
    project: Project
    record: ProjectFile  # the page
    document: Document  # the page, parsed
    element: Element
    author: Author


def _located(
    project: Project, edit: VisualEdit
) -> tuple[ProjectFile, Document, Element] | VisualRefused | FileError:
    page = normalize_path(edit.page)
    if isinstance(page, PathError) or not page.endswith((".html", ".htm")):
        return VisualRefused("Only the project's own HTML pages can be edited in the preview.")
    record = ProjectFile.objects.filter(project=project, path=page).first()
    if record is None:
        return VisualRefused(f"{page} is not a file of this project any more.")
    if page_digest(record.content) != edit.source:
        return FileError(
            ErrorCode.CONFLICT,
            f"{page} changed since the preview loaded it. The preview shows it again now: "
            "make your change once more.",
            path=page,
            current_version=record.version,
        )
    too_much = document_problem(record.content)
    if too_much is not None:
        return VisualRefused(f"{page} cannot be edited in the preview: {too_much}. {ASK}")
    document = document_of(record.content)
    element = element_find(document, edit.picked)
    if isinstance(element, VisualRefused):
        return element
    return record, document, element


def _html(target: _Target, edit: VisualEdit) -> tuple[FileWrite, ...] | VisualRefused | FileError:
    changed = _html_changed(target.document, target.element, edit)
    if isinstance(changed, VisualRefused):
        return changed
    written = _save(target, target.record, changed)
    return written if isinstance(written, FileError) else (written,)


def _html_changed(document: Document, element: Element, edit: VisualEdit) -> str | VisualRefused:
    match edit.kind:
        case "text":
            if edit.markup and len(edit.after) != len(edit.before):  # bold, italic or links changed
                wrong = words_check(element, list(edit.before))
                return wrong or inner_replace(document, element, edit.markup)
            return text_replace(document, element, before=list(edit.before), after=list(edit.after))
        case "attribute":
            return _attribute_changed(document, element, edit)
        case "hide":
            return attribute_add_flag(document, element, "hidden")
        case "delete":
            return element_delete(document, element)
        case "move":
            return element_move(document, element, up=edit.up)
        case "style":
            raise AssertionError("styles are written by _style")


def _attribute_changed(
    document: Document, element: Element, edit: VisualEdit
) -> str | VisualRefused:
    if edit.name not in ATTRIBUTES:
        return VisualRefused(f"{edit.name} is not an attribute the preview edits.")
    if element.name != ("a" if edit.name == "href" else "img"):
        return VisualRefused(f"A <{element.name}> has no {edit.name} to edit here.")
    return attribute_set(document, element, edit.name, edit.value.strip()[:MAX_ADDRESS])


def _save(target: _Target, record: ProjectFile, content: str) -> FileWrite | FileError:
    return file_update(
        project=target.project,
        path=record.path,
        content=content,
        author=target.author,
        expected_version=record.version,
    )


# --- styles --------------------------------------------------------------------------


def _style(target: _Target, edit: VisualEdit) -> tuple[FileWrite, ...] | VisualRefused | FileError:
    """Into the rule of the element's own class (a class only it has), else into
    a new rule for a new class of a readable name, added to the element."""
    problem = style_rules.value_problem(edit.name, edit.value)
    if problem:
        return VisualRefused(problem)
    page, element = target.record, target.element
    sheet = _stylesheet(target.project, page.path, target.document)
    if sheet is None:
        return VisualRefused(
            f"{page.path} uses no stylesheet of this project, so there is no rule to put the "
            f"style in. {ASK}",
            ask=f"Add a stylesheet to {page.path}",
        )
    uses = _class_uses(target.project, page.path, target.document)
    value = edit.value.strip()
    for name in element.attributes.get("class", "").split():
        css = _own_rule(sheet.content, name, uses, edit.name, value)
        if css is not None:
            written = _save(target, sheet, css)
            return written if isinstance(written, FileError) else (written,)
    name = _new_class(element, uses, sheet.content)
    html = class_add(target.document, element, name)
    if isinstance(html, VisualRefused):
        return html
    changed = _save(target, page, html)
    if isinstance(changed, FileError):
        return changed
    css = style_rules.rule_add(sheet.content, selector=f".{name}", prop=edit.name, value=value)
    rule = _save(target, sheet, css)
    return rule if isinstance(rule, FileError) else (changed, rule)


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


def _stylesheet(project: Project, page: str, document: Document) -> ProjectFile | None:
    """The last stylesheet of the project the page links (the one whose rules win)."""
    found = None
    for element in document.elements():
        rel = element.attributes.get("rel", "").lower().split()
        href = element.attributes.get("href", "")
        if element.name != "link" or "stylesheet" not in rel or not href:
            continue
        path = _resolved(page, href)
        if path is None:
            continue
        sheet = ProjectFile.objects.filter(project=project, path=path).first()
        if sheet is not None:
            found = sheet
    return found


def _resolved(page: str, href: str) -> str | None:
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", href.strip()):
        return None
    bare = re.split(r"[?#]", href.strip(), maxsplit=1)[0]
    joined = bare if bare.startswith("/") else posixpath.join(posixpath.dirname(page), bare)
    canonical = normalize_path(posixpath.normpath(joined))
    return None if isinstance(canonical, PathError) or not canonical.endswith(".css") else canonical


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


# --- in words --------------------------------------------------------------------------


def _what(edit: VisualEdit, element: Element) -> str:
    tag = f"<{element.name}>"
    match edit.kind:
        case "text":
            shown = " ".join("".join(edit.after).split())
            return f"text of {tag} to “{shown[:60]}”"
        case "attribute":
            label = {"href": "link address", "src": "image", "alt": "alt text"}.get(
                edit.name, edit.name
            )
            return f"{label} of {tag} to “{edit.value.strip()[:60]}”"
        case "hide":
            return f"hid {tag}"
        case "delete":
            return f"deleted {tag}"
        case "move":
            return f"moved {tag} {'up' if edit.up else 'down'}"
        case "style":
            return f"{edit.name} of {tag} to {edit.value.strip()[:40]}"
