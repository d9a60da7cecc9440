"""Words edited in place whose bold, italic or links changed too (a bold word
deleted, Ctrl+B pressed): the element's content written anew from what the
preview's editable element holds, if it holds only inline markup the page
already had (or plain bold and italic), and only the characters that differ.

What a browser's editing makes that a person would not write (a <div>, a
<font>, a style attribute) is refused, as is any tag or attribute the content
did not already have: nothing but what the person did gets into the file.
"""

from __future__ import annotations

from typing import Any

import html5lib

from projects.files.elements import Document, Element
from projects.files.visual import ASK, VisualRefused, trimmed_change

# What a person's bold and italic keys make.
_NEW_ALLOWED = frozenset(("b", "strong", "i", "em", "br"))
_INLINE = frozenset(
    (
        "a",
        "abbr",
        "b",
        "br",
        "code",
        "em",
        "i",
        "kbd",
        "mark",
        "s",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "time",
        "u",
    )
)
MAX_MARKUP = 20_000


def inner_replace(document: Document, element: Element, markup: str) -> str | VisualRefused:
    if (
        element.tag_end is None
        or element.content_end is None
        or not element.closed_by_tag
        or not element.sure
        or len(markup) > MAX_MARKUP
    ):
        return _refused(element)
    had = _tags(
        html5lib.parseFragment(
            document.text[element.tag_end : element.content_end],
            container=element.name,
            namespaceHTMLElements=False,
        )
    )
    for tag in _tags(
        html5lib.parseFragment(markup, container=element.name, namespaceHTMLElements=False)
    ):
        name, attributes = tag
        if name not in _INLINE or (tag not in had and (attributes or name not in _NEW_ALLOWED)):
            return _refused(element)
    start, end, new = trimmed_change(document.text, element.tag_end, element.content_end, markup)
    return document.text[:start] + new + document.text[end:]


def _tags(fragment: Any) -> set[tuple[str, tuple[tuple[str, str], ...]]]:
    found = set()
    for node in fragment.iter():
        if node is fragment or not isinstance(node.tag, str):
            continue  # the fragment itself, comments
        found.add((node.tag, tuple(sorted(node.attrib.items()))))
    return found


def _refused(element: Element) -> VisualRefused:
    return VisualRefused(
        f"Changing the formatting inside this <{element.name}> in place could not be written "
        f"cleanly (only words, bold, italic and the links it has can be). {ASK}"
    )
