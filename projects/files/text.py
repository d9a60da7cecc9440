"""Line handling shared by reads, search and edits.

Only "\\n" ends a line. str.splitlines() also splits at U+2028, form feeds
and friends, which would break string literals and shift line numbers.
"""

from __future__ import annotations

import re

_BARE_LF = re.compile(r"(?<!\r)\n")


def split_lines(text: str) -> list[str]:
    """Lines with their endings kept: "a\\nb" -> ["a\\n", "b"]."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def bare_lines(text: str) -> list[str]:
    """Lines without their endings (a trailing newline adds no empty line)."""
    return [line.removesuffix("\n").removesuffix("\r") for line in split_lines(text)]


def uses_crlf(text: str) -> bool:
    return "\r\n" in text


def with_line_endings_of(text: str, new: str) -> str:
    """`new` with CRLF endings when `text` uses them, so files never mix the two."""
    return _BARE_LF.sub("\r\n", new) if uses_crlf(text) else new
