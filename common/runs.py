"""Runs of adjacent items taken together: the stream's text pieces of one
network read, a turn's events waiting to be sent, a turn's events replayed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

T = TypeVar("T")


def runs(items: Iterable[T], together: Callable[[T, T], bool]) -> list[list[T]]:
    """`items` in runs of adjacent ones where `together(first of the run, item)`."""
    grouped: list[list[T]] = []
    for item in items:
        if grouped and together(grouped[-1][0], item):
            grouped[-1].append(item)
        else:
            grouped.append([item])
    return grouped


def joined_text(items: Sequence[T], kinds: tuple[type[Any], ...]) -> list[T]:
    """`items` with each run of adjacent items of one of `kinds` (dataclasses with
    a `text` field) as one item, their texts joined; everything else as it was.

    Text pieces that travel together cost once instead of once each on their way
    to the browser: the stream's pieces of one network read, a turn's events
    waiting to be sent while the server is busy, a turn's events replayed. A run
    is joined once, at its end (a busy server's runs are hundreds long)."""
    if len(items) < 2:
        # Most calls: a network read or a wake of an idle server brings one piece.
        return list(items)
    # As `runs` would group them, without a call per item: this runs for every
    # network read of every streamed answer.
    joined: list[T] = []
    run: list[T] = []
    kind: type[Any] | None = None  # of the run being gathered
    for item in items:
        if type(item) is kind:
            run.append(item)
            continue
        if run:
            joined.append(_joined(run))
        if isinstance(item, kinds):
            run, kind = [item], type(item)
        else:
            run, kind = [], None
            joined.append(item)
    if run:
        joined.append(_joined(run))
    return joined


def _joined(run: list[T]) -> T:
    if len(run) == 1:
        return run[0]
    pieces: list[Any] = run  # kinds are only known to have a `text` when called
    joined: T = replace(pieces[0], text="".join(piece.text for piece in pieces))
    return joined
