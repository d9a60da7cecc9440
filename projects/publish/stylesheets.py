"""A stylesheet, a <style> block or a style attribute read as CSS reads it,
by tinycss2 (CSS Syntax Level 3, with nesting): the files it references
(url(), @import) and what browsers will skip. Reading tokens rather than
searching the text, a url( in a comment or a string is no reference, and a
hostile file is read in one pass (tinycss2's tokenizer and parser are linear).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import tinycss2

from projects.publish.findings import Finding
from projects.publish.links import Reference

MAX_PER_FILE = 3

# What tinycss2 reports that changes what a browser applies, in words; each
# code is what ParseError.kind says. Left out: a string or url() cut off at the
# end (eof-in-string, eof-in-url), which browsers close themselves.
_ERRORS = {
    "invalid": (
        "Something here is neither a property (name: value;) nor a rule (selector { … }): "
        "browsers skip it, up to the next ; or }."
    ),
    "bad-string": (
        "A string here runs to the end of its line without its closing quote: browsers "
        "skip what it is part of."
    ),
    "bad-url": (
        "A url(…) here holds a space, a quote or a ( outside quotes: browsers skip what it "
        'is part of. Write it in quotes, url("…").'
    ),
    "}": "A } here closes nothing: browsers skip the rule after it.",
    ")": "A ) here closes nothing: browsers skip what it is part of.",
    "]": "A ] here closes nothing: browsers skip what it is part of.",
}


@dataclass(frozen=True)
class Problem:
    line: int
    text: str
    code: str  # one of _ERRORS, so that a file's problems can be told once each


@dataclass(frozen=True)
class Stylesheet:
    references: tuple[Reference, ...]
    problems: tuple[Problem, ...]


def stylesheet_read(text: str, *, line: int = 1, attribute: bool = False) -> Stylesheet:
    """`text` read as a stylesheet, or as the declarations of a style
    attribute; `line`: the line of the file the text starts on (for an
    attribute, its tag's)."""
    if attribute:
        top = tinycss2.parse_blocks_contents(text, skip_comments=True, skip_whitespace=True)
    else:
        top = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
    references: list[Reference] = []
    problems: list[Problem] = []
    for node in _walk(top):
        # A style attribute's lines are told as its tag's: html5lib says where a tag ends only.
        where = line if attribute else line + node.source_line - 1
        if node.type == "error" and node.kind in _ERRORS:
            problems.append(Problem(where, _ERRORS[node.kind], node.kind))
        elif (named := _named(node)) is not None:
            references.append(Reference(named, where))
    return Stylesheet(tuple(references), tuple(problems))


def css_findings(path: str, sheets: Iterable[Stylesheet]) -> Iterator[Finding]:
    """What browsers will skip in a file's styles, each kind of problem once
    (one missing brace can set off every rule after it), at most MAX_PER_FILE."""
    said: set[str] = set()
    problems = sorted((p for sheet in sheets for p in sheet.problems), key=lambda p: p.line)
    for problem in problems:
        if problem.code in said:
            continue
        said.add(problem.code)
        yield Finding("css", path, problem.text, problem.line)
        if len(said) >= MAX_PER_FILE:
            return


def _walk(nodes: list[Any]) -> Iterator[Any]:
    """Every node under `nodes`, first to last, the blocks of rules read as
    their contents (properties and nested rules). No recursion: a hostile
    file nests blocks tens of thousands deep."""
    pending = list(reversed(nodes))
    while pending:
        node = pending.pop()
        yield node
        pending += reversed(_children(node))


def _children(node: Any) -> list[Any]:
    match node.type:
        case "qualified-rule" | "at-rule":
            inside = []
            if node.content is not None:
                inside = tinycss2.parse_blocks_contents(
                    node.content, skip_comments=True, skip_whitespace=True
                )
            return [*node.prelude, *inside]
        case "declaration":
            return list(node.value)
        case "function":
            return list(node.arguments)
        case "() block" | "[] block" | "{} block":
            return list(node.content)
    return []


def _named(node: Any) -> str | None:
    """The file `node` names: url(x), url("x"), or @import "x"."""
    if node.type == "url":
        return str(node.value)
    if node.type == "function" and node.lower_name == "url":
        return _first_string(node.arguments)
    if node.type == "at-rule" and node.lower_at_keyword == "import":
        return _first_string(node.prelude)
    return None


def _first_string(tokens: list[Any]) -> str | None:
    for token in tokens:
        if token.type == "string":
            return str(token.value)
        if token.type not in {"whitespace", "comment"}:
            return None
    return None
