"""The smallest edit to an HTML page for a change the person made to an element
in the preview: its words, an attribute, hidden, deleted, moved among its
siblings. Only the characters that say what changed are rewritten; every
other character of the file stays as it was.

The element is found by parsing (projects.files.elements), never by
searching the text; one the page shows but the file does not write (a
script made it, or wrote its text), or whose place in the file cannot be
told, is refused in words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from common.refusals import Refusal
from projects.files import style_rules
from projects.files.elements import Document, Element

# Elements whose content is not words a person edits in place, or that hold the page.
_NOT_EDITABLE = frozenset(
    ("html", "head", "body", "script", "style", "template", "noscript", "title", "meta", "link")
)
_ATTRIBUTE = re.compile(
    r"""[\t\n\f\r ]+([^\t\n\f\r "'>/=][^\t\n\f\r "'>/=]*)"""
    r"""(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:"([^"]*)"|'([^']*)'|([^\t\n\f\r >]+)))?"""
)
_SPACE = re.compile(r"\s+")
ASK = "Ask the assistant to do it instead."


@dataclass(frozen=True)
class VisualRefused(Refusal):
    """Why a visual edit was not made; `ask`: the request to offer the assistant."""

    ask: str = ""


@dataclass(frozen=True)
class Picked:
    """The element the person picked, as the preview shows it."""

    path: tuple[int, ...]  # indexes among element children, from <html>
    tag: str
    text: str  # its text, white space collapsed (cut: a prefix is enough)


def element_find(document: Document, picked: Picked) -> Element | VisualRefused:
    element = document.at(list(picked.path))
    if element is None or element.name != picked.tag or not element.written:
        return VisualRefused(
            f"This <{picked.tag}> is not written in the page's file: a script made it, so "
            f"there is no source to change. {ASK}"
        )
    shown = _SPACE.sub(" ", picked.text).strip()
    written = _SPACE.sub(" ", element.text()).strip()
    if not written.startswith(shown.rstrip("…").rstrip()):
        return VisualRefused(
            f"The page shows this <{picked.tag}> differently from how its file writes it: a "
            f"script writes or changes it, so editing the file would not change what you see. "
            f"{ASK}"
        )
    if element.name in _NOT_EDITABLE or not element.html:
        return VisualRefused(f"A <{element.name}> cannot be edited in the preview. {ASK}")
    return element


# --- words ---------------------------------------------------------------------


def text_replace(
    document: Document, element: Element, *, before: list[str], after: list[str]
) -> str | VisualRefused:
    """The page with the element's text nodes `before` (as the preview had them)
    changed to `after`; its tags (bold, italic, links) stay as written."""
    wrong = words_check(element, before)
    if wrong is not None:
        return wrong
    runs = list(element.runs())
    if len(after) != len(before):
        return VisualRefused(
            "Only the words change in place: bold, italic and links stay as they are. To change "
            f"those, {ASK[0].lower()}{ASK[1:]}"
        )
    text = document.text
    changes: list[tuple[int, int, str]] = []
    for run, new in zip(runs, after, strict=True):
        if new == run.text:
            continue
        if run.start < 0 or not element.sure:
            return VisualRefused(
                f"Where this <{element.name}>'s words are written cannot be told for sure (the "
                f"browser repaired the markup around it). {ASK}"
            )
        changes.append(trimmed_change(text, run.start, run.end, _escaped(new)))
    return _applied(text, changes)


def words_check(element: Element, before: list[str]) -> VisualRefused | None:
    """Refused unless the element's text nodes, as the preview had them, are its file's."""
    if [run.text for run in element.runs()] == before:
        return None
    return VisualRefused(
        f"The words of this <{element.name}> are written by a script, or the page changed "
        f"since it loaded. {ASK}"
    )


def _escaped(words: str) -> str:
    return (
        words.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        # A no-break space, invisible as a character, as a person writes it.
        .replace("\u00a0", "&nbsp;")
    )


def trimmed_change(text: str, start: int, end: int, new: str) -> tuple[int, int, str]:
    """Replacing text[start:end] with `new`, less what both begin and end with."""
    old = text[start:end]
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return start + head, end - tail, new[head : len(new) - tail]


def _applied(text: str, changes: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(changes, reverse=True):
        text = text[:start] + new + text[end:]
    return text


# --- attributes ----------------------------------------------------------------


@dataclass(frozen=True)
class _Written:
    name: str
    start: int  # of the white space before it
    name_end: int
    value_start: int | None  # inside the quotes
    value_end: int | None
    quote: str  # '"', "'", or "" (unquoted or no value)
    end: int


def _attributes(document: Document, element: Element) -> list[_Written] | VisualRefused:
    assert element.start is not None
    assert element.tag_end is not None
    tag = document.text[element.start : element.tag_end]
    at = 1 + len(element.name)
    found: list[_Written] = []
    for match in _ATTRIBUTE.finditer(tag, at):
        if match.start() != at:
            break
        at = match.end()
        group = next((g for g in (2, 3, 4) if match.group(g) is not None), None)
        quote = {2: '"', 3: "'"}.get(group or 0, "")
        found.append(
            _Written(
                match.group(1).lower(),
                element.start + match.start(),
                element.start + match.end(1),
                None if group is None else element.start + match.start(group),
                None if group is None else element.start + match.end(group),
                quote,
                element.start + match.end(),
            )
        )
    names = {written.name for written in found}
    if names != set(element.attributes) or tag[at:].strip() not in (">", "/>"):
        return VisualRefused(
            f"This <{element.name}>'s tag is written in a way the preview cannot edit safely. {ASK}"
        )
    return found


def attribute_set(
    document: Document, element: Element, name: str, value: str
) -> str | VisualRefused:
    found = _attributes(document, element)
    if isinstance(found, VisualRefused):
        return found
    text = document.text
    escaped = value.replace("&", "&amp;").replace('"', "&quot;")
    current = next((each for each in found if each.name == name), None)
    if current is None:
        at = found[-1].end if found else element.start + 1 + len(element.name)  # type: ignore[operator]
        return _applied(text, [(at, at, f' {name}="{escaped}"')])
    if current.value_start is None or current.value_end is None:
        return _applied(text, [(current.name_end, current.name_end, f'="{escaped}"')])
    if current.quote == "'":
        escaped = value.replace("&", "&amp;").replace("'", "&#39;")
    if current.quote:
        return _applied(
            text, [trimmed_change(text, current.value_start, current.value_end, escaped)]
        )
    return _applied(text, [(current.value_start, current.value_end, f'"{escaped}"')])


def attribute_add_flag(document: Document, element: Element, name: str) -> str | VisualRefused:
    """The element with a boolean attribute (`hidden`) written in."""
    found = _attributes(document, element)
    if isinstance(found, VisualRefused):
        return found
    if any(each.name == name for each in found):
        return VisualRefused(f"This <{element.name}> is already {name}.")
    at = found[-1].end if found else element.start + 1 + len(element.name)  # type: ignore[operator]
    return _applied(document.text, [(at, at, f" {name}")])


def style_attribute_set(
    document: Document, element: Element, prop: str, value: str
) -> str | VisualRefused | None:
    """The page with `prop` changed in place in the element's own `style`
    attribute; None when that attribute does not set it (a new inline style is
    never added: styles belong in the stylesheet)."""
    style = element.attributes.get("style")
    if style is None:
        return None
    wrapped = f"x{{{style}}}"  # read as a rule, so the stylesheet's scanner finds its value
    settings = style_rules.settings(wrapped, prop)
    if not settings:
        return None
    important = " !important" if settings[-1].important else ""
    changed = style_rules.declaration_set(wrapped, selector="x", prop=prop, value=value + important)
    assert changed is not None  # the rule sets `prop`
    return attribute_set(document, element, "style", changed[2:-1])


def class_add(document: Document, element: Element, name: str) -> str | VisualRefused:
    return attribute_set(document, element, "class", class_joined(element, name))


def class_joined(element: Element, name: str) -> str:
    """The element's class attribute with class `name` added, as class_add writes it."""
    current = element.attributes.get("class", "")
    return f"{current.rstrip()} {name}" if current.strip() else name


# --- the element as a whole ----------------------------------------------------


def _whole(document: Document, element: Element) -> tuple[int, int] | VisualRefused:
    """Where the element is written, with its own line(s) when it stands alone on them."""
    if element.start is None or element.end is None or not element.closed_by_tag:
        return VisualRefused(
            f"Where this <{element.name}> ends in the file cannot be told for sure (its end tag "
            f"is left out). {ASK}"
        )
    text = document.text
    line_start = text.rfind("\n", 0, element.start) + 1
    newline = text.find("\n", element.end)
    line_end = len(text) if newline < 0 else newline + 1
    if not text[line_start : element.start].strip() and not text[element.end : line_end].strip():
        return line_start, line_end
    return element.start, element.end


def element_delete(document: Document, element: Element) -> str | VisualRefused:
    span = _whole(document, element)
    if isinstance(span, VisualRefused):
        return span
    return _applied(document.text, [(span[0], span[1], "")])


def element_move(document: Document, element: Element, *, up: bool) -> str | VisualRefused:
    parent = document.parent_of(element)
    if parent is None:
        return VisualRefused(f"This <{element.name}> cannot be moved.")
    index = next(i for i, child in enumerate(parent.children) if child is element)
    other_index = index - 1 if up else index + 1
    if not 0 <= other_index < len(parent.children):
        return VisualRefused(
            f"This <{element.name}> is already the {'first' if up else 'last'} in its "
            f"<{parent.name}>."
        )
    first, second = sorted((element, parent.children[other_index]), key=lambda e: e.start or 0)
    spans = [_whole(document, first), _whole(document, second)]
    if isinstance(spans[0], VisualRefused):
        return spans[0]
    if isinstance(spans[1], VisualRefused):
        return spans[1]
    (a_start, a_end), (b_start, b_end) = spans  # type: ignore[misc]
    text = document.text
    between = text[a_end:b_start]
    if between.strip() or a_end > b_start:
        return VisualRefused(
            f"There is text between this <{element.name}> and the one it would swap with. {ASK}"
        )
    moved = text[b_start:b_end] + between + text[a_start:a_end]
    return text[:a_start] + moved + text[b_end:]
