"""The "Next:" line a final answer ends with: taken off the answer, kept as the
turn's suggestions, read back from the stored record."""

from __future__ import annotations

import pytest

from chat.next_steps import MAX_SUGGESTIONS, split_next
from chat.records.turn import TurnRecord

ANSWER = "Done: the site is built.\n\n- created `index.html`"


def test_the_next_line_becomes_suggestions_and_leaves_the_answer() -> None:
    text = (
        ANSWER + "\n\nNext: Add a contact form | Make the header dark green | Add an about page\n"
    )
    assert split_next(text) == (
        ANSWER,
        ("Add a contact form", "Make the header dark green", "Add an about page"),
    )


@pytest.mark.parametrize(
    "line",
    [
        "**Next:** Add a menu | Add a map",
        "next steps: Add a menu|Add a map",
        "- Next — Add a menu | Add a map",
    ],
)
def test_the_line_is_found_however_the_model_dressed_it(line: str) -> None:
    assert split_next(f"{ANSWER}\n{line}") == (ANSWER, ("Add a menu", "Add a map"))


@pytest.mark.parametrize(
    "text",
    [ANSWER, "What comes next: nothing.", "Next:", "Next: | |", f"Next: a | b\n{ANSWER}"],
)
def test_an_answer_without_a_closing_next_line_is_kept_whole(text: str) -> None:
    assert split_next(text) == (text, ())


def test_at_most_three_suggestions_are_kept() -> None:
    _, suggestions = split_next("Done.\nNext: a | b | c | d | e")
    assert suggestions == ("a", "b", "c")
    assert len(suggestions) == MAX_SUGGESTIONS


def test_suggestions_are_stored_on_the_turn_record_and_read_back() -> None:
    record = TurnRecord(suggestions=("Add a menu", "Add a map"))
    stored = record.to_stored()
    assert stored["suggestions"] == ["Add a menu", "Add a map"]
    assert TurnRecord.from_stored(stored).suggestions == ("Add a menu", "Add a map")


def test_a_record_without_suggestions_stores_none_and_older_records_read_none() -> None:
    assert "suggestions" not in TurnRecord().to_stored()
    assert TurnRecord.from_stored({"status": "completed"}).suggestions == ()
    assert TurnRecord.from_stored({"suggestions": ["ok", 3, None]}).suggestions == ("ok",)
