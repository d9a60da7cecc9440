"""A style the person set in the preview, written where a person would put it:
into the rule of the element's own class (a class only it has), else into a
new rule for a new class of a readable name, added to the element, in the
last stylesheet of the project the page links (the one whose rules win).
Where another rule would still win over it, the edit is made where it wins
instead (projects.preview_wins); where the element's own `style` attribute
sets the property, it is changed there.

A page that links none of the project's stylesheets is given the site's: the
one the project's other pages link, else a new `/styles.css`; the page gains
one `<link rel="stylesheet">` line at the end of its head. The page and the
stylesheet are written together, in the caller's transaction, as one edit
(taken back together by its undo).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from projects import preview_sheets, preview_wins
from projects.files import style_rules
from projects.files.elements import Document, Element
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.files.visual import (
    VisualRefused,
    class_add,
    class_joined,
    style_attribute_set,
)
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_update

_WORDS = re.compile(r"[a-z0-9]+")
_CLASSES = re.compile(r"""\bclass\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)


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
    # The element's own style attribute wins over every rule: changed there, in place.
    inline = style_attribute_set(target.document, target.element, prop, value)
    if inline is None:
        return _already(target, prop, value) or _sheet_written(target, prop=prop, value=value)
    if isinstance(inline, VisualRefused):
        return inline
    page_only = _written(target, inline, None, "")
    return page_only if isinstance(page_only, FileError) else EditWritten(page_only)


def _sheet_written(
    target: EditTarget, *, prop: str, value: str
) -> EditWritten | VisualRefused | FileError:
    """The style in the page's stylesheet, where it wins."""
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
        linked = preview_sheets.link_added(
            page=target.page.path,
            document=target.document,
            element=target.element,
            text=html or target.document.text,
            sheet=sheet.path,
        )
        if isinstance(linked, VisualRefused):
            return linked
        html, classes = linked, None
    else:
        beaten = _beaten(target, html, css, prop, value)
        if beaten is not None:
            return _winning(target, beaten, uses, prop=prop, value=value)
    written = _written(target, html, sheet, css)
    return written if isinstance(written, FileError) else EditWritten(written, classes)


def _already(target: EditTarget, prop: str, value: str) -> FileError | None:
    """Nothing to write when the rule that wins says `value` already (a value
    chosen again, after it was written where it wins)."""
    sheets = _linked_sheets(target)
    found = preview_wins.winner_already(
        page=target.document.text,
        path=_path(target),
        sheets=[(sheet, sheet.content) for sheet in sheets],
        prop=prop,
        value=value,
    )
    if found is None:
        return None
    return FileError(
        ErrorCode.NO_CHANGE,
        f"“{found.setter.selectors}” of {found.sheet.path} already sets {prop} of this "
        f"<{target.element.name}> to {value}; nothing was changed.",
        path=found.sheet.path,
        current_version=found.sheet.version,
    )


def _beaten(
    target: EditTarget, html: str | None, css: str, prop: str, value: str
) -> preview_wins.Beaten | None:
    """The rule that would still win over the edit as planned (`html`, `css`)."""
    sheets = _linked_sheets(target)
    last = sheets[-1].path
    return preview_wins.winner_over(
        page=html or target.document.text,
        path=_path(target),
        sheets=[(sheet, css if sheet.path == last else sheet.content) for sheet in sheets],
        prop=prop,
        value=value,
    )


def _path(target: EditTarget) -> list[int]:
    path = target.document.path_of(target.element)
    assert path is not None  # the element was found in the document
    return path


def _winning(
    target: EditTarget, beaten: preview_wins.Beaten, uses: dict[str, int], *, prop: str, value: str
) -> EditWritten | VisualRefused | FileError:
    """The edit written where it wins over `beaten`: in that rule, or in a rule
    that out-ranks it for a class of the element."""
    refused = preview_wins.winner_refused(beaten, tag=target.element.name, prop=prop)
    if refused is not None:
        return refused
    others = preview_sheets.pages_linking(
        project=target.project, page=target.page.path, sheet=beaten.sheet.path
    )
    rewritten = preview_wins.winner_changed(
        page=target.document.text, others=others, beaten=beaten, prop=prop, value=value
    )
    html: str | None = None
    classes: str | None = None
    if rewritten is None:
        last = _linked_sheets(target)[-1]
        owned = target.element.attributes.get("class", "").split()
        name = next((each for each in owned if uses.get(each, 0) == 1), None)
        if name is None:
            name = _new_class(target.element, uses, last.content)
            added = class_add(target.document, target.element, name)
            if isinstance(added, VisualRefused):
                return added
            html, classes = added, class_joined(target.element, name)
        rewritten = preview_wins.outranking(beaten, sheet=last, name=name, prop=prop, value=value)
    record = rewritten.sheet
    written = _written(target, html, _Sheet(record.path, record, linked=True), rewritten.css)
    return written if isinstance(written, FileError) else EditWritten(written, classes)


def _written(
    target: EditTarget, html: str | None, sheet: _Sheet | None, css: str
) -> tuple[FileWrite, ...] | FileError:
    """The page (when it changed) and then the stylesheet (when one is given),
    or the first refusal."""
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
    if sheet is None:
        return tuple(writes)
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
    linked = _linked_sheets(target)
    if linked:
        return _Sheet(linked[-1].path, linked[-1], linked=True)
    path = preview_sheets.site_stylesheet(project=target.project, page=target.page.path)
    record = ProjectFile.objects.filter(project=target.project, path=path).first()
    return _Sheet(path, record, linked=False)


def _linked_sheets(target: EditTarget) -> list[ProjectFile]:
    return preview_sheets.linked_sheets(
        project=target.project, page=target.page.path, document=target.document
    )


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
