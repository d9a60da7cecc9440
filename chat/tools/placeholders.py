"""Lines that stand for content left out (DESIGN §6, point 13).

Asked to change a file, a model sometimes writes only the part it changed and,
for the rest, a line such as "// ... rest of the code remains the same". Saved
as it is, that line erases what it stands for. The file tools refuse a new text
that holds such a line unless the text it replaces already held it (a page may
show one on purpose, and an edit elsewhere must not trip over it).

The rule is the model's, not the file service's: a person typing in the editor
writes what they mean.

A line is judged whole, as a comment that fills it (HTML <!-- -->, CSS and JS
/* */, JSX {/* */}, JS //) or as plain text. Placeholders are short: a longer
line is skipped once stripped, so the cost is linear in the text's length.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

_MAX_LINE = 160
_SHOWN = 80

# Longest first: "{/*" before "/*".
_COMMENTS = (("{/*", "*/}"), ("<!--", "-->"), ("/*", "*/"), ("//", ""))
_WORD = re.compile(r"[a-z]+")
# "...", "…", "[...]", "{ … }": a line that is nothing but an ellipsis.
_LONE = re.compile(r"[\[({]?\s*(?:\.{3,20}|…{1,5})\s*[\])}]?")
# "...args", "...rest,": a spread in code, not an ellipsis.
_SPREAD = re.compile(r"(?:\.\.\.|…)[A-Za-z_$]")
# Characters of code or markup: a plain line holding one is not prose.
_CODE = frozenset(";={}<>")
_ELLIPSES = ("...", "…")

# Words that point at content written before ("rest" only when followed: a
# lone "rest" is the spread "...rest").
_ORIGINS = frozenset({"rest", "remaining", "existing", "previous", "original"})
_OTHER = frozenset({"other", "others"})
_CONTENT = frozenset(
    {
        "code", "file", "files", "html", "css", "js", "javascript", "markup", "template",
        "style", "styles", "styling", "stylesheet", "rule", "rules", "selectors",
        "declarations", "properties", "content", "contents", "page", "body", "head",
        "section", "sections", "component", "components", "element", "elements", "tags",
        "function", "functions", "method", "methods", "handlers", "hooks", "logic",
        "import", "imports", "interfaces", "types", "script", "scripts", "implementation",
        "line", "lines", "part", "parts", "items", "text",
    }
)  # fmt: skip
# Said of what is left out; matched on the words joined by single spaces.
_VERDICTS = (
    " unchanged ",
    " untouched ",
    " remains the same ",
    " remain the same ",
    " stays the same ",
    " stay the same ",
    " same as before ",
    " as before ",
    " omitted ",
    " for brevity ",
    " not shown ",
    " no changes ",
    " goes here ",
    " go here ",
)
# Only at the end: "the code below is the same as in about.html" is honest.
_CLOSING_VERDICTS = (" is the same ", " are the same ", " here ")  # "previous code here"
_FILLERS = frozenset(
    {
        "the", "of", "a", "an", "all", "and", "or", "your", "my", "our", "its", "this",
        "that", "these", "those", "here", "goes", "go", "keep", "keeps", "kept", "leave",
        "left", "as", "before", "above", "below", "same", "remains", "remain", "stays",
        "stay", "is", "are", "will", "be", "unchanged", "untouched", "omitted", "for",
        "brevity", "not", "shown", "no", "changes", "etc", "from", "in", "to", "more",
    }
)  # fmt: skip
_KNOWN = _ORIGINS | _OTHER | _CONTENT | _FILLERS


@dataclass(frozen=True)
class Placeholder:
    line: int  # from 1
    text: str  # the line, stripped
    # The line before it: which copy of a repeated placeholder is the one the old
    # text held (the one to name is the other).
    after: str = field(default="", compare=False, repr=False)

    @property
    def shown(self) -> str:
        return self.text if len(self.text) <= _SHOWN else self.text[: _SHOWN - 1] + "…"


def no_placeholder_check(*, tool: str) -> Callable[[str, str], str | None]:
    """The check `tool` hands the file service (projects.services.ContentCheck):
    given the old text and the new, the refusal the model reads, or None."""
    where = "the file as your edits leave it" if tool == "edit_file" else "your content"
    remedy = (
        "Write the complete file with create_file, every part written out."
        if tool == "create_file"
        else "Write the whole file with update_file, every part written out, or make a "
        "targeted change with edit_file and leave the rest of the file as it is."
    )

    def check(old: str, new: str) -> str | None:
        found = added_placeholder(old=old, new=new)
        if found is None:
            return None
        return (
            f"Line {found.line} of {where} looks like a placeholder for content left out: "
            f"{found.shown!r}. Nothing was written: every line is saved as it is, so that "
            f"line would stand in the file instead of what it leaves out. {remedy}"
        )

    return check


def added_placeholder(*, old: str, new: str) -> Placeholder | None:
    """The first placeholder of `new` beyond those `old` already holds.

    Counted, not just matched: a second copy of a placeholder the file shows
    on purpose is as lazy as a first one anywhere else. A copy after the same
    line as in `old` is the old one; the others share what is left, in order."""
    added = list(placeholders(new))
    if not added:  # the usual case: the old text need not be read
        return None
    held_before = list(placeholders(old))
    held = Counter(_key(found.text) for found in held_before)
    in_place = Counter(_spot(found) for found in held_before)
    moved: list[Placeholder] = []
    for found in added:
        spot = _spot(found)
        if in_place[spot] > 0:
            in_place[spot] -= 1
            held[_key(found.text)] -= 1
        else:
            moved.append(found)
    for found in moved:
        key = _key(found.text)
        if held[key] <= 0:
            return found
        held[key] -= 1
    return None


def placeholders(text: str) -> Iterator[Placeholder]:
    # Only "\n" ends a line, as everywhere else in the file tools (projects.files.text).
    previous = ""
    shown = _Samples()
    for number, line in enumerate(text.split("\n"), start=1):
        if not shown.within(line) and is_placeholder(line):
            yield Placeholder(number, line.strip(), after=previous)
        previous = line


class _Samples:
    """Whether a line is inside code shown as an example (HTML's <pre>, a
    Markdown fence), where "// ..." is what the page means to show."""

    def __init__(self) -> None:
        self.pre = False
        self.fence = False

    def within(self, line: str) -> bool:
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            self.fence = not self.fence
            return True
        lowered = stripped.lower()
        inside = self.fence or self.pre
        if "<pre" in lowered and "</pre>" not in lowered[lowered.index("<pre") :]:
            self.pre = True
        elif "</pre>" in lowered:
            self.pre = False
        return inside


def is_placeholder(line: str) -> bool:
    stripped = line.strip()
    if not stripped or len(stripped) > _MAX_LINE:
        return False
    for opener, closer in _COMMENTS:
        if stripped.startswith(opener):
            body = stripped[len(opener) :]
            return _comment_placeholder(body.removesuffix(closer).strip().lower())
    if stripped.startswith("#"):
        # A Markdown heading ("## Existing files") as often as a comment: only
        # an ellipsis or a verdict makes it one.
        body = stripped.lstrip("#").strip().lower()
        words = _WORD.findall(body)
        return (
            bool(words) and (_has_ellipsis(body) or _verdict(words)) and _comment_placeholder(body)
        )
    return _plain_placeholder(stripped.lower())


def _comment_placeholder(body: str) -> bool:
    if _LONE.fullmatch(body):
        return True
    words = _WORD.findall(body)
    if not words:
        return False
    origin, other, content = _origin(words), bool(_OTHER.intersection(words)), _has_content(words)
    ellipsis, known, verdict = _has_ellipsis(body), _all_known(words), _verdict(words)
    return (
        # "... existing useEffect hooks", "... (other functions)"
        (_opens_with_ellipsis(body) and (origin or other))
        # "rest stays the same", "header section unchanged", "same as before"
        or (verdict and (origin or other or content or ellipsis or known))
        # "existing styles", "the rest of your existing code": nothing else said
        # ("previous page", "remaining items" are what such comments say honestly)
        or (_standing(words) and content and known)
        # "other existing code...", "rest of the styles …"
        or ((origin or other) and content and ellipsis)
    )


def _plain_placeholder(line: str) -> bool:
    """Stricter than a comment: prose and code use these words too."""
    if _LONE.fullmatch(line):
        return True
    if _CODE.intersection(line) or _SPREAD.search(line):
        return False
    words = _WORD.findall(line)
    if len(words) < 2 or not _all_known(words):
        return False
    verdict = _verdict(words)
    return (_standing(words) and _has_content(words)) or (
        verdict and (_origin(words) or _has_content(words) or _has_ellipsis(line))
    )


def _origin(words: list[str]) -> bool:
    return any(
        word in _ORIGINS and (word != "rest" or index + 1 < len(words))
        for index, word in enumerate(words)
    )


def _standing(words: list[str]) -> bool:
    """Words that stand for what was there without a verdict beside them."""
    # "rest" only when followed: a lone "rest" is the spread "...rest".
    return "existing" in words or any(
        word == "rest" and index + 1 < len(words) for index, word in enumerate(words)
    )


def _has_content(words: list[str]) -> bool:
    return not _CONTENT.isdisjoint(words)


def _all_known(words: list[str]) -> bool:
    return all(word in _KNOWN for word in words)


def _verdict(words: list[str]) -> bool:
    joined = " " + " ".join(words) + " "
    return any(phrase in joined for phrase in _VERDICTS) or joined.endswith(_CLOSING_VERDICTS)


def _has_ellipsis(text: str) -> bool:
    return any(mark in text for mark in _ELLIPSES)


def _opens_with_ellipsis(body: str) -> bool:
    return body.lstrip(" \t[({*-:").startswith(_ELLIPSES)


def _spot(found: Placeholder) -> tuple[str, str]:
    return _key(found.text), _key(found.after)


def _key(text: str) -> str:
    """A placeholder as compared between old and new: indentation and spacing aside."""
    return " ".join(text.split()).lower()
