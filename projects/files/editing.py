"""Search/replace edits on text, all or nothing (pure functions, no database).

Each edit's search text must match exactly once in the text as it stands
after the edits before it. When the exact text is absent, a tolerant match
that ignores trailing whitespace and line endings, then indentation, is used,
but only when it finds exactly one place. Failures say what to do next: the
line numbers of every occurrence, or the closest text that does exist.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from projects.files.results import ErrorCode, FileError
from projects.files.text import bare_lines, split_lines, with_line_endings_of

_MAX_REPORTED_LINES = 20
_MAX_CLOSEST_LINES = 30


@dataclass(frozen=True)
class Edit:
    old: str
    new: str


def apply_edits(content: str, edits: Sequence[Edit]) -> str | FileError:
    if not edits:
        return FileError(ErrorCode.INVALID_ARGUMENT, "No edits were given.")
    text = content
    for number, edit in enumerate(edits, start=1):
        result = _apply_one(text, edit, number)
        if isinstance(result, FileError):
            return result
        text = result
    return text


def _apply_one(text: str, edit: Edit, number: int) -> str | FileError:
    label = f"Edit {number}"
    if edit.old.strip() == "":
        return _failure(ErrorCode.INVALID_ARGUMENT, f"{label}: the search text is empty.", number)
    if edit.old == edit.new:
        return _failure(
            ErrorCode.NO_CHANGE,
            f"{label}: the search and replacement texts are identical, so nothing would change.",
            number,
        )
    starts = _occurrences(text, edit.old)
    if len(starts) == 1:
        new = with_line_endings_of(text, edit.new)
        return text[: starts[0]] + new + text[starts[0] + len(edit.old) :]
    if len(starts) > 1:
        lines = tuple(text.count("\n", 0, start) + 1 for start in starts)
        return _ambiguous(label, number, lines)
    return _apply_tolerant(text, edit, label, number)


def _occurrences(text: str, needle: str) -> list[int]:
    found: list[int] = []
    start = text.find(needle)
    while start != -1:
        found.append(start)
        start = text.find(needle, start + 1)
    return found


def _trailing_insensitive(line: str) -> str:
    return line.rstrip()


def _indent_insensitive(line: str) -> str:
    return line.strip()


def _apply_tolerant(text: str, edit: Edit, label: str, number: int) -> str | FileError:
    lines = split_lines(text)
    wanted = bare_lines(edit.old)
    for key in (_trailing_insensitive, _indent_insensitive):
        matches = _line_matches(lines, wanted, key)
        if len(matches) > 1:
            return _ambiguous(label, number, tuple(m + 1 for m in matches), tolerant=True)
        if len(matches) == 1:
            reindent = key is _indent_insensitive
            return _replace_lines(lines, matches[0], wanted, edit.new, reindent=reindent)
    return _not_found(lines, wanted, label, number)


def _line_matches(lines: list[str], wanted: list[str], key: Callable[[str], str]) -> list[int]:
    keys = [key(line) for line in wanted]
    size = len(keys)
    first = keys[0]
    return [
        index
        for index in range(len(lines) - size + 1)
        if key(lines[index]) == first
        and all(key(lines[index + j]) == keys[j] for j in range(1, size))
    ]


def _replace_lines(
    lines: list[str], start: int, wanted: list[str], new: str, *, reindent: bool
) -> str:
    matched = lines[start : start + len(wanted)]
    eol = "\r\n" if matched[0].endswith("\r\n") else "\n"
    replacement = bare_lines(new)
    if reindent:
        replacement = _reindent(replacement, wanted, matched)
    body = eol.join(replacement)
    if replacement and matched[-1].endswith(("\n", "\r")):
        body += eol
    return "".join(lines[:start]) + body + "".join(lines[start + len(wanted) :])


def _reindent(replacement: list[str], searched: list[str], matched: list[str]) -> list[str]:
    """Give the replacement the file's indentation: its tabs-or-spaces, its depth."""
    file_unit, search_unit = _indent_unit(matched), _indent_unit(searched)
    if file_unit and search_unit and (file_unit == "\t") != (search_unit == "\t"):
        replacement = [_convert_indent(line, search_unit, file_unit) for line in replacement]
        searched = [_convert_indent(line, search_unit, file_unit) for line in searched]
    return _shift_indent(replacement, _indent(searched), _indent(matched))


def _indent_unit(lines: Sequence[str]) -> str | None:
    """ "\t" for tab-indented lines, else the smallest run of leading spaces."""
    widths: set[int] = set()
    for line in lines:
        lead = _leading(line)
        if not line.strip() or not lead:
            continue
        if lead.startswith("\t"):
            return "\t"
        widths.add(len(lead) - len(lead.lstrip(" ")))
    widths.discard(0)
    return " " * min(widths) if widths else None


def _convert_indent(line: str, source: str, target: str) -> str:
    lead = _leading(line)
    if source == "\t":
        levels = len(lead) - len(lead.lstrip("\t"))
        rest = lead[levels:]
    else:
        spaces = len(lead) - len(lead.lstrip(" "))
        levels, extra = divmod(spaces, len(source))
        rest = " " * extra + lead[spaces:]
    return target * levels + rest + line[len(lead) :]


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indent(lines: Sequence[str]) -> str:
    for line in lines:
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    return ""


def _shift_indent(lines: list[str], searched: str, actual: str) -> list[str]:
    """Move the replacement by the indentation the search text got wrong."""
    if actual.startswith(searched):
        extra = actual[len(searched) :]
        return [extra + line if line.strip() else line for line in lines]
    if searched.startswith(actual):
        surplus = searched[len(actual) :]
        return [line.removeprefix(surplus) for line in lines]
    return lines


def _ambiguous(
    label: str, number: int, lines: tuple[int, ...], *, tolerant: bool = False
) -> FileError:
    shown = ", ".join(str(line) for line in lines[:_MAX_REPORTED_LINES])
    more = "" if len(lines) <= _MAX_REPORTED_LINES else ", …"
    how = " (ignoring whitespace)" if tolerant else ""
    return _failure(
        ErrorCode.AMBIGUOUS_MATCH,
        f"{label}: the search text appears {len(lines)} times{how}, at lines {shown}{more}. "
        "Include more surrounding lines so it matches exactly once.",
        number,
        match_lines=lines,
        shown=f"Not changed: the text to change appears {len(lines)} times in the file",
    )


_NOT_FOUND = "Not changed: the text to change was not found in the file"


def _not_found(lines: list[str], wanted: list[str], label: str, number: int) -> FileError:
    closest = _closest_window(lines, wanted)
    message = f"{label}: the search text was not found in the file."
    if closest is None:
        return _failure(
            ErrorCode.NO_MATCH, message + " Read the file again.", number, shown=_NOT_FOUND
        )
    start, snippet = closest
    return _failure(
        ErrorCode.NO_MATCH,
        f"{message} The closest text starts at line {start + 1}; copy the search text "
        "exactly from the file (read it again if unsure).",
        number,
        shown=_NOT_FOUND,
        closest_match=snippet,
        closest_match_line=start + 1,
    )


def _closest_window(lines: list[str], wanted: list[str]) -> tuple[int, str] | None:
    """The window of the file sharing the most (stripped) lines with the search text."""
    keys = [line.strip() for line in wanted]
    stripped = [line.strip() for line in lines]
    best_start, best_score = -1, 0
    for start in range(len(lines)):
        window = stripped[start : start + len(keys)]
        score = sum(1 for a, b in zip(window, keys, strict=False) if a and a == b)
        if score > best_score:
            best_start, best_score = start, score
    if best_score == 0:
        best_start = _closest_single_line(stripped, keys)
        if best_start < 0:
            return None
    window_lines = lines[best_start : best_start + min(len(wanted), _MAX_CLOSEST_LINES)]
    return best_start, "".join(window_lines)


def _closest_single_line(stripped: list[str], keys: list[str]) -> int:
    probe = next((key for key in keys if key), "")
    if not probe:
        return -1
    best_index, best_ratio = -1, 0.6
    for index, line in enumerate(stripped):
        if not line:
            continue
        matcher = difflib.SequenceMatcher(None, probe, line, autojunk=False)
        if matcher.real_quick_ratio() < best_ratio or matcher.quick_ratio() < best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best_index, best_ratio = index, ratio
    return best_index


def _failure(
    code: ErrorCode,
    message: str,
    number: int,
    *,
    match_lines: tuple[int, ...] = (),
    closest_match: str | None = None,
    closest_match_line: int | None = None,
    shown: str = "",
) -> FileError:
    return FileError(
        code,
        message,
        shown=shown,
        edit_index=number,
        match_lines=match_lines,
        closest_match=closest_match,
        closest_match_line=closest_match_line,
    )
