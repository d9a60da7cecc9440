""" "Fix with the assistant", answered by the offline demo: of the findings the
site check listed (projects.publish.site_check, as the turn's footer words
them: chat.render.transcript.Footer.fix_prompt), it fixes the ones a careful
person could fix without asking anything, and says which it left and why.

It can fix: an image without alt (described from its file name, when the name
says something), a page without a <title>, a language or a viewport, a link
that starts at the server's root, and a link to a file that is not there when
one by almost the same name is. It leaves markup and styles (what was meant
is a question), ids used twice (which element keeps it is the person's call),
text left from a template (it needs their words) and secrets (they must be
revoked where they were issued).
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from demo.edits import Call, FileEdits
from demo.intents import FIX_PROMPT
from demo.site import site_name, text
from demo.steps import Step

_FINDING = re.compile(r"^- (?P<path>/\S+?)(?::(?P<line>\d+))?: (?P<text>.+)$")
_MORE = re.compile(r"^- and (\d+) more\b")
_ROOTED = re.compile(
    r"^(?P<ref>\S+) starts at the server's root\b.*\bWrite it as (?P<to>\S+) instead\.$"
)
_MISSING = re.compile(
    r"^(?P<ref>\S+) leads to no file(?: \(there is (?P<other>/\S+): the case differs\))?\.$"
)
_IMAGE = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
_GENERIC = {"img", "image", "images", "photo", "pic", "picture", "dsc", "screenshot", "file"}
# Why a finding is left, by the words that say what it is.
_LEFT: tuple[tuple[str, str], ...] = (
    ("looks like text left from a template", "it needs your own words"),
    ("looks like", "a secret must be taken out and revoked where it was issued"),
    ("is on ", "which element keeps the id is your call"),
    ("climbs above your site's root", "I can't tell where it should lead"),
    ("leads to no file", "no file has a name close enough to tell where it should lead"),
    ("has no alt", "its file name does not say what it shows"),
    ("have no alt", "their file names do not say what they show"),
)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int | None
    text: str


@dataclass
class Fixes:
    """What the demo will change for the findings, and what it leaves."""

    calls: list[Call] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)  # in words, one per finding fixed
    left: list[str] = field(default_factory=list)  # in words, with why
    gone: list[str] = field(default_factory=list)  # fixed already, before this turn


def findings_in(request: str) -> tuple[list[Finding], int]:
    """The findings the fix prompt lists, and how many more it says there are."""
    if not request.lstrip().startswith(FIX_PROMPT):
        return [], 0
    found, more = [], 0
    for line in request.splitlines()[1:]:
        listed = _FINDING.match(line.strip())
        counted = _MORE.match(line.strip())
        if counted is not None:
            more += int(counted.group(1))
        elif listed is not None:
            number = listed.group("line")
            found.append(
                Finding(listed.group("path"), int(number) if number else None, listed.group("text"))
            )
    return found, more


def to_read(request: str, files: list[str]) -> list[str]:
    named = dict.fromkeys(f.path for f in findings_in(request)[0])
    return [path for path in named if path in files][:6]


def fixes_for(request: str, files: list[str], texts: dict[str, str]) -> Fixes:
    found, more = findings_in(request)
    fixes = Fixes()
    edits = {path: FileEdits(path, content) for path, content in texts.items()}
    for finding in found:
        file = edits.get(finding.path)
        untouched = file is not None and file.text == texts[finding.path]
        done = _fix(finding, file, files, texts) if file is not None else None
        where = f"{finding.path.lstrip('/')}{f':{finding.line}' if finding.line else ''}"
        if done:
            fixes.fixed.append(f"{where}: {done}")
        elif done == "" and untouched:  # else a fix of this turn covered it
            fixes.gone.append(f"{where}: {_shortened(finding.text)}")
        elif done is None:
            fixes.left.append(f"{where}: {_shortened(finding.text)} — {_why(finding.text)}")
    if more:
        fixes.left.append(f"{more} more the check found that the message did not list")
    fixes.calls = [call for file in edits.values() if (call := file.call) is not None]
    return fixes


def _fix(finding: Finding, file: FileEdits, files: list[str], texts: dict[str, str]) -> str | None:
    """What was fixed, in words; "" when there was nothing left to fix; None
    when it is left."""
    said = finding.text
    if re.search(r"\bha(?:s|ve) no alt\b", said):
        return _alts(file, said)
    for words, fix in _PAGE_FIXES:
        if words in said:
            return fix(file, texts)
    rooted = _ROOTED.match(said)
    if rooted is not None:
        return relink(file, rooted.group("ref"), rooted.group("to"))
    missing = _MISSING.match(said)
    return None if missing is None else _relink_missing(file, missing, files)


def _relink_missing(file: FileEdits, missing: re.Match[str], files: list[str]) -> str | None:
    """A link to a file that is not there, led to the one whose name is all
    but the same (by case, or a slip of the keys)."""
    reference = missing.group("ref")
    if _linking(reference).search(file.text) is None:
        return ""  # the link is gone since the check ran
    target = missing.group("other") or closest(file.path, reference, files)
    if target is None:
        return None
    rest = reference[len(re.split(r"[#?]", reference)[0]) :]  # "#menu" stays
    return relink(file, reference, relative(file.path, target) + rest)


def _alts(file: FileEdits, said: str) -> str | None:
    """Alt text for the image the finding names, or for every image still
    without one ("And 3 more images…"), from file names that say something."""
    named = _NAMED_IMAGE.match(said)
    missing = [
        tag.group(0)
        for tag in _IMAGE.finditer(file.text)
        if not re.search(r"\balt\s*=", tag.group(0), re.IGNORECASE)
    ]
    if named is not None:
        shown = named.group(1)
        missing = [tag for tag in missing if _same_source(_source(tag), shown)]
    if not missing:
        return ""
    described = []
    for tag in dict.fromkeys(missing):
        words = _words_of(_source(tag))
        if words:
            file.insert(file.text.find(tag) + len("<img"), f' alt="{text(words)}"')
            described.append(f"“{words}”")
    if not described:
        return None
    if named is not None:
        return f"described {named.group(1)} from its file name as {described[0]}: {_BETTER}"
    return f"described {_count(len(described), 'image')} from their file names: {_BETTER}"


_NAMED_IMAGE = re.compile(r"^The image (\S+) has no alt\b")
_BETTER = "say better what it shows if you can"


def _source(tag: str) -> str:
    found = re.search(r'\bsrc\s*=\s*["\']([^"\']+)', tag)
    return found.group(1).strip() if found else ""


def _same_source(source: str, shown: str) -> bool:
    # The check cuts a long address at 60 characters, with "…".
    return source == shown or (shown.endswith("…") and source.startswith(shown[:-1]))


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def _words_of(source: str) -> str:
    stem = posixpath.splitext(posixpath.basename(source.split("?", maxsplit=1)[0]))[0]
    words = [w for w in re.split(r"[-_.\s]+", stem) if w.isalpha()]
    if not words or all(w.lower() in _GENERIC for w in words):
        return ""
    joined = " ".join(words).lower()
    return joined[:1].upper() + joined[1:]


def _title(file: FileEdits, texts: dict[str, str]) -> str | None:
    if re.search(r"<title>", file.text, re.IGNORECASE):
        return ""
    heading = re.search(r"<h1\b[^>]*>([^<]+)</h1>", file.text)  # as written: HTML already
    title = (heading.group(1).strip() if heading else "") or text(
        site_name(texts.get("/index.html", ""))
    )
    if not title:
        return None
    if not _after_line(
        file, (r"<meta name=\"viewport\"", r"<meta charset", r"<head\b"), f"<title>{title}</title>"
    ):
        return None
    return f"gave the page the title “{title}”"


def _language(file: FileEdits) -> str | None:
    tag = re.search(r"<html\b[^>]*>", file.text, re.IGNORECASE)
    if tag is None:
        return None
    empty = re.search(r'\blang=""', tag.group(0))
    if empty is not None:
        at = tag.start() + empty.start()
        file.replace(at, at + len(empty.group(0)), 'lang="en"')
    elif "lang=" not in tag.group(0):
        file.insert(tag.start() + len("<html"), ' lang="en"')
    else:
        return ""
    return 'said it is in English (lang="en")'


def _viewport(file: FileEdits) -> str | None:
    if 'name="viewport"' in file.text:
        return ""
    meta = '<meta name="viewport" content="width=device-width, initial-scale=1">'
    if not _after_line(file, (r"<meta charset", r"<head\b"), meta):
        return None
    return "added the viewport line, so phones show it at their own width"


def _after_line(file: FileEdits, anchors: tuple[str, ...], new: str) -> bool:
    """Put `new` on a line of its own after the first line matching one of `anchors`."""
    for anchor in anchors:
        found = re.search(rf"^([ \t]*).*{anchor}.*$", file.text, re.MULTILINE | re.IGNORECASE)
        if found is not None:
            indent = found.group(1) or ("  " if anchor != r"<head\b" else "")
            file.insert(found.end(), f"\n{indent}{new}")
            return True
    return False


def _linking(reference: str) -> re.Pattern[str]:
    """Where a file names `reference`: in quotes or in url(…)."""
    return re.compile(rf"(?<=[\"'(]){re.escape(reference)}(?=[\"')])")


def relink(file: FileEdits, old: str, new: str) -> str | None:
    pattern = _linking(old)
    if pattern.search(file.text) is None:
        return ""  # the link is gone since the check ran
    count = 0
    while (found := pattern.search(file.text)) is not None and count < 20:
        file.replace(found.start(), found.end(), new)
        count += 1
    return f"the link to {old} now leads to {new}, the file that is there" if count else None


def closest(path: str, reference: str, files: list[str]) -> str | None:
    target = posixpath.normpath(
        posixpath.join(
            posixpath.dirname(path), reference.split("#", maxsplit=1)[0].split("?", maxsplit=1)[0]
        )
    )
    same_kind = [f for f in files if posixpath.splitext(f)[1] == posixpath.splitext(target)[1]]
    close = difflib.get_close_matches(target, same_kind, n=1, cutoff=0.8)
    return close[0] if close else None


def relative(path: str, target: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(path) or "/")


def _why(said: str) -> str:
    for words, why in _LEFT:
        if words in said:
            return why
    return "what was meant is a question for you or a real model"


def _shortened(said: str) -> str:
    first = re.split(r"(?<=[.:])\s", said, maxsplit=1)[0].rstrip(".:")
    return first if len(first) <= 90 else first[:89] + "…"


# A finding's words, and the fix for it: (file, the texts read) → what it did.
_PAGE_FIXES: tuple[tuple[str, Callable[[FileEdits, dict[str, str]], str | None]], ...] = (
    ("It has no <title>", _title),
    ("names no language", lambda file, texts: _language(file)),
    ('It has no <meta name="viewport">', lambda file, texts: _viewport(file)),
)


def fix_step(request: str, files: list[str], texts: dict[str, str]) -> Step:
    """What the demo thinks, says and calls to fix the findings `request` lists."""
    fixes = fixes_for(request, files, texts)
    if not fixes.calls:
        listed = [f"- {left}" for left in fixes.left]
        if fixes.gone:
            listed.append("Already fixed, since the check ran:")
            listed += [f"- {gone}" for gone in fixes.gone]
        return Step(
            "Nothing in the list is something I can fix without asking.",
            (
                "I can't fix these as the offline demo, so I changed nothing:"
                if fixes.left
                else "There is nothing left to fix, so I changed nothing."
            )
            + ("\n\n" + "\n".join(listed) if listed else ""),
        )
    return Step(
        "Of the findings, these have one clear fix each; the rest need a person's choice.",
        f"Fixing {_count(len(fixes.fixed), 'finding')} of the site check.",
        fixes.calls,
    )


def fix_notes(request: str, files: list[str], texts: dict[str, str]) -> str:
    """The answer's account of what was fixed and what was left, and why."""
    fixes = fixes_for(request, files, texts)
    said = "What I fixed:\n" + "\n".join(f"- {fixed}" for fixed in fixes.fixed)
    if fixes.left:
        said += "\n\nWhat I left, for you or a real model:\n" + "\n".join(
            f"- {left}" for left in fixes.left
        )
    return said
