"""The offline demo's small changes as edit_file would apply them: each a
search text found exactly once in the file as the edits before it leave it
(projects.files.editing), widened by whole neighbouring lines until it is.
The demo follows the file along as it edits, so every search it sends is
unique where the tool will look for it, and it never sends an edit that
changes nothing."""

from __future__ import annotations

from typing import Any

Call = tuple[str, dict[str, Any]]


class FileEdits:
    """The edits to one file, gathered in order."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.edits: list[dict[str, str]] = []

    def replace(self, start: int, end: int, new: str) -> None:
        """Replace text[start:end] with `new` (nothing when it is the same)."""
        if self.text[start:end] == new:
            return
        first, last = _unique_span(self.text, start, end)
        search = self.text[first:last]
        replace = self.text[first:start] + new + self.text[end:last]
        self.edits.append({"search": search, "replace": replace})
        self.text = self.text[:start] + new + self.text[end:]

    def replace_text(self, old: str, new: str) -> bool:
        """Replace the first `old` with `new`; False when `old` is not there."""
        start = self.text.find(old)
        if start < 0:
            return False
        self.replace(start, start + len(old), new)
        return True

    def insert(self, at: int, new: str) -> None:
        self.replace(at, at, new)

    @property
    def call(self) -> Call | None:
        if not self.edits:
            return None
        return ("edit_file", {"path": self.path, "edits": list(self.edits)})


def _unique_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of whole lines around [start, end) that occurs once in `text`
    (an insertion at a point takes at least its line)."""
    first = text.rfind("\n", 0, start) + 1
    last = _line_end(text, end if end > start else start)
    while text.count(text[first:last]) > 1 or not text[first:last].strip():
        if first == 0 and last == len(text):
            break
        if first > 0:
            first = text.rfind("\n", 0, first - 1) + 1
        if last < len(text):
            last = _line_end(text, last + 1)
    return first, last


def _line_end(text: str, at: int) -> int:
    found = text.find("\n", at)
    return len(text) if found < 0 else found
