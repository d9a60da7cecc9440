"""Which rules of a page's stylesheets set a property of one element, as the
browser's cascade ranks them: !important first, then specificity, then the
later rule. Selectors are matched by cssselect2 against the page as html5lib
parses it (the WHATWG algorithm, as projects.files.elements reads it), so the
element is found by the same path of element children from <html>.

Only what applies at rest is counted: a selector with a pseudo-class of
interaction or time (:hover, :focus, :visited …) never matches here, one
cssselect2 cannot read is left out, and a pseudo-element (::before) styles
another box than the element. Rules inside @media are left out too
(style_rules.settings): which apply depends on the window.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import cssselect2
import html5lib
import tinycss2
import tinycss2.ast

from projects.files import style_rules


@dataclass(frozen=True)
class Setter:
    """A rule that sets the property on the element."""

    sheet: int  # which of the stylesheets given, in the page's order
    rule: int  # its index among the sheet's rules (style_rules.declaration_set_at)
    selectors: str  # the rule's selector list
    selector: str  # the selector of that list that matched, the most specific
    specificity: tuple[int, int, int]
    important: bool
    value: str  # white space collapsed

    @property
    def rank(self) -> tuple[bool, tuple[int, int, int], int, int]:
        return (self.important, self.specificity, self.sheet, self.rule)


def page_root(text: str) -> Any:
    """The page as a tree cssselect2 reads (ElementTree, no namespaces)."""
    return cssselect2.ElementWrapper.from_html_root(
        html5lib.parse(text, namespaceHTMLElements=False)
    )


def element_at(root: Any, path: Iterable[int]) -> Any | None:
    element = root
    for index in path:
        children = list(element.iter_children())
        if not 0 <= index < len(children):
            return None
        element = children[index]
    return element


def setters(element: Any, sheets: Iterable[str], prop: str) -> list[Setter]:
    """The rules of `sheets` (in the page's order) that set `prop` on the element,
    the winner last."""
    found = []
    for number, css in enumerate(sheets):
        for setting in style_rules.settings(css, prop):
            matched = _matched(element, setting.selector)
            if matched is not None:
                selector, weight = matched
                found.append(
                    Setter(
                        number,
                        setting.index,
                        setting.selector,
                        selector,
                        weight,
                        setting.important,
                        setting.value,
                    )
                )
    return sorted(found, key=lambda setter: setter.rank)


def matches(root: Any, selectors: str) -> int:
    """How many elements of the page a rule's selector list matches."""
    tests = [compiled.test for _, compiled in _compiled(selectors)]
    return sum(1 for element in root.iter_subtree() if any(test(element) for test in tests))


def _matched(element: Any, selectors: str) -> tuple[str, tuple[int, int, int]] | None:
    """The most specific of `selectors` (a list) that matches the element."""
    best: tuple[str, tuple[int, int, int]] | None = None
    for text, compiled in _compiled(selectors):
        if compiled.test(element) and (best is None or compiled.specificity > best[1]):
            best = text, compiled.specificity
    return best


def _compiled(selectors: str) -> list[tuple[str, Any]]:
    """Each selector of the list, as written and compiled; those that never match
    at rest, style a pseudo-element, or cssselect2 cannot read, left out."""
    kept = []
    for text in _split(selectors):
        try:
            compiled = cssselect2.compile_selector_list(text)
        except (cssselect2.SelectorError, NotImplementedError):
            continue
        one = compiled[0] if len(compiled) == 1 else None
        if one is not None and not one.never_matches and one.pseudo_element is None:
            kept.append((text, one))
    return kept


def _split(selectors: str) -> Iterator[str]:
    """The selectors of a list, split at its top-level commas."""
    part: list[Any] = []
    for token in [*tinycss2.parse_component_value_list(selectors), None]:
        if token is None or (isinstance(token, tinycss2.ast.LiteralToken) and token.value == ","):
            text = tinycss2.serialize(part).strip()
            if text:
                yield " ".join(text.split())
            part = []
        else:
            part.append(token)
