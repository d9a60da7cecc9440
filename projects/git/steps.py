"""The revision log read as steps, each one commit of `main`: a turn that
changed files (every revision its assistant messages made), an undo, redo or
restore (every revision its `Reversal` wrote), and each save, upload, rename or
deletion of a person on its own. Steps follow each other in revision order;
a turn's revisions are never interleaved with a person's (the project is
locked while the assistant works: projects.locks)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from projects.git.turns import TurnRequest, turn_requests
from projects.models import FileRevision

StepKind = Literal["turn", "reversal", "person"]


@dataclass(frozen=True)
class Rev:
    """A revision as the repository reads it (no texts)."""

    pk: int
    action: str
    path: str
    old_path: str
    after_id: int | None
    actor: str
    user_id: int | None
    message_id: int | None
    reversal_id: int | None
    created_at: datetime
    note: str  # what the person's change was, in words ("Edited in the preview: …"), or ""


REV_FIELDS = (
    "pk",
    "action",
    "path",
    "old_path",
    "after_id",
    "actor",
    "user_id",
    "message_id",
    "reversal_id",
    "created_at",
    "note",
)


@dataclass
class Step:
    kind: StepKind
    key: object  # revisions with the same key, one after another, are one step
    revisions: list[Rev] = field(default_factory=list)
    request: str = ""  # a turn's request, when chat told us

    @property
    def last(self) -> Rev:
        return self.revisions[-1]


def steps_of(revisions: Iterable[Rev]) -> list[Step]:
    """`revisions` (in id order) as steps."""
    rows = list(revisions)
    requests = turn_requests(row.message_id for row in rows if row.message_id is not None)
    steps: list[Step] = []
    for row in rows:
        kind, key, request = _kind_of(row, requests)
        if steps and steps[-1].kind == kind and steps[-1].key == key:
            steps[-1].revisions.append(row)
            continue
        steps.append(Step(kind, key, [row], request))
    return steps


def _kind_of(row: Rev, requests: dict[int, TurnRequest]) -> tuple[StepKind, object, str]:
    if row.reversal_id is not None:
        return "reversal", row.reversal_id, ""
    if row.actor == FileRevision.Actor.ASSISTANT:
        found = requests.get(row.message_id) if row.message_id is not None else None
        if found is not None:
            return "turn", ("request", found.request_id), found.text
        # Its request is unknown (no reader, or the chat was deleted): its message's turn.
        return "turn", ("message", row.message_id), ""
    return "person", row.pk, ""
