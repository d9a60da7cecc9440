"""A search across a project's files, as the file panel shows it: the matches
grouped by file, each line cut into the parts that matched and the rest, so the
template can mark them (and escape everything)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import groupby

from projects.files.results import SearchResults


@dataclass(frozen=True)
class Part:
    text: str
    matched: bool


@dataclass(frozen=True)
class Hit:
    line: int
    text: str
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class FileHits:
    path: str
    hits: tuple[Hit, ...]


def search_groups(results: SearchResults, *, case_sensitive: bool) -> tuple[FileHits, ...]:
    """The matches of `results` by file, in the order found."""
    pattern = re.compile(re.escape(results.query), 0 if case_sensitive else re.IGNORECASE)
    return tuple(
        FileHits(
            path,
            tuple(Hit(match.line, match.text, _parts(match.text, pattern)) for match in matches),
        )
        for path, matches in groupby(results.matches, key=lambda match: match.path)
    )


# What a result line shows before its first match, when more stood there: the
# file panel is narrow, and a match further along was cut off out of sight.
_LEAD_CHARS = 10
_LEAD_CUT_FROM = 16  # a shorter lead is shown whole


def _parts(text: str, pattern: re.Pattern[str]) -> tuple[Part, ...]:
    parts: list[Part] = []
    at = 0
    for found in pattern.finditer(text):
        if found.start() > at:
            parts.append(Part(text[at : found.start()], False))
        parts.append(Part(found.group(0), True))
        at = found.end()
    if at < len(text):
        parts.append(Part(text[at:], False))
    if len(parts) > 1 and not parts[0].matched and len(parts[0].text) > _LEAD_CUT_FROM:
        parts[0] = Part("…" + parts[0].text[-_LEAD_CHARS:], False)
    return tuple(parts)
