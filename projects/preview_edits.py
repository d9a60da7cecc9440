"""A visual edit: one change the person made to an element in the preview,
written to the project's files as the smallest edit, as the person's revision
("Edited in the preview: …"), through the file service. No model is asked.

The page's text is checked against what the preview loaded (its digest): a
page changed since is refused like a stale save. While the assistant's turn
runs the edit is refused in words, and nothing is written. A style change that
writes two files (a class on the element, a rule in its stylesheet) writes
both or neither (projects.preview_styles). The answer says what the edit
wrote to the page when the preview can do the same to what it shows
(`InPlace`), so the page need not be loaded again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from django.contrib.auth.models import User
from django.db import transaction

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
    element_delete,
    element_find,
    element_move,
    text_replace,
    words_check,
)
from projects.locks import lock_current
from projects.models import Project, ProjectFile
from projects.preview_styles import EditTarget, EditWritten, style_write
from projects.services import Author, file_update

Kind = Literal["text", "attribute", "hide", "delete", "move", "style"]
ATTRIBUTES = frozenset(("href", "src", "alt"))
MAX_ADDRESS = 2000  # characters of a link address or an image's
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
class InPlace:
    """What an edit wrote to its page, as the preview can do it to the element it
    shows instead of loading the page again: an attribute set (a flag such as
    `hidden` with no value; the class a style's new rule is for), the element
    removed, or swapped with its sibling (whose tag is named, for the preview
    to check it is the same one)."""

    kind: Literal["attribute", "remove", "move"]
    name: str = ""
    value: str = ""
    up: bool = False
    sibling: str = ""


@dataclass(frozen=True)
class PreviewEdited:
    writes: tuple[FileWrite, ...]
    note: str
    source: str  # the page's digest after the edit (for the next edit before a reload)
    in_place: InPlace | None = None  # the page's change, as the preview can show it


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
    target = EditTarget(project, record, document, element, Author.person_noting(user, note))
    with transaction.atomic():
        if edit.kind == "style":
            done = style_write(target, prop=edit.name, value=edit.value)
        else:
            done = _html(target, edit)
        if isinstance(done, VisualRefused | FileError):
            transaction.set_rollback(True)
            return done
    record.refresh_from_db(fields=["content"])
    return PreviewEdited(
        done.writes, note, page_digest(record.content), _in_place(edit, target, done)
    )


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


def _html(target: EditTarget, edit: VisualEdit) -> EditWritten | VisualRefused | FileError:
    changed = _html_changed(target.document, target.element, edit)
    if isinstance(changed, VisualRefused):
        return changed
    written = file_update(
        project=target.project,
        path=target.page.path,
        content=changed,
        author=target.author,
        expected_version=target.page.version,
    )
    return written if isinstance(written, FileError) else EditWritten((written,))


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


def _in_place(edit: VisualEdit, target: EditTarget, done: EditWritten) -> InPlace | None:
    """What the edit wrote to the page, as the preview can do it to the element
    it shows; None for what it cannot, or need not (words are shown as typed, a
    style that changed only a stylesheet by loading it again)."""
    match edit.kind:
        case "attribute":
            return InPlace("attribute", name=edit.name, value=edit.value.strip()[:MAX_ADDRESS])
        case "hide":
            return InPlace("attribute", name="hidden")
        case "delete":
            return InPlace("remove")
        case "move":
            parent = target.document.parent_of(target.element)
            assert parent is not None  # element_move moved it among its siblings
            index = parent.children.index(target.element) + (-1 if edit.up else 1)
            return InPlace("move", up=edit.up, sibling=parent.children[index].name)
        case "style":
            return None if done.classes is None else InPlace("attribute", "class", done.classes)
        case "text":
            return None


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
