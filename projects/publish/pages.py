"""An HTML page read as a browser reads it, by html5lib (the WHATWG parsing
algorithm, which every browser follows): its tags as written, each with the
line it ends on, its text, its <style> blocks, and where the parser had to
repair the markup. html5lib's trees carry no lines, so a tree builder of its
own notes them as the parser builds.

html5lib reads 60 KB of "<a " (65 s for Python's html.parser) in under a
second, but it is quadratic in how deep tags nest and in how many attributes a
tag has ("<a <a <a" is one tag): a hostile page of a few hundred KB takes
minutes. So the check runs in a process of its own, with a time limit
(projects.publish.checking; figures in bench/README.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import html5lib

if TYPE_CHECKING:
    from html5lib.treebuilders.base import TreeBuilder as _EtreeBuilder
else:
    _EtreeBuilder = html5lib.getTreeBuilder("etree")


@dataclass(frozen=True)
class Tag:
    name: str
    attributes: Mapping[str, str]
    line: int  # where the tag ends
    html: bool  # not inside <svg> or <math>, where <title> and <style> mean other things
    within: frozenset[str] = frozenset()  # of WATCHED, the elements it is inside


# The elements a tag is said to be inside (Tag.within): a form's fields and their labels.
WATCHED = frozenset({"form", "label"})


@dataclass(frozen=True)
class Style:
    text: str
    line: int  # the line its first character is on


@dataclass(frozen=True)
class ParseError:
    code: str  # html5lib's, e.g. "duplicate-attribute" (html5lib.constants.E)
    line: int
    names: Mapping[str, str]  # the tags it is about, e.g. {"name": "div"}


@dataclass(frozen=True)
class Page:
    tags: tuple[Tag, ...]  # as written, in order
    title: str | None  # the first <title>'s text; None without one
    lang: str  # the <html> element's, as the browser merges every <html> tag's
    words: str  # the text a visitor reads (not scripts or styles)
    styles: tuple[Style, ...]
    errors: tuple[ParseError, ...]


def page_read(text: str) -> Page:
    parser = html5lib.HTMLParser(tree=_Builder, namespaceHTMLElements=False)
    builder: _Builder = parser.tree
    builder.parser = parser
    parser.parse(text)
    return Page(
        tags=tuple(builder.tags),
        title=None if builder.title is None else "".join(builder.title),
        lang=builder.root.attributes.get("lang", "").strip(),
        words=" ".join("".join(pieces) for pieces in builder.words),
        styles=tuple(Style("".join(parts), line) for line, parts in builder.styles),
        errors=tuple(
            ParseError(code, line, {k: str(v) for k, v in (names or {}).items()})
            for (line, _column), code, names in parser.errors
        ),
    )


class _Builder(_EtreeBuilder):
    """html5lib's ElementTree builder, noting what the check reads as it goes."""

    def __init__(self, namespaceHTMLElements: bool | None) -> None:
        super().__init__(namespaceHTMLElements)
        self.parser: html5lib.HTMLParser | None = None
        self.root: Any = None
        self.tags: list[Tag] = []
        self.title: list[str] | None = None
        self.words: list[list[str]] = []  # each element's text, in pieces
        self.styles: list[tuple[int, list[str]]] = []
        self._title_element: object = None
        self._style_element: object = None
        self._words_element: object = None
        self._noted: object = None

    # The three ways html5lib puts an element in the tree, the only ways a start
    # tag gets in (html5lib's names; its stubs leave the methods untyped).
    def insertRoot(self, token: dict[str, Any]) -> None:
        super().insertRoot(token)  # always a made-up <html>: a written one's attributes join it
        self.root = self.openElements[-1]

    def insertElementNormal(self, token: dict[str, Any]) -> Any:
        element = super().insertElementNormal(token)  # type: ignore[no-untyped-call]
        self._note(token, element)
        return element

    def insertElementTable(self, token: dict[str, Any]) -> Any:
        element = super().insertElementTable(token)  # type: ignore[no-untyped-call]
        self._note(token, element)
        return element

    def _note(self, token: dict[str, Any], element: Any) -> None:
        assert self.parser is not None
        tokenizer = self.parser.tokenizer
        # Elements html5lib makes up (an implied <body>, a <b> reopened after
        # misnested tags) come with tokens of its own: only the one the
        # tokenizer has just read was written. insertElementTable may hand a
        # token on to insertElementNormal: it is noted once.
        written = token is tokenizer.currentToken
        if not written or token is self._noted:
            return
        self._noted = token
        line = tokenizer.stream.position()[0]
        # In <svg> and <math>, html5lib names some attributes by (prefix, name, namespace).
        attributes = {k: v for k, v in token["data"].items() if isinstance(k, str)}
        html = element.namespace is None
        # The open elements above it (html5lib is already quadratic in how deep
        # tags nest; this adds a walk of the same depth).
        within = frozenset(e.name for e in self.openElements[:-1] if e.name in WATCHED)
        self.tags.append(Tag(element.name, attributes, line, html, within))
        if html and element.name == "title" and self.title is None:
            self.title, self._title_element = [], element
        elif element.name == "style":
            self.styles.append((line, []))
            self._style_element = element

    def insertText(self, data: str, parent: Any = None) -> None:
        super().insertText(data, parent)
        into = self.openElements[-1] if parent is None else parent
        if into is self._style_element:
            self.styles[-1][1].append(data)
            return
        if into is self._title_element and self.title is not None:
            self.title.append(data)
        if into.name == "script":
            return
        # html5lib hands a text over in pieces (before and after "&amp;"): "TODO" in
        # one element and "Next" in the one after must not read as "TODONext".
        if into is self._words_element:
            self.words[-1].append(data)
        else:
            self.words.append([data])
            self._words_element = into
