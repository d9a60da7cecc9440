"""Reads the model already has (DESIGN §6, point 10): within one turn, a
read-only call made again with the same arguments, while the files it read
are as they were, is answered with a short note naming the earlier call
instead of the same content again. A model that reads the same unchanged file
three times pays for it once.

What a call read: the files its result names with their versions (read_file),
or, when it names none, the whole project (list_project_files, search_files).
"As they were" is each file's version and last write time, read fresh before
the answer is given, so a person's edit in the editor during the turn ends an
entry as surely as the model's own write does. Never across turns: a turn's
history does not carry file contents, so the next turn reads them again."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from chat.llm import ToolCall
from chat.tools import ToolOutcome
from common.jsontypes import NOT_JSON, decoded

Stamps = Mapping[str, tuple[int, datetime]]  # path → (version, last written)


@dataclass(frozen=True)
class Earlier:
    call_id: str
    read: tuple[str, ...] | None  # the files it read; None: the whole project
    stamps: Stamps  # the project's files when it ran
    path: str | None  # what its card names
    result: str  # its result as the repeat counter reads it (chat.agent.runner)


class ReadCache:
    """One turn's earlier reads. Calls of one round run side by side: a lock."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], Earlier] = {}
        self._lock = threading.Lock()

    def earlier(self, call: ToolCall, stamps: Stamps) -> Earlier | None:
        """The same call made earlier in this turn, if what it read is unchanged."""
        with self._lock:
            found = self._entries.get(_key(call))
        if found is None or not _unchanged(found, stamps):
            return None
        return found

    def remember(self, call: ToolCall, outcome: ToolOutcome, stamps: Stamps) -> None:
        """A read-only call's result, read when the files were `stamps` (taken
        before it ran: a change while it ran only makes the entry miss)."""
        if not outcome.ok:
            return
        read = tuple(path for path, version in outcome.seen.items() if version is not None)
        result = json.dumps(outcome.result, sort_keys=True)
        entry = Earlier(call.id, read or None, dict(stamps), outcome.path, result)
        with self._lock:
            self._entries[_key(call)] = entry

    def forget(self, changed: Iterable[str]) -> None:
        """A write changed these files: every entry that read one of them, or the
        whole project, ends."""
        paths = set(changed)
        with self._lock:
            for key, entry in list(self._entries.items()):
                if entry.read is None or paths & set(entry.read):
                    del self._entries[key]


def cached_outcome(earlier: Earlier) -> ToolOutcome:
    """The short answer that stands for the earlier call's result."""
    return ToolOutcome(
        True,
        {
            "success": True,
            "unchanged": True,
            "same_as_call": earlier.call_id,
            "note": (
                f"Nothing it read has changed since call {earlier.call_id} earlier in this "
                "turn made this same call: that result still holds, so it is not sent again."
            ),
        },
        "Unchanged since an earlier call in this turn: not sent again",
        path=earlier.path,
    )


def canonical_arguments(arguments: str) -> str:
    """A call's arguments as one text however they were spelt (keys sorted,
    spacing normalised); as sent when they are not JSON."""
    value = decoded(arguments)
    return arguments if value is NOT_JSON else json.dumps(value, sort_keys=True)


def _key(call: ToolCall) -> tuple[str, str]:
    return call.name, canonical_arguments(call.arguments)


def _unchanged(entry: Earlier, stamps: Stamps) -> bool:
    if entry.read is None:
        return dict(stamps) == dict(entry.stamps)
    return all(stamps.get(path) == entry.stamps.get(path) for path in entry.read)
