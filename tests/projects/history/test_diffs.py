"""Diffs as people read them: the changed lines with a little context,
long unchanged stretches folded, whitespace-only changes marked and made
visible, file text escaped, and bounds that say "too large" instead of hanging."""

from __future__ import annotations

import pytest

from projects.history import diffs
from projects.history.diffs import Fold, LineCounts, Pair, Row, diff, line_counts
from projects.web.diff_html import diff_notes, diff_table, file_diff


def numbered(count: int) -> str:
    return "".join(f"line {n}\n" for n in range(1, count + 1))


def test_an_edit_in_a_long_file_shows_its_context_and_folds_the_rest() -> None:
    before = numbered(5_000)
    after = before.replace("line 2500\n", "line two thousand five hundred\n")
    found = diff(before, after, path="/notes.txt")
    assert found.counts == LineCounts(1, 1)
    kinds = [item.kind if isinstance(item, Row) else "fold" for item in found.inline]
    assert kinds == ["fold", *["same"] * 3, "removed", "added", *["same"] * 3, "fold"]
    first, *_, last = found.inline
    assert isinstance(first, Fold)
    assert first.count == 2_496
    assert isinstance(last, Fold)
    assert last.count == 2_497
    changed = [item for item in found.inline if isinstance(item, Row) and item.kind != "same"]
    assert [(row.old, row.new, row.html) for row in changed] == [
        (2500, None, "line 2500"),
        (None, 2500, "line two thousand five hundred"),
    ]
    pairs = [entry for entry in found.split if isinstance(entry, Pair)]
    (pair,) = [p for p in pairs if p.left is not None and p.left.kind == "removed"]
    assert pair.right is not None
    assert pair.right.kind == "added"


def test_a_short_fold_carries_its_lines_to_unfold_and_a_long_one_only_its_count() -> None:
    before = numbered(40)
    after = before.replace("line 20\n", "line twenty\n")
    folds = [item for item in diff(before, after, path="/a.txt").inline if isinstance(item, Fold)]
    assert [len(fold.rows) for fold in folds] == [16, 17]
    html = diff_table(diff(before, after, path="/a.txt"), layout="inline")
    assert 'data-action="unfold"' in html
    assert "<tbody hidden>" in html
    big = numbered(diffs.FOLDED_ROWS * 3)
    edited = big.replace("line 10\n", "line ten\n")
    long_fold = [i for i in diff(big, edited, path="/a.txt").inline if isinstance(i, Fold)][-1]
    assert long_fold.rows == ()
    assert "unchanged lines</td>" in diff_table(diff(big, edited, path="/a.txt"), layout="split")


def test_whitespace_only_changes_are_marked_and_shown() -> None:
    before = "<ul>\n<li>Bread</li>\n</ul>\n"
    after = "<ul>\n  <li>Bread</li>\n</ul>\n"
    found = diff(before, after, path="/index.html")
    assert found.whitespace_only
    marked = [item for item in found.inline if isinstance(item, Row) and item.whitespace]
    assert len(marked) == 2
    assert '<span class="ws">·</span>' in marked[1].html
    assert "Only whitespace changed" in " ".join(diff_notes(found))
    crlf = diff("a\r\nb\r\n", "a\nb\n", path="/a.txt")
    assert crlf.whitespace_only
    assert "␍␊" in diff_table(crlf, layout="inline")
    real = diff("a\nb\n", "a\nc\n", path="/a.txt")
    assert not real.whitespace_only


def test_file_text_is_escaped_and_coloured() -> None:
    before = "<p>Hi</p>\n"
    after = "<p>Hi</p>\n<script>alert(1)</script>\n"
    shown = file_diff(before, after, path="/index.html", layout="inline")
    assert "<script>" not in shown.table
    assert "&lt;" in shown.table
    assert 'class="nt"' in shown.table, "HTML tags get Pygments' class"
    plain = file_diff("x\n", "<b>\n", path="/notes.unknown", layout="split")
    assert "&lt;b&gt;" in plain.table


def test_created_and_deleted_files_are_all_added_or_all_removed() -> None:
    assert line_counts(None, "a\nb\n") == LineCounts(2, 0)
    assert line_counts("a\nb\nc", None) == LineCounts(0, 3)
    assert diff("same\n", "same\n", path="/a.txt").identical
    assert diff_notes(diff("same\n", "same\n", path="/a.txt")) == ["No difference."]


def test_versions_past_the_bounds_are_not_compared_and_say_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    many = numbered(diffs.MAX_LINES + 1)
    found = diff(many, many + "more\n", path="/a.txt")
    assert found.counts is None
    assert f"more than the {diffs.MAX_LINES:,} compared here" in diff_notes(found)[0]
    assert line_counts(many, many + "x\n") is None
    assert diff_table(found, layout="inline") == ""
    monkeypatch.setattr(diffs, "MAX_WORK", 100)
    wide = diff(numbered(20), "".join(f"other {n}\n" for n in range(20)), path="/a.txt")
    assert wide.counts is None
    assert "too much to compare here" in wide.too_large


def test_a_diff_with_more_changed_rows_than_shown_says_how_many_are_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(diffs, "MAX_ROWS", 10)
    found = diff(numbered(20), "".join(f"new {n}\n" for n in range(20)), path="/a.txt")
    assert found.counts == LineCounts(20, 20)
    assert len(found.inline) == 10
    assert found.cut == 30
    assert "30 more changed lines are not shown here." in diff_notes(found)
