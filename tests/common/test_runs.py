"""Runs of adjacent items taken together, and text pieces joined a run at a time."""

from __future__ import annotations

import operator
from dataclasses import dataclass

from common.runs import joined_text, runs


@dataclass(frozen=True)
class Said:
    text: str


@dataclass(frozen=True)
class Thought:
    text: str


def test_adjacent_items_that_go_together_make_a_run() -> None:
    assert runs([1, 1, 2, 2, 2, 1], operator.eq) == [[1, 1], [2, 2, 2], [1]]
    assert runs([], operator.eq) == []


def test_an_item_joins_a_run_by_the_runs_first_item() -> None:
    # Each is within 1 of the one before it, but not of the first of its run.
    assert runs([1, 2, 3, 4], lambda first, item: item - first <= 1) == [[1, 2], [3, 4]]


def test_adjacent_texts_of_one_kind_are_joined_and_the_rest_kept() -> None:
    items = [Said("a"), Said("b"), Thought("c"), Thought("d"), Said("e"), 7]
    assert joined_text(items, (Said,)) == [Said("ab"), Thought("c"), Thought("d"), Said("e"), 7]
    assert joined_text(items, (Said, Thought)) == [Said("ab"), Thought("cd"), Said("e"), 7]


def test_an_item_on_its_own_is_kept_as_it_was() -> None:
    alone = Said("x")
    assert joined_text([alone], (Said,))[0] is alone
