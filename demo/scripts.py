"""The one kind of script error the offline demo fixes by itself: a script that
uses an element the page does not have (`document.getElementById("year")`
when the footer's span is gone), which the browser reports as "Cannot set
properties of null" and stops the script there.

Where a page the script runs on has no such element, the script checks that
it is there before using it (the smallest edit: `?.` before a call or a
read, a named const and an `if` before a write). Where every page has it but
the script runs before it exists (a classic script in the head), the script
waits for the page (`defer`). The demo edits only the line the error names.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass

from demo.edits import FileEdits

# "Cannot set properties of null (setting 'x')" (Chromium), "… is null"
# (Firefox), "null is not an object (evaluating '…')" (Safari).
NULL_ELEMENT = re.compile(
    r"Cannot (?:set|read) properties of null\b|\bis null\b|\bnull is not an object\b"
)
_LOOKUP = re.compile(
    r"""document\s*\.\s*(?:getElementById\(\s*(["'])(?P<id>[\w:.-]+)\1\s*\)"""
    r"""|querySelector\(\s*(["'])#(?P<hash>[\w-]+)\3\s*\))"""
)
# A write to the element: ".textContent = …", ".style.color += …".
_WRITE = re.compile(
    r"^\s*(?P<target>(?:\.\s*[\w$]+|\[[^\]\n]*\])+)\s*"
    r"(?P<op>(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=)(?![=>])(?P<value>.*)$"
)
_SCRIPT_TAG = re.compile(r"<script\b[^>]*>", re.IGNORECASE)
_RESERVED = {
    *("break", "case", "catch", "class", "const", "continue", "default", "delete", "do"),
    *("else", "export", "extends", "false", "finally", "for", "function", "if", "import"),
    *("in", "instanceof", "let", "new", "null", "return", "super", "switch", "this"),
    *("throw", "true", "try", "typeof", "var", "void", "while", "with", "yield", "await"),
}


@dataclass(frozen=True)
class Guarded:
    """What was done about an element a script did not find; `done` in words
    ("" when nothing: then `why` says why)."""

    element: str  # its id
    done: str = ""
    why: str = ""


def missing_element(
    file: FileEdits, line: int, texts: Mapping[str, str], edits: Mapping[str, FileEdits]
) -> Guarded | None:
    """The fix for a "null" error at `line` of `file` (a script, or a page's
    inline script); None when the line looks up no element by its id."""
    lines = file.text.splitlines()
    if not 0 < line <= len(lines):
        return None
    found = list(_LOOKUP.finditer(lines[line - 1]))
    if not found:
        return None
    loaders = _loading(file.path, texts)
    for lookup in found:
        element = lookup.group("id") or lookup.group("hash")
        without = [page for page in loaders if not _has_id(texts[page], element)]
        if without or not loaders:
            return _guard(file, line, lookup, element=element, texts=texts, without=without)
        early = [page for page in loaders if _runs_early(page, texts[page], file.path, element)]
        if early:
            return _defer(early, file.path, element, edits)
    element = found[0].group("id") or found[0].group("hash")
    return Guarded(element, why=f"every page that runs it has #{element}, after the script")


def _guard(
    file: FileEdits,
    line: int,
    lookup: re.Match[str],
    *,
    element: str,
    texts: Mapping[str, str],
    without: list[str],
) -> Guarded:
    start = _line_start(file.text, line)
    text = file.text.splitlines()[line - 1]
    pages = ", ".join(page.lstrip("/") for page in without) or "a page it runs on"
    has_not = f"{pages} {'has' if len(without) < 2 else 'have'} no element #{element}"
    rest = text[lookup.end() :]
    write = _WRITE.match(rest)
    if write is not None:
        name = _name_for(element, texts)
        if text[: lookup.start()].strip() or name is None or not _one_statement(rest):
            return Guarded(element, why=f"{has_not}, and the line is not simple to guard")
        indent = text[: len(text) - len(text.lstrip())]
        target = re.sub(r"\s+", "", write.group("target"))
        new = (
            f"{indent}const {name} = {lookup.group(0)};\n"
            f"{indent}if ({name}) {name}{target} {write.group('op')}{write.group('value')}"
        )
        file.replace(start, start + len(text), new)
        return Guarded(element, f"{has_not}, so the script stopped there; {_NOW_CHECKS}")
    if re.match(r"\s*[.\[]", rest):
        at = start + lookup.end() + (len(rest) - len(rest.lstrip()))
        dot = 1 if file.text[at] == "." else 0
        file.replace(at, at + dot, "?.")
        return Guarded(element, f"{has_not}, so the script stopped there; {_NOW_CHECKS}")
    return Guarded(element, why=f"{has_not}, and the line is not simple to guard")


_NOW_CHECKS = "it now checks that the element is there before it uses it"


def _defer(early: list[str], script: str, element: str, edits: Mapping[str, FileEdits]) -> Guarded:
    deferred = []
    for page in early:
        page_edits = edits.get(page)
        tag = _tag_loading(page_edits.text, page, script) if page_edits else None
        if page_edits is None or tag is None:
            continue
        page_edits.insert(tag.start() + len("<script"), " defer")
        deferred.append(page.lstrip("/"))
    if not deferred:
        return Guarded(element, why=f"#{element} is on the page, after the script that uses it")
    return Guarded(
        element,
        f"{', '.join(deferred)} runs {script.lstrip('/')} before the page's #{element} "
        "exists, so the script found nothing; it now waits for the page (defer)",
    )


def _loading(script: str, texts: Mapping[str, str]) -> list[str]:
    """The pages read that run `script`: the page itself for an inline script."""
    if script.endswith((".html", ".htm")):
        return [script]
    return [
        page
        for page, text in texts.items()
        if page.endswith((".html", ".htm")) and _tag_loading(text, page, script)
    ]


def _tag_loading(text: str, page: str, script: str) -> re.Match[str] | None:
    for tag in _SCRIPT_TAG.finditer(text):
        source = re.search(r"""\bsrc\s*=\s*["']([^"']+)["']""", tag.group(0))
        if source is not None and resolved(page, source.group(1)) == script:
            return tag
    return None


def _runs_early(page: str, text: str, script: str, element: str) -> bool:
    """Whether `page` runs `script` before its #element exists (a classic script before it)."""
    tag = _tag_loading(text, page, script)
    found = re.search(rf"""\bid\s*=\s*["']?{re.escape(element)}["'\s/>]""", text)
    if tag is None or found is None or tag.start() > found.start():
        return False
    return re.search(r"\b(?:defer|async)\b|type\s*=\s*[\"']?module", tag.group(0)) is None


def resolved(page: str, reference: str) -> str:
    """The project path `reference` names from `page`; "" for another site's."""
    reference = re.split(r"[?#]", reference, maxsplit=1)[0]
    if not reference or re.match(r"^[a-z][a-z0-9+.-]*:|^//", reference, re.IGNORECASE):
        return ""
    if reference.startswith("/"):
        return posixpath.normpath(reference)
    return posixpath.normpath(posixpath.join(posixpath.dirname(page) or "/", reference))


def _has_id(page: str, element: str) -> bool:
    return re.search(rf"""\bid\s*=\s*["']?{re.escape(element)}["'\s/>]""", page) is not None


def _name_for(element: str, texts: Mapping[str, str]) -> str | None:
    """A name for the element's const that no script read declares yet (a
    second declaration of a name stops a script)."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", element) if w]
    if not words:
        return None
    base = words[0][:1].lower() + words[0][1:] + "".join(w[:1].upper() + w[1:] for w in words[1:])
    scripts = [t for p, t in texts.items() if p.endswith((".js", ".mjs", ".html", ".htm"))]
    for name in (base, f"{base}Element"):
        declared = rf"\b(?:const|let|var|class|function\*?)\s+{re.escape(name)}(?![\w$])"
        taken = any(re.search(declared, t) for t in scripts)
        if re.fullmatch(r"[A-Za-z_$][\w$]*", name) and name not in _RESERVED and not taken:
            return name
    return None


def _one_statement(rest: str) -> bool:
    """Whether the write ends on its line: brackets closed, no operator left hanging."""
    depth = 0
    for char in rest:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(char, 0)
    return depth == 0 and not re.search(r"[-+*/%&|^=?:,(]\s*$", rest.rstrip().rstrip(";"))


def _line_start(text: str, line: int) -> int:
    at = 0
    for _ in range(line - 1):
        at = text.index("\n", at) + 1
    return at
