"""The problems the preview reported (demo.asking.Reported), answered by
the offline demo when the person asks it to look at them ("Fix with the
assistant" in the preview's problems, or their own words with the problems
attached).

It says what each one is: the message, the file and line, and what that line
reads. It fixes those with one safe fix: a script that uses an element a
page does not have, or runs before it exists (demo.scripts), and a
script, stylesheet or picture whose file is not there when the project has
one by almost the same name, or the only one of its kind that no page uses.
Everything else (an error in the script's own logic, a file with no likely
other, another site's file) it leaves, saying plainly what it found and the
line to look at, for the person or a real model.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from demo.asking import Reported
from demo.edits import Call, FileEdits
from demo.fixes import closest, relative, relink
from demo.scripts import NULL_ELEMENT, missing_element, resolved
from demo.steps import Step

_MAX_READ = 8
# The words that ask to look at the problems even with a request the demo
# understands ("make the header teal" with the problems attached does that).
_ASKS = re.compile(r"\b(?:fix\w*|repair|debug|errors?|bugs?|broken|crash\w*)\b", re.IGNORECASE)
_ASKED_FOR = re.compile(r"^(?P<ref>\S+) \(asked for by (?P<page>\S+)\)$")
_NAMES = {
    "error": "Error",
    "rejection": "Unhandled rejection",
    "console.error": "console.error",
    "console.warn": "console.warn",
    "resource": "Failed to load",
}
_REAL_MODEL = (
    "A real model can look into what I left: add an OpenRouter key in Settings and pick one. "
    "Or open the file at that line yourself: click the problem in the preview's list."
)


@dataclass
class Looked:
    """What the demo made of the problems: the edits, and each problem's outcome."""

    calls: list[Call] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)  # in words, one per problem fixed
    left: list[str] = field(default_factory=list)  # in words, with the line to look at


def asks_about(words: str, understood: bool) -> bool:
    """Whether a message with problems attached asks to look at them: it says
    so, or asks for nothing else the demo understands (`understood`)."""
    return not understood or _ASKS.search(words) is not None


def to_read(problems: tuple[Reported, ...], files: list[str]) -> list[str]:
    """The files the problems name, then the pages (to see which run a script)."""
    named = [p.file for p in problems if p.file in files]
    pages = [path for path in files if path.endswith((".html", ".htm"))]
    scripts = [path for path in files if path.endswith((".js", ".mjs"))]
    return list(dict.fromkeys([*named, *pages, *scripts[:2]]))[:_MAX_READ]


def looked(problems: tuple[Reported, ...], files: list[str], texts: Mapping[str, str]) -> Looked:
    """Each problem looked into, and fixed where one fix is safe. A file's
    problems are fixed from its last line up, so a fix never moves the line
    another problem names."""
    edits = {path: FileEdits(path, text) for path, text in texts.items()}
    outcomes: dict[int, tuple[str, str]] = {}
    order = sorted(range(len(problems)), key=lambda i: (problems[i].file, -problems[i].line))
    seen: dict[tuple[str, int], str] = {}
    for index in order:
        problem = problems[index]
        key = (problem.file, problem.line)
        if key in seen and problem.line:
            outcomes[index] = ("", "") if seen[key] else _left(problem, texts, "")
            continue
        done, why = _fix(problem, files, texts, edits)
        seen[key] = done
        outcomes[index] = (_fixed(problem, done), "") if done else _left(problem, texts, why)
    result = Looked(calls=[call for e in edits.values() if (call := e.call) is not None])
    for index in range(len(problems)):
        done, left = outcomes[index]
        result.fixed += [done] if done else []
        result.left += [left] if left else []
    return result


def _fix(
    problem: Reported, files: list[str], texts: Mapping[str, str], edits: dict[str, FileEdits]
) -> tuple[str, str]:
    """What was done (in words), or "" and why not."""
    file = edits.get(problem.file)
    if problem.kind == "resource":
        return _missing_file(problem, files, texts, edits)
    if problem.kind != "error" or not problem.line:
        return "", ""
    if file is None:
        return "", "it is not a file of the project (another site's script?)"
    if NULL_ELEMENT.search(problem.message):
        guarded = missing_element(file, problem.line, texts, edits)
        if guarded is not None:
            return guarded.done, guarded.why
    return "", _why_error(problem.message)


def _missing_file(
    problem: Reported, files: list[str], texts: Mapping[str, str], edits: dict[str, FileEdits]
) -> tuple[str, str]:
    asked = _ASKED_FOR.match(problem.message)
    reference = asked.group("ref") if asked else ""
    page = edits.get(problem.file)
    if page is None or not reference:
        return "", "it is another site's file, or one no page of the project asks for"
    if not reference.startswith("/"):
        return "", "it is another site's file: check its address, or that the site is up"
    if reference in files:
        return "", "the file is there now: reload the preview to see"
    written = _written_as(page.text, problem.file, problem.line, reference)
    return ("", "") if written is None else _relinked(page, written, reference, files, texts)


def _relinked(
    page: FileEdits, written: str, reference: str, files: list[str], texts: Mapping[str, str]
) -> tuple[str, str]:
    """The page asks for the file that was most likely meant, where one is."""
    target = closest(page.path, written, files)
    why = "the file by almost the same name"
    if target is None and reference.endswith((".js", ".css")):
        target, why = _only_unused(reference, files, texts), "the only one of its kind no page uses"
    if target is None:
        return "", "no file in the project has a name close enough to tell which was meant"
    new = relative(page.path, target)
    if not relink(page, written, new):
        return "", ""
    gone = reference.lstrip("/")
    return f"it asked for {gone}, which is not there; it now asks for {new}, {why}", ""


def _written_as(page: str, path: str, line: int, reference: str) -> str | None:
    """How `page` names `reference` on `line` (anywhere, when the line is not known)."""
    lines = page.splitlines()
    where = [lines[line - 1]] if 0 < line <= len(lines) else lines
    for text in where:
        for found in re.finditer(r"""\b(?:src|href)\s*=\s*["']([^"']+)["']""", text):
            if resolved(path, found.group(1)) == reference:
                return found.group(1)
    return None


def _only_unused(reference: str, files: list[str], texts: Mapping[str, str]) -> str | None:
    """The one file of the reference's kind that nothing read names, if just one."""
    if any(path.endswith((".html", ".htm")) and path not in texts for path in files):
        return None  # a page not read may use it
    extension = posixpath.splitext(reference)[1].lower()
    same = [path for path in files if posixpath.splitext(path)[1].lower() == extension]
    unused = [
        path
        for path in same
        if not any(posixpath.basename(path) in text for text in texts.values())
    ]
    return unused[0] if len(unused) == 1 else None


def _why_error(message: str) -> str:
    if re.search(r"\bis not defined\b", message):
        return "it uses a name that no script defines before it runs"
    if re.search(r"\bis not a function\b", message):
        return "it calls something that is not a function there"
    if re.search(r"\bSyntaxError\b|Unexpected (?:token|end|identifier)", message):
        return "the browser could not read the script, so none of it runs"
    return ""


def _fixed(problem: Reported, done: str) -> str:
    said = "" if problem.kind == "resource" else f" (“{problem.message}”)"
    return f"{_where(problem)}{said}: {done}."


def _left(problem: Reported, texts: Mapping[str, str], why: str) -> tuple[str, str]:
    said = f"{_where(problem)}: “{problem.message}”"
    code = _line(texts.get(problem.file, ""), problem.line)
    if code and problem.kind != "resource":
        said += f". Line {problem.line} reads `{code}`"
    if problem.kind.startswith("console."):
        said += ". The page's own scripts logged it, with no line to point at"
    elif problem.kind == "rejection":
        said += ". A promise failed and nothing caught it; the browser names no line"
    elif not problem.file:
        said += ". The page reported it with no file or line"
    return "", said + (f": {why}." if why else ".")


def _where(problem: Reported) -> str:
    place = problem.file.lstrip("/") or "the page"
    line = f", line {problem.line}" if problem.line else ""
    return f"{_NAMES.get(problem.kind, 'Problem')} in {place}{line}"


def _line(text: str, line: int) -> str:
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return ""
    code = " ".join(lines[line - 1].split()).replace("`", "'")
    return code if len(code) <= 120 else code[:119] + "…"


def fix_step(problems: tuple[Reported, ...], files: list[str], texts: Mapping[str, str]) -> Step:
    """What the demo thinks, says and calls for the problems the preview reported."""
    result = looked(problems, files, texts)
    if not result.calls:
        listed = "\n".join(f"- {left}" for left in result.left)
        return Step(
            "Nothing the preview reported has one fix I can make safely.",
            "I looked at what the preview reported; none of it is something I can fix safely "
            f"as the offline demo, so I changed nothing:\n\n{listed}\n\n{_REAL_MODEL}",
        )
    count = len(result.fixed)
    return Step(
        "Of the problems, these have one safe fix each; the rest need a closer look.",
        f"Fixing {count} of the problems the preview reported.",
        result.calls,
    )


def fix_notes(problems: tuple[Reported, ...], files: list[str], texts: Mapping[str, str]) -> str:
    """The answer's account of what was fixed and what was left, and why."""
    result = looked(problems, files, texts)
    said = "What I fixed:\n" + "\n".join(f"- {fixed}" for fixed in result.fixed)
    if result.left:
        said += "\n\nWhat I left:\n" + "\n".join(f"- {left}" for left in result.left)
        said += f"\n\n{_REAL_MODEL}"
    return said
