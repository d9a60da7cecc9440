"""An HTML page's elements as a browser builds them (html5lib: the WHATWG
parsing algorithm every browser follows), each with where it is written in
the file: its start tag, its content, its end, and the text of each of its
text nodes with the characters that wrote it.

html5lib's trees carry no positions, so its tokenizer notes where each token
begins and ends, and the tree builder notes which token made each element,
text and close. An element the parser made up (an implied <tbody>, a <b>
reopened after misnested tags) has no start tag; one closed by something
other than its own end tag (a <li> by the next <li>) ends where that begins.

A visual edit (projects.files.visual) finds the element the person picked in
the preview by its path of element children from <html>, which is the same in
both trees because both parsers follow the same algorithm.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import html5lib
from html5lib._tokenizer import HTMLTokenizer
from html5lib.constants import tokenTypes

from common.kept import Kept

if TYPE_CHECKING:
    from html5lib.treebuilders.base import TreeBuilder as _EtreeBuilder
else:
    _EtreeBuilder = html5lib.getTreeBuilder("etree")

_TAGS = (tokenTypes["StartTag"], tokenTypes["EndTag"])
_PARSE_ERROR = tokenTypes["ParseError"]
_CRLF = re.compile("\r\n")


@dataclass
class TextRun:
    """One text node: the characters that wrote it (`start`..`end`) and its text."""

    start: int
    end: int
    text: str


@dataclass
class Element:
    name: str
    attributes: dict[str, str]
    html: bool  # not inside <svg> or <math>
    start: int | None = None  # its start tag's "<"; None: the parser made it up
    tag_end: int | None = None  # after its start tag's ">"
    content_end: int | None = None  # where its content ends
    end: int | None = None  # after its end tag, or where it was closed
    closed_by_tag: bool = False  # by its own end tag (not implied, not at the file's end)
    children: list[Element] = field(default_factory=list)
    # Its content in order: text runs and element children (whose own runs are theirs).
    content: list[TextRun | Element] = field(default_factory=list)
    sure: bool = True  # False: the parser moved things about here

    @property
    def written(self) -> bool:
        return self.start is not None and self.tag_end is not None

    def runs(self) -> Iterator[TextRun]:
        """Every text node inside it, in order."""
        for part in self.content:
            if isinstance(part, TextRun):
                yield part
            else:
                yield from part.runs()

    def text(self) -> str:
        return "".join(run.text for run in self.runs())


@dataclass(frozen=True)
class Document:
    text: str
    root: Element  # <html>

    def at(self, path: list[int]) -> Element | None:
        """The element at `path` (indexes among element children, from <html>)."""
        element = self.root
        for index in path:
            if not 0 <= index < len(element.children):
                return None
            element = element.children[index]
        return element

    def path_of(self, target: Element) -> list[int] | None:
        def walk(element: Element, trail: list[int]) -> list[int] | None:
            if element is target:
                return trail
            for index, child in enumerate(element.children):
                found = walk(child, [*trail, index])
                if found is not None:
                    return found
            return None

        return walk(self.root, [])

    def parent_of(self, target: Element) -> Element | None:
        path = self.path_of(target)
        return None if not path else self.at(path[:-1])

    def elements(self) -> Iterator[Element]:
        stack = [self.root]
        while stack:
            element = stack.pop()
            yield element
            stack.extend(reversed(element.children))


# Pages read lately, by their text's digest: the panel reads the page when an
# element is picked, and the edit then finds it read (a 50 KB page takes html5lib
# about 0.1 s). A Document is never changed once read, so threads may share it.
_READ: Kept[str, Document] = Kept(
    count=16, limit=64 * 1024 * 1024, weight=lambda document: 24 * len(document.text)
)


# html5lib is quadratic in how deep elements nest and in how many attributes
# one tag has (5 s for 60 KB of "<div>"; projects.publish.checking), and a
# visual edit reads the page in the request: past these, a page is not read.
MAX_DEPTH = 256
MAX_TAG_CHARS = 8192
_TAG = re.compile(r"<(/?)([a-zA-Z][^\t\n\f\r />]*)")
_TAG_TEXT = re.compile(r"<[a-zA-Z][^>]*")  # matches never overlap: one pass
# Elements that nest nothing, or that the next of their kind closes.
_FLAT = frozenset(
    (
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
        "p",
        "li",
        "dt",
        "dd",
        "option",
        "tr",
        "td",
        "th",
        "rt",
        "rp",
    )
)


def document_problem(text: str) -> str | None:
    """Why the page is too deep, or has a tag too long, to be read here; None if not."""
    if any(match.end() - match.start() > MAX_TAG_CHARS for match in _TAG_TEXT.finditer(text)):
        return f"a tag of the page is longer than {MAX_TAG_CHARS} characters"
    depth = 0
    for match in _TAG.finditer(text):
        if match.group(2).lower() in _FLAT:
            continue
        depth += -1 if match.group(1) else 1
        if depth > MAX_DEPTH:
            return f"its elements nest more than {MAX_DEPTH} deep"
    return None


def document_of(text: str) -> Document:
    """`text` read (document_read), or as read before."""
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    found = _READ.get(key)
    if found is None:
        found = document_read(text)
        _READ.put(key, found)
    return found


def document_read(text: str) -> Document:
    parser = _Parser(tree=_Builder, namespaceHTMLElements=False)
    builder: _Builder = parser.tree
    parser.parse(text)
    builder.finish(len(text))
    root = builder.tree_of(builder.document._element)
    return Document(text, root)


class _Offsets:
    """Where html5lib's input stream is, as an offset in the text. The stream reads
    the text in chunks with CR and CRLF made LF; it is followed as it reads
    (its own `position()` counts a chunk's lines on every call: slow), and a
    CRLF it made one character counts two."""

    def __init__(self, text: str, stream: Any) -> None:
        self.stream = stream
        self.base = 0  # the characters of the chunks read before this one
        self.crlf = [match.start() - index for index, match in enumerate(_CRLF.finditer(text))]
        read, unget = stream.readChunk, stream.unget

        def read_chunk(*args: Any) -> Any:
            self.base += stream.chunkSize
            return read(*args)

        def unget_char(char: Any) -> None:
            if char is not None and stream.chunkOffset == 0:
                self.base -= 1  # put back before this chunk, whose start moves back
            unget(char)

        stream.readChunk, stream.unget = read_chunk, unget_char

    def now(self) -> int:
        at: int = self.base + self.stream.chunkOffset
        return at + bisect_left(self.crlf, at) if self.crlf else at


class _Tokenizer(HTMLTokenizer):
    """html5lib's tokenizer, noting each token's span and, once the parser has
    taken it (the generator resumes then), which elements it closed."""

    offsets: _Offsets
    builder: _Builder
    less_than = 0

    def tagOpenState(self) -> bool:
        self.less_than = self.offsets.now() - 1
        return bool(super().tagOpenState())

    def __iter__(self) -> Iterator[Any]:
        last = 0
        tokens: Iterator[dict[str, Any]] = super().__iter__()  # type: ignore[assignment]
        for token in tokens:
            if token["type"] == _PARSE_ERROR:
                yield token
                continue
            now = self.offsets.now()
            span = (self.less_than, now) if token["type"] in _TAGS else (last, now)
            last = now
            token["span"] = span
            self.builder.token = token
            before = list(self.builder.openElements)
            yield token
            self.builder.closed(before, token)


class _Parser(html5lib.HTMLParser):
    """html5lib's parser with the tokenizer above. Its `_parse`, whose tokenizer
    is fixed, as html5lib writes it for text (which is never parsed again for
    its encoding, as bytes may be)."""

    def _parse(self, stream: Any, *args: Any, **kwargs: Any) -> None:
        self.innerHTMLMode = False
        self.container = "div"
        self.scripting = False
        tokenizer = _Tokenizer(stream, parser=self)
        tokenizer.offsets, tokenizer.builder = _Offsets(stream, tokenizer.stream), self.tree
        self.tokenizer = tokenizer
        self.reset()
        self.mainLoop()


class _Builder(_EtreeBuilder):
    """html5lib's ElementTree builder, noting where each element and text is written."""

    def __init__(self, namespaceHTMLElements: bool | None) -> None:
        super().__init__(namespaceHTMLElements)
        self.token: dict[str, Any] = {}
        self.found: dict[int, Element] = {}  # by id() of html5lib's etree element
        self.runs: dict[tuple[int, int], TextRun] = {}  # (parent, child before) -> run
        self.unsure: set[int] = set()
        self.inserted: list[Any] = []
        self.body_end: int | None = None

    def _element_of(self, node: Any) -> Element:
        key = id(node._element)
        if key not in self.found:
            attributes = {k: v for k, v in node.attributes.items() if isinstance(k, str)}
            self.found[key] = Element(node.name, attributes, node.namespace is None)
        return self.found[key]

    def insertRoot(self, token: dict[str, Any]) -> None:
        super().insertRoot(token)
        self._element_of(self.openElements[-1])

    def insertElementNormal(self, token: dict[str, Any]) -> Any:
        node = super().insertElementNormal(token)  # type: ignore[no-untyped-call]
        self._noted(token, node)
        return node

    def insertElementTable(self, token: dict[str, Any]) -> Any:
        node = super().insertElementTable(token)  # type: ignore[no-untyped-call]
        self._noted(token, node)
        return node

    def _noted(self, token: dict[str, Any], node: Any) -> None:
        element = self._element_of(node)
        if token is self.token and element.start is None and "span" in token:
            element.start, element.tag_end = token["span"]
        self.inserted.append(node)

    def insertText(self, data: str, parent: Any = None) -> None:
        into = self.openElements[-1] if parent is None else parent
        if self.insertFromTable and into.name in ("table", "tbody", "tfoot", "thead", "tr"):
            self.unsure.add(id(into._element))  # foster-parented: moved out of the table
        else:
            children = into._element
            key = (id(children), id(children[-1]) if len(children) else 0)
            start, end = self.token.get("span", (0, 0))
            run = self.runs.get(key)
            if run is None:
                self.runs[key] = TextRun(start, end, data)
            else:
                if run.end != start:  # joined across tags (text after </body>): no one span
                    run.start = -1
                run.end, run.text = end, run.text + data
        super().insertText(data, parent)

    def closed(self, before: list[Any], token: dict[str, Any]) -> None:
        start, end = token["span"]
        ending = token["type"] == tokenTypes["EndTag"]
        if ending and token["name"] in ("body", "html") and self.body_end is None:
            self.body_end = start
        if not self.inserted and self.openElements == before:
            return  # most tokens (text, a start tag) close nothing
        still = {id(node) for node in self.openElements}
        own = None
        if ending:
            own = next((node for node in reversed(before) if node.name == token["name"]), None)
        for node in before:
            if id(node) not in still:
                element = self._element_of(node)
                mine = node is own and id(node) not in still
                element.content_end = start
                element.end = end if mine else start
                element.closed_by_tag = mine
        for node in self.inserted:
            if id(node) not in still:  # a void element, closed as it opened
                element = self._element_of(node)
                element.content_end = element.end = element.tag_end
                element.closed_by_tag = True
        self.inserted = []

    def finish(self, length: int) -> None:
        """Elements still open at the end of the file end where </body> (or
        </html>) was written, or at the end."""
        edge = self.body_end if self.body_end is not None else length
        for node in self.openElements:
            element = self._element_of(node)
            if element.end is None:
                element.content_end = element.end = edge

    def tree_of(self, etree_node: Any) -> Element:
        """The <html> element of the document, with everything inside it."""
        html = next(child for child in etree_node if child.tag == "html")
        return self._build(html)

    def _build(self, node: Any) -> Element:
        element = self.found.get(id(node)) or Element(_local(node.tag), dict(node.attrib), True)
        element.sure = id(node) not in self.unsure
        element.children, element.content = [], []
        self._text(element, node, node.text, 0)
        for child in node:
            if isinstance(child.tag, str):
                built = self._build(child)
                element.children.append(built)
                element.content.append(built)
            self._text(element, node, child.tail, id(child))
        return element

    def _text(self, element: Element, node: Any, text: str | None, before: int) -> None:
        if not text:
            return
        run = self.runs.get((id(node), before))
        if run is None or run.text != text:
            element.sure = False  # text the parser moved or joined: no span to trust
            run = TextRun(-1, -1, text)
        element.content.append(run)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
