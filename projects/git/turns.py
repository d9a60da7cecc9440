"""The person's request that began each turn, for a turn's commit message.

Projects never import chat, where requests live: chat registers a reader here
when it is ready (`turn_requests_register`), as it does for published
versions' notes (projects.publish.notes). Without one, a turn's commit says
only that the assistant made it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class TurnRequest:
    request_id: int  # the person's message that began the turn
    text: str


# The assistant messages' ids -> the turn each belongs to (those it knows).
TurnRequestsReader = Callable[[Iterable[int]], dict[int, TurnRequest]]
_readers: list[TurnRequestsReader] = []


def turn_requests_register(reader: TurnRequestsReader) -> None:
    if reader not in _readers:
        _readers.append(reader)


def turn_requests(message_ids: Iterable[int]) -> dict[int, TurnRequest]:
    wanted = list(dict.fromkeys(message_ids))
    found: dict[int, TurnRequest] = {}
    for reader in _readers:
        found.update(reader(wanted))
    return found
