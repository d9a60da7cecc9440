"""Line diffs of two versions of a file, as people read them: what was removed
and added, a few unchanged lines around each change, the rest folded, and lines
whose only change is whitespace marked as such.

Computed on the server with difflib and bounded: texts past MAX_LINES lines or
MAX_CHARS characters are not compared ("too large to compare here" instead of
a hang), lines both versions share at their start and end are set aside before
difflib sees them (an edit to a big file compares only the edited stretch), and
a diff shows at most MAX_ROWS rows. Rendering is projects.web.diff_html.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from itertools import zip_longest
from typing import Literal

from django.utils.html import escape
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.token import STANDARD_TYPES, _TokenType
from pygments.util import ClassNotFound

from projects.files.binaries import is_marker

CONTEXT = 3  # unchanged lines shown around a change
MAX_LINES = 20_000  # per version
MAX_CHARS = 2_000_000  # per version
# difflib's work grows with the product of the two changed stretches' lengths.
MAX_WORK = 60_000_000
MAX_ROWS = 4_000  # rows shown before the rest is cut, with a note
FOLDED_ROWS = 1_000  # unchanged lines a diff carries folded, to unfold in place
MAX_COLOURED_CHARS = 250_000  # past this a version is shown without colours (bench/diff_render.py)

RowKind = Literal["same", "removed", "added"]
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@dataclass(frozen=True, slots=True)
class LineCounts:
    added: int
    removed: int


@dataclass(frozen=True, slots=True)
class Row:
    kind: RowKind
    old: int | None  # line numbers, from 1
    new: int | None
    html: str  # the line without its ending, escaped (and coloured)
    whitespace: bool = False  # it differs from its counterpart only in whitespace


@dataclass(frozen=True, slots=True)
class Pair:
    """One row of the side-by-side view."""

    left: Row | None
    right: Row | None


@dataclass(frozen=True, slots=True)
class Fold:
    """Unchanged lines not shown; `rows` holds them to unfold (empty past FOLDED_ROWS)."""

    count: int
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Diff:
    counts: LineCounts | None  # None when too large to compare
    inline: tuple[Row | Fold, ...] = ()
    split: tuple[Pair | Fold, ...] = ()
    too_large: str = ""  # why the versions were not compared
    cut: int = 0  # changed lines past MAX_ROWS, not shown
    whitespace_only: bool = False

    @property
    def identical(self) -> bool:
        return self.counts is not None and self.counts == LineCounts(0, 0)


Opcode = tuple[str, int, int, int, int]


def lines_of(text: str) -> list[str]:
    """The lines of `text`, each with its ending (\\n, \\r\\n or \\r)."""
    return _LINE.findall(text)


def too_large(before: str, after: str) -> str:
    """Why these versions are not compared, or "" when they are."""
    for text in (before, after):
        if len(text) > MAX_CHARS:
            return (
                f"A version has {len(text):,} characters, more than the {MAX_CHARS:,} "
                "compared here."
            )
    return ""


def line_counts(before: str | None, after: str | None) -> LineCounts | None:
    """Lines added and removed from `before` to `after` (None: "no file"); None
    when the versions are too large to compare, or are a binary file's."""
    if _binary(before, after):
        return None
    old, new = lines_of(before or ""), lines_of(after or "")
    opcodes = _bounded_opcodes(before or "", after or "", old, new)
    return None if isinstance(opcodes, str) else _counts(opcodes)


def diff(before: str | None, after: str | None, *, path: str) -> Diff:
    """The diff from `before` to `after` (None: "no file") of the file at `path`
    (whose name picks the colours)."""
    if _binary(before, after):
        return Diff(None, too_large="a binary file (an image, a font or other media) has no lines.")
    old_text, new_text = before or "", after or ""
    old, new = lines_of(old_text), lines_of(new_text)
    opcodes = _bounded_opcodes(old_text, new_text, old, new)
    if isinstance(opcodes, str):
        return Diff(None, too_large=opcodes)
    return _Builder(old, new, coloured(old_text, path), coloured(new_text, path)).build(opcodes)


def _binary(*texts: str | None) -> bool:
    return any(text is not None and is_marker(text) for text in texts)


def _bounded_opcodes(before: str, after: str, old: list[str], new: list[str]) -> list[Opcode] | str:
    problem = too_large(before, after)
    if not problem and max(len(old), len(new)) > MAX_LINES:
        longest = max(len(old), len(new))
        problem = f"A version has {longest:,} lines, more than the {MAX_LINES:,} compared here."
    if problem:
        return problem
    start = 0
    shortest = min(len(old), len(new))
    while start < shortest and old[start] == new[start]:
        start += 1
    end = 0
    while end < shortest - start and old[-1 - end] == new[-1 - end]:
        end += 1
    middle_old, middle_new = old[start : len(old) - end], new[start : len(new) - end]
    if len(middle_old) * len(middle_new) > MAX_WORK:
        return (
            f"The change spans {len(middle_old):,} and {len(middle_new):,} lines: too much "
            "to compare here."
        )
    opcodes: list[Opcode] = [("equal", 0, start, 0, start)] if start else []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, middle_old, middle_new).get_opcodes():
        opcodes.append((tag, i1 + start, i2 + start, j1 + start, j2 + start))
    if end:
        opcodes.append(("equal", len(old) - end, len(old), len(new) - end, len(new)))
    return opcodes


def _counts(opcodes: list[Opcode]) -> LineCounts:
    added = removed = 0
    for tag, i1, i2, j1, j2 in opcodes:
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return LineCounts(added, removed)


def whitespace_only(old: str, new: str) -> bool:
    return old != new and old.split() == new.split()


class _Builder:
    def __init__(self, old: list[str], new: list[str], old_html: list[str], new_html: list[str]):
        self.old, self.new = old, new
        self.old_html, self.new_html = old_html, new_html
        self.inline: list[Row | Fold] = []
        self.split: list[Pair | Fold] = []
        self.shown = 0
        self.cut = 0
        self.folded = 0
        self.all_whitespace = True

    def build(self, opcodes: list[Opcode]) -> Diff:
        last = len(opcodes) - 1
        for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
            if tag == "equal":
                self._equal(i1, i2, j1, first=index == 0, last=index == last)
            else:
                self._change(i1, i2, j1, j2)
        counts = _counts(opcodes)
        changed = counts != LineCounts(0, 0)
        return Diff(
            counts,
            tuple(self.inline),
            tuple(self.split),
            cut=self.cut,
            whitespace_only=changed and self.all_whitespace,
        )

    def _same(self, i: int, j: int) -> Row:
        return Row("same", i + 1, j + 1, self.new_html[j])

    def _equal(self, i1: int, i2: int, j1: int, *, first: bool, last: bool) -> None:
        count = i2 - i1
        keep_head = 0 if first else CONTEXT
        keep_tail = 0 if last else CONTEXT
        if count <= keep_head + keep_tail + 1:
            keep_head, keep_tail = count, 0
        hidden = count - keep_head - keep_tail
        for offset in range(keep_head):
            self._show_same(i1 + offset, j1 + offset)
        if hidden > 0:
            self._fold(i1 + keep_head, j1 + keep_head, hidden)
        for offset in range(count - keep_tail, count):
            self._show_same(i1 + offset, j1 + offset)

    def _show_same(self, i: int, j: int) -> None:
        if self.shown >= MAX_ROWS:
            return
        row = self._same(i, j)
        self.inline.append(row)
        self.split.append(Pair(Row("same", row.old, None, self.old_html[i]), row))
        self.shown += 1

    def _fold(self, i: int, j: int, count: int) -> None:
        if self.shown >= MAX_ROWS:
            return
        rows: tuple[Row, ...] = ()
        if self.folded + count <= FOLDED_ROWS:
            rows = tuple(self._same(i + k, j + k) for k in range(count))
            self.folded += count
        fold = Fold(count, rows)
        self.inline.append(fold)
        self.split.append(fold)

    def _change(self, i1: int, i2: int, j1: int, j2: int) -> None:
        removed = [(i, self.old[i]) for i in range(i1, i2)]
        added = [(j, self.new[j]) for j in range(j1, j2)]
        pairs = list(zip_longest(removed, added))
        marks = [a is not None and b is not None and whitespace_only(a[1], b[1]) for a, b in pairs]
        if not all(marks) or len(removed) != len(added):
            self.all_whitespace = False
        if self.shown >= MAX_ROWS:
            self.cut += len(removed) + len(added)
            return
        old_rows = [
            self._row("removed", i, None, mark)
            for (i, _), mark in zip(removed, marks[: len(removed)], strict=True)
        ]
        new_rows = [
            self._row("added", None, j, mark)
            for (j, _), mark in zip(added, marks[: len(added)], strict=True)
        ]
        room = MAX_ROWS - self.shown
        shown_rows = (old_rows + new_rows)[:room]
        self.cut += len(old_rows) + len(new_rows) - len(shown_rows)
        self.inline.extend(shown_rows)
        for left, right in list(zip_longest(old_rows, new_rows))[:room]:
            self.split.append(Pair(left, right))
        self.shown += len(shown_rows)

    def _row(self, kind: RowKind, i: int | None, j: int | None, whitespace: bool) -> Row:
        if i is not None:
            html = visible_whitespace(self.old[i]) if whitespace else self.old_html[i]
            return Row(kind, i + 1, None, html, whitespace)
        assert j is not None
        html = visible_whitespace(self.new[j]) if whitespace else self.new_html[j]
        return Row(kind, None, j + 1, html, whitespace)


def visible_whitespace(line: str) -> str:
    """A line whose change is only whitespace, with its spaces, tabs and line
    ending shown, so the change can be seen."""
    ending = "␍␊" if line.endswith("\r\n") else "␍" if line.endswith("\r") else ""
    body = line.rstrip("\r\n")
    marked = (
        escape(body)
        .replace(" ", '<span class="ws">·</span>')
        .replace("\t", '<span class="ws">→\t</span>')
    )
    return marked + (f'<span class="ws">{ending}</span>' if ending else "")


def coloured(text: str, path: str) -> list[str]:
    """Each line of `text` (as `lines_of` splits it) as escaped HTML, with
    Pygments token classes when the file's type is known and it is not huge."""
    lines = lines_of(text)
    plain: list[str] = [escape(line.rstrip("\r\n")) for line in lines]
    lexer = _lexer(path)
    if lexer is None or len(text) > MAX_COLOURED_CHARS:
        return plain
    html: list[str] = []
    current: list[str] = []
    for token, value in lexer.get_tokens(text):
        css = _css_class(token)
        for index, piece in enumerate(value.split("\n")):
            if index:
                html.append("".join(current))
                current = []
            if piece:
                current.append(
                    f'<span class="{css}">{escape(piece)}</span>' if css else escape(piece)
                )
    if current:
        html.append("".join(current))
    # Pygments reads \r\n and \r as \n: the same lines, unless a lexer disagrees.
    return html if len(html) == len(lines) else plain


def _lexer(path: str) -> Lexer | None:
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def _css_class(token: _TokenType) -> str:
    while token not in STANDARD_TYPES and token.parent is not None:
        token = token.parent
    return str(STANDARD_TYPES.get(token, ""))
