"""A `projects.history.diffs.Diff` as an HTML table, inline or side by side.

Built as strings rather than through a template: a 5,000-line file's diff is
thousands of rows, and Django's template engine would spend most of the second
budgeted for it (bench/diff_render.py). Every piece of file text in a row was
escaped by projects.history.diffs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.utils.safestring import SafeString, mark_safe

from projects.history.diffs import Diff, Fold, LineCounts, Pair, Row, diff

Layout = Literal["inline", "split"]
_SIGN = {"same": " ", "removed": "\u2212", "added": "+"}  # a minus sign, not a hyphen
_SAID = {"same": "", "removed": "Removed: ", "added": "Added: "}


def diff_table(diff: Diff, *, layout: Layout) -> SafeString:
    """The diff's rows (see `diff_notes` for what is said about it)."""
    if diff.counts is None or diff.identical:
        return mark_safe("")
    parts = [f'<div class="diff-scroll"><table class="diff diff-{layout}">']
    if layout == "split":  # fixed columns (diff.css): two halves that wrap, not scroll
        parts.append('<colgroup><col class="ln"><col><col class="ln"><col></colgroup>')
    parts.append("<tbody>")
    if layout == "inline":
        for item in diff.inline:
            parts.append(_fold(item, 3) if isinstance(item, Fold) else _inline(item))
    else:
        for entry in diff.split:
            parts.append(_fold(entry, 4) if isinstance(entry, Fold) else _pair(entry))
    parts.append("</tbody></table></div>")
    return mark_safe("".join(parts))  # noqa: S308 (escaped in projects.history.diffs)


def diff_notes(diff: Diff) -> list[str]:
    """What a person should know beside the rows."""
    if diff.counts is None:
        return [f"Not compared: {diff.too_large}"]
    notes = []
    if diff.identical:
        notes.append("No difference.")
    elif diff.whitespace_only:
        notes.append("Only whitespace changed (spaces, tabs or line endings, shown as · → ␍).")
    if diff.cut:
        notes.append(f"{diff.cut:,} more changed lines are not shown here.")
    return notes


def _number(value: int | None) -> str:
    return f'<td class="ln">{value}</td>' if value is not None else '<td class="ln"></td>'


def _code(row: Row) -> str:
    marked = " ws-change" if row.whitespace else ""
    said = _SAID[row.kind]
    hidden = f'<span class="visually-hidden">{said}</span>' if said else ""
    return (
        f'<td class="code {row.kind}{marked}"><span class="sign" aria-hidden="true">'
        f"{_SIGN[row.kind]}</span>{hidden}{row.html}</td>"
    )


def _inline(row: Row) -> str:
    return f'<tr class="{row.kind}">{_number(row.old)}{_number(row.new)}{_code(row)}</tr>'


def _pair(pair: Pair) -> str:
    left = (
        _number(pair.left.old) + _code(pair.left)
        if pair.left
        else '<td class="ln"></td><td class="code empty"></td>'
    )
    right = (
        _number(pair.right.new) + _code(pair.right)
        if pair.right
        else '<td class="ln"></td><td class="code empty"></td>'
    )
    return f"<tr>{left}{right}</tr>"


def _fold(fold: Fold, columns: int) -> str:
    lines = "line" if fold.count == 1 else "lines"
    if not fold.rows:
        return (
            f'<tr class="fold"><td colspan="{columns}">⋯ {fold.count:,} unchanged {lines}</td></tr>'
        )
    hidden = "".join(_inline(row) if columns == 3 else _pair(Pair(row, row)) for row in fold.rows)
    return (
        f'<tr class="fold"><td colspan="{columns}"><button type="button" class="link small" '
        f'data-action="unfold">⋯ Show {fold.count:,} unchanged {lines}</button></td></tr>'
        f"</tbody><tbody hidden>{hidden}</tbody><tbody>"
    )


@dataclass(frozen=True)
class FileDiff:
    """One file's diff, ready for projects/partials/diff.html."""

    path: str
    action: str  # created, edited, renamed, deleted (or "" when not one change)
    old_path: str | None
    counts: LineCounts | None
    table: SafeString
    notes: list[str]
    one_sided: bool = False  # created or deleted: drawn inline whatever was asked


def file_diff(
    before: str | None,
    after: str | None,
    *,
    path: str,
    layout: Layout,
    action: str = "",
    old_path: str | None = None,
) -> FileDiff:
    computed = diff(before, after, path=path)
    # A new or deleted file side by side is half an empty column: it reads inline.
    one_sided = before is None or after is None
    return FileDiff(
        path=path,
        action=action,
        old_path=old_path,
        counts=computed.counts,
        table=diff_table(computed, layout="inline" if one_sided else layout),
        notes=diff_notes(computed),
        one_sided=one_sided,
    )


def layout_of(raw: str | None) -> Layout:
    """The layout a request asked for: side by side only when it says so."""
    return "split" if raw == "split" else "inline"
