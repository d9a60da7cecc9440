"""What each turn changed, and taking it back.

A turn is a person's message and the messages up to their next one; the file
revisions its tool calls made are linked to those messages. These functions
read a turn's changes (file by file, with line counts) and undo a turn, redo an
undo, or restore the whole project to before or after a turn, through
projects.history.undo; each undo or restore is a `Reversal`, which the next turn's
history mentions (chat.selectors.past_turns). Which messages and revisions
make a turn is chat.selectors' to say.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal, assert_never

from django.contrib.auth.models import User
from django.db.models import F

from chat.models import Message
from chat.selectors.turns import turn_messages, turn_revisions, turns_revisions
from common.text import plain_excerpt
from projects.files.paths import is_binary_path
from projects.history.changesets import FileChange, counts_of, net_changes
from projects.history.diffs import LineCounts
from projects.history.undo import UndoRefused, changes_undo, project_restore, restore_plan
from projects.models import FileRevision, Project, Reversal

When = Literal["before", "after"]
# What an undo, redo or restore leaves in force (reversal_effect).
Effect = Literal["undone", "redone", "restored", "restore undone"]
_EXCERPT = 60


@dataclass(frozen=True)
class ChangedFile:
    change: FileChange
    counts: LineCounts | None  # None: too large to count

    @property
    def path(self) -> str:
        return self.change.path

    @property
    def action(self) -> str:
        return self.change.action

    @property
    def old_path(self) -> str | None:
        return self.change.start_path if self.change.action == "renamed" else None

    @property
    def binary(self) -> bool:
        return is_binary_path(self.path)


@dataclass
class TurnChanges:
    """One turn's changes as its summary shows them."""

    turn_id: int  # the person's message that began the turn
    project_id: uuid.UUID
    files: list[ChangedFile] = field(default_factory=list)
    undo: Reversal | None = None  # the undo in force, if the turn is undone
    restore: Reversal | None = None  # the latest restore to right after this turn

    @property
    def added(self) -> int:
        return sum(file.counts.added for file in self.files if file.counts)

    @property
    def removed(self) -> int:
        return sum(file.counts.removed for file in self.files if file.counts)


# --- reading -------------------------------------------------------------------------


def turn_changes(turn: Message) -> TurnChanges:
    return turns_changes([turn])[turn.pk]


def turns_changes(turns: list[Message]) -> dict[int, TurnChanges]:
    """Each turn's changes (the turns of one conversation, in order), read together."""
    if not turns:
        return {}
    turns = sorted(turns, key=lambda turn: turn.sequence)
    rows = turns_revisions(first=turns[0], last=turns[-1])
    by_turn: dict[int, list[FileRevision]] = defaultdict(list)
    starts = [(turn.sequence, turn.pk) for turn in turns]
    for revision in rows.annotate(turn_sequence=F("message__sequence")).order_by("pk"):
        sequence = revision.turn_sequence
        owner = [pk for start, pk in starts if start <= sequence]
        if owner:
            by_turn[owner[-1]].append(revision)
    project_id = turns[0].conversation.project_id
    found = {turn.pk: TurnChanges(turn.pk, project_id) for turn in turns}
    for turn_id, revisions in by_turn.items():
        found[turn_id].files = [
            ChangedFile(change, counts_of(change)) for change in net_changes(revisions)
        ]
    _add_reversals(found)
    return found


def _add_reversals(found: dict[int, TurnChanges]) -> None:
    """Which undo or restore of each turn is in force: an undo taken back (Redo)
    is not, and taking that back again puts the turn back to undone."""
    undoing: set[int] = set()  # reversals that leave their turn undone
    restoring: set[int] = set()  # reversals that leave their restore in force
    reversals = list(Reversal.objects.filter(message_id__in=found.keys()).order_by("pk"))
    for reversal in reversals:
        changes = found[reversal.message_id or 0]
        reverses = reversal.reverses_id
        if reversal.kind == Reversal.Kind.UNDO:
            changes.undo = reversal
            undoing.add(reversal.pk)
        elif reversal.kind == Reversal.Kind.RESTORE:
            changes.restore = reversal
            restoring.add(reversal.pk)
        elif changes.undo is not None and reverses == changes.undo.pk:
            changes.undo = None
        elif changes.restore is not None and reverses == changes.restore.pk:
            changes.restore = None
        elif _took_back(reverses, reversals, undoing):
            changes.undo = reversal
            undoing.add(reversal.pk)
        elif _took_back(reverses, reversals, restoring):
            changes.restore = reversal
            restoring.add(reversal.pk)


def _took_back(reverses: int | None, reversals: list[Reversal], in_force: set[int]) -> bool:
    """Whether `reverses` took back one of `in_force` (so taking it back restores that)."""
    taken = next((row for row in reversals if row.pk == reverses), None)
    return taken is not None and taken.reverses_id in in_force


def restore_point(turn: Message, when: When) -> int:
    """The newest revision of the project right before the turn's first change
    (`before`) or right after the turn (`after`)."""
    project_revisions = FileRevision.objects.filter(project_id=turn.conversation.project_id)
    if when == "before":
        first = turn_revisions(turn=turn).values_list("pk", flat=True).first()
        if first is not None:
            return first - 1
        edge = turn.created_at
        newest = project_revisions.filter(created_at__lt=edge)
    else:
        last = turn_revisions(turn=turn).values_list("pk", flat=True).last()
        closing = (
            turn_messages(turn=turn).order_by("-sequence").values_list("created_at", flat=True)
        )
        edge = closing.first() or turn.created_at
        newest = project_revisions.filter(created_at__lte=edge)
        if last is not None:
            newest = newest | project_revisions.filter(pk=last)
    found = newest.order_by("-pk").values_list("pk", flat=True).first()
    return found or 0


def restore_steps(turn: Message, when: When) -> list[ChangedFile]:
    """What restoring the project to before or after `turn` would change now."""
    steps = restore_plan(turn.conversation.project, restore_point(turn, when))
    return [ChangedFile(step, counts_of(step)) for step in steps]


def undo_rest(turn: Message, refused: UndoRefused) -> list[str]:
    """The files "Undo the rest" would take back: the turn's, less those changed since."""
    kept = {conflict.path for conflict in refused.conflicts}
    return [
        file.path
        for file in turn_changes(turn).files
        if file.path not in kept and file.old_path not in kept
    ]


# --- writing --------------------------------------------------------------------------


def turn_undo(*, user: User, turn: Message, keep_changed: bool = False) -> Reversal | UndoRefused:
    """Put back every file the turn changed; files changed since are refused by
    name, or kept as they are with `keep_changed`."""
    revisions = list(turn_revisions(turn=turn))
    if not revisions:
        return UndoRefused("This turn changed no files, so there is nothing to undo.")
    project = turn.conversation.project
    paths = sorted({change.path for change in net_changes(revisions)})
    return changes_undo(
        project=project,
        revisions=revisions,
        user=user,
        kind=Reversal.Kind.UNDO,
        summary=f"Undid the turn “{turn_excerpt(turn)}”: {_listed(paths)} put back as before it.",
        message_id=turn.pk,
        keep_changed=keep_changed,
    )


def turn_restore(*, user: User, turn: Message, when: When) -> Reversal | UndoRefused:
    """Every file of the project as it was right before or right after `turn`."""
    return project_restore(
        project=turn.conversation.project,
        point=restore_point(turn, when),
        user=user,
        summary=(
            f"Restored the project's files to how they were {when} the turn “{turn_excerpt(turn)}”."
        ),
        message_id=turn.pk,
    )


def reversal_revert(*, user: User, reversal: Reversal) -> Reversal | UndoRefused:
    """Take back an undo, a redo or a restore ("Redo" for an undo); one taken
    back already is refused (projects.history.undo)."""
    revisions = list(reversal.revisions.all())
    paths = sorted({row.path for row in revisions})
    return changes_undo(
        project=reversal.project,
        revisions=revisions,
        user=user,
        kind=Reversal.Kind.REDO,
        summary=_reverted_summary(reversal, paths),
        message_id=reversal.message_id,
        reverses=reversal,
    )


def reversal_effect(reversal: Reversal) -> Effect:
    """What `reversal` leaves in force: a redo takes back what it reverses, so
    along the chain a turn is undone, redone, undone again…, a restore made,
    undone, made again…"""
    first, steps = reversal, 0
    while first.kind == Reversal.Kind.REDO and first.reverses is not None:
        first, steps = first.reverses, steps + 1
    if first.kind == Reversal.Kind.RESTORE:
        return "restored" if steps % 2 == 0 else "restore undone"
    return "undone" if steps % 2 == 0 else "redone"


def _reverted_summary(reversal: Reversal, paths: list[str]) -> str:
    """What taking `reversal` back does, said plainly (the person reads it, and
    the model in the next turn's history)."""
    turn = reversal.message
    named = f"the turn “{turn_excerpt(turn)}”" if turn is not None else "the turn"
    match reversal_effect(reversal):
        case "undone":
            return f"Redid {named}: its changes to {_listed(paths)} are back."
        case "redone":
            return f"Undid {named} again: {_listed(paths)} as before it."
        case "restored":
            return f"Undid the restore: {_listed(paths)} as before it."
        case "restore undone":
            return f"Restored again: {_listed(paths)} as the restore left them."
        case _ as unknown:
            assert_never(unknown)


def reversal_get_for(*, project: Project, reversal_id: int) -> Reversal | None:
    return (
        Reversal.objects.filter(pk=reversal_id, project=project).select_related("project").first()
    )


# --- helpers ------------------------------------------------------------------------


def turn_excerpt(turn: Message) -> str:
    """The start of the turn's request, to name the turn in a sentence."""
    return plain_excerpt(turn.content, _EXCERPT)


def _listed(paths: list[str]) -> str:
    if len(paths) > 4:
        return ", ".join(paths[:3]) + f" and {len(paths) - 3} more files"
    if len(paths) == 1:
        return paths[0]
    return ", ".join(paths[:-1]) + " and " + paths[-1]
