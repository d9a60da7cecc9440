"""The smallest edit to a stylesheet for a style the person set in the preview:
one declaration's value changed, or one declaration added to a rule, or one
rule added at the end; and the colours a site's stylesheets already use.

Stylesheets are read by tinycss2 (CSS Syntax Level 3, as projects.publish.
stylesheets reads them); where a rule's block ends is found by a scanner that
knows strings and comments, so a "}" in either is not taken for the end.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import tinycss2
import tinycss2.ast

# What the panel sets, and how long a value may be.
PROPERTIES = frozenset(
    (
        "color",
        "background-color",
        "font-size",
        "padding",
        "margin",
        "border-radius",
        "text-align",
    )
)
MAX_VALUE = 120
MAX_COLOURS = 12
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_COLOUR_FUNCTIONS = frozenset(("rgb", "rgba", "hsl", "hsla", "oklch", "oklab", "lab", "lch"))
_IMPORTANT = re.compile(r"\s*!\s*important$", re.IGNORECASE)
_HEX = re.compile(r"[0-9a-fA-F]{3}(?:[0-9a-fA-F]{1,5})?")


@dataclass(frozen=True)
class _Rule:
    selector: str  # its prelude, white space collapsed
    open: int  # its "{"
    close: int  # its "}"
    declarations: tuple[_Declaration, ...]


@dataclass(frozen=True)
class _Declaration:
    name: str
    start: int  # its name's first character
    value_start: int
    value_end: int  # before the ";" or "}" (and the white space before it)
    end: int  # after its ";", or value_end when it has none
    important: bool


@dataclass(frozen=True)
class Setting:
    """A style rule that sets a property: its place among the stylesheet's rules
    (as declaration_set_at counts them), its selector, and whether it says
    !important (in any of its declarations of the property)."""

    index: int
    selector: str
    important: bool
    value: str  # of its last declaration of the property (less !important), spaces collapsed


def value_problem(prop: str, value: str) -> str | None:
    """Why `value` cannot be written for `prop`, or None."""
    if prop not in PROPERTIES:
        return f"{prop} is not a style the preview sets."
    if not value.strip() or len(value) > MAX_VALUE:
        return f"A value for {prop} of 1 to {MAX_VALUE} characters, please."
    tokens = tinycss2.parse_component_value_list(value)
    bad = any(
        isinstance(token, tinycss2.ast.ParseError)
        or (isinstance(token, tinycss2.ast.LiteralToken) and token.value in ";{}!")
        or isinstance(token, tinycss2.ast.CurlyBracketsBlock)
        for token in tokens
    )
    if bad or "/*" in value or "\\" in value:
        return f"“{value}” is not a value CSS can read for {prop}."
    return None


def declaration_set(css: str, *, selector: str, prop: str, value: str) -> str | None:
    """`css` with `prop: value` in the last rule for `selector` (changed in place, or
    added as its last declaration); None when no rule has that selector."""
    rule = next((rule for rule in reversed(_rules(css)) if rule.selector == selector), None)
    return None if rule is None else _declaration_set(css, rule, prop, value)


def declaration_set_at(css: str, *, index: int, prop: str, value: str) -> str:
    """`css` with `prop: value` in its `index`th style rule (as settings counts them)."""
    return _declaration_set(css, _rules(css)[index], prop, value)


def settings(css: str, prop: str) -> list[Setting]:
    """The style rules of the stylesheet's top level that set `prop`, in order.
    Rules inside an at-rule (@media, @supports) are left out: whether they
    apply depends on the window the page is shown in."""
    found = []
    for index, rule in enumerate(_rules(css)):
        declarations = [d for d in rule.declarations if d.name == prop]
        if declarations:
            last = declarations[-1]
            value = " ".join(css[last.value_start : last.value_end].split())
            if last.important:
                value = _IMPORTANT.sub("", value)
            important = any(d.important for d in declarations)
            found.append(Setting(index, rule.selector, important, value))
    return found


def _declaration_set(css: str, rule: _Rule, prop: str, value: str) -> str:
    current = next((d for d in reversed(rule.declarations) if d.name == prop), None)
    if current is not None:
        return css[: current.value_start] + value + css[current.value_end :]
    block = css[rule.open + 1 : rule.close]
    if not rule.declarations:
        inside = "\n" in block
        indent = _indent_of(css) if inside else ""
        new = f"\n{indent}{prop}: {value};\n" if inside else f" {prop}: {value}; "
        return css[: rule.open + 1] + new + css[rule.close :]
    last = rule.declarations[-1]
    semicolon = "" if last.end > last.value_end else ";"
    if "\n" in block:
        indent = _line_indent(css, last.start)
        added = f"{semicolon}\n{indent}{prop}: {value};"
    else:
        added = f"{semicolon} {prop}: {value};"
    at = last.end if last.end > last.value_end else last.value_end
    return css[:at] + added + css[at:]


def rule_add(css: str, *, selector: str, prop: str, value: str) -> str:
    """`css` with a new rule at its end."""
    ending = "" if not css or css.endswith("\n") else "\n"
    gap = "\n" if css.strip() else ""
    return f"{css}{ending}{gap}{selector} {{\n{_indent_of(css)}{prop}: {value};\n}}\n"


def selectors_naming(css: str, class_name: str) -> bool:
    """Whether any rule's selector names `.class_name`."""
    wanted = re.compile(rf"\.{re.escape(class_name)}(?![\w-])")
    return any(wanted.search(rule.selector) for rule in _rules(css))


def site_colours(stylesheets: Iterable[str]) -> list[str]:
    """The colours the stylesheets write, the most used first."""
    counts: Counter[str] = Counter()
    for css in stylesheets:
        for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
            if isinstance(rule, tinycss2.ast.QualifiedRule | tinycss2.ast.AtRule) and rule.content:
                counts.update(_colours(rule.content))
    return [colour for colour, _ in counts.most_common(MAX_COLOURS)]


def _colours(tokens: Iterable[object]) -> Iterable[str]:
    for token in tokens:
        if isinstance(token, tinycss2.ast.HashToken) and _HEX.fullmatch(token.value):
            if len(token.value) in (3, 4, 6, 8):
                yield "#" + token.value.lower()
        elif isinstance(token, tinycss2.ast.FunctionBlock):
            if token.lower_name in _COLOUR_FUNCTIONS:
                yield token.serialize()
        elif isinstance(token, tinycss2.ast.CurlyBracketsBlock):
            yield from _colours(token.content)


# --- reading ------------------------------------------------------------------------


def _rules(css: str) -> list[_Rule]:
    starts = [0] + [match.end() for match in _LINE_BREAK.finditer(css)]
    found = []
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if not isinstance(rule, tinycss2.ast.QualifiedRule):
            continue
        at = starts[rule.source_line - 1] + rule.source_column - 1
        opened = _scan_to(css, at, "{")
        if opened is None:
            continue
        closed = _block_end(css, opened)
        if closed is None:
            continue
        selector = " ".join(tinycss2.serialize(rule.prelude).split())
        declarations = tuple(_declarations(css, rule, starts, closed))
        found.append(_Rule(selector, opened, closed, declarations))
    return found


def _declarations(
    css: str, rule: tinycss2.ast.QualifiedRule, starts: list[int], close: int
) -> Iterable[_Declaration]:
    parsed = tinycss2.parse_declaration_list(rule.content, skip_comments=True, skip_whitespace=True)
    for item in parsed:
        if not isinstance(item, tinycss2.ast.Declaration):
            continue
        start = starts[item.source_line - 1] + item.source_column - 1
        colon = _scan_to(css, start, ":")
        if colon is None or colon > close:
            continue
        stop = _scan_to(css, colon, ";", limit=close)
        value_end = stop if stop is not None else close
        value_start = colon + 1
        while value_start < value_end and css[value_start] in " \t\r\n\f":
            value_start += 1
        trimmed = value_end
        while trimmed > value_start and css[trimmed - 1] in " \t\r\n\f":
            trimmed -= 1
        end = stop + 1 if stop is not None else trimmed
        yield _Declaration(item.lower_name, start, value_start, trimmed, end, item.important)


def _scan_to(css: str, at: int, wanted: str, *, limit: int | None = None) -> int | None:
    """The first `wanted` at depth 0 from `at`, outside strings and comments."""
    depth = 0
    index = at
    end = len(css) if limit is None else limit
    while index < end:
        char = css[index]
        if css.startswith("/*", index):
            close = css.find("*/", index + 2)
            index = end if close < 0 else close + 2
            continue
        if char in "\"'":
            index = _string_end(css, index)
            continue
        if char == "\\":
            index += 2
            continue
        if char == wanted and depth == 0:
            return index
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return None
        index += 1
    return None


def _block_end(css: str, opened: int) -> int | None:
    """The "}" that closes the block opened at `opened`."""
    found = _scan_to(css, opened + 1, "}")
    return found


def _string_end(css: str, start: int) -> int:
    quote = css[start]
    index = start + 1
    while index < len(css):
        if css[index] == "\\":
            index += 2
            continue
        if css[index] == quote or css[index] == "\n":
            return index + 1
        index += 1
    return index


def _indent_of(css: str) -> str:
    """How the stylesheet indents a declaration (two spaces if it does not say)."""
    match = re.search(r"\{[^\S\n]*\n([ \t]+)\S", css)
    return match.group(1) if match else "  "


def _line_indent(css: str, at: int) -> str:
    line_start = css.rfind("\n", 0, at) + 1
    return css[line_start:at] if not css[line_start:at].strip() else _indent_of(css)
