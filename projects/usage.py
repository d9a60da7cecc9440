"""What a person's storage holds, for their quota and the dashboard: counted
where the bytes are, so what a person is shown as used is what is stored.

Their projects' files, history, binary files and the Git objects pushed to
them are counted here; bytes the
apps above keep for a person (chat pictures) are counted by a `Keeper` those
apps register (projects does not know them), which also sweeps away what
nothing refers to any more (projects.sweep runs it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Sum

from projects.files.binaries import MARKER
from projects.models import BinaryBlob, GitObject, ProjectFile, RevisionBlob


@dataclass(frozen=True)
class Keeper:
    name: str  # what it keeps, for the sweep's report ("chat pictures")
    used: Callable[[int], int]  # bytes kept for a person (their user id)
    sweep: Callable[[], int]  # removes what nothing refers to any more: how many


_keepers: dict[str, Keeper] = {}


def keeper_register(keeper: Keeper) -> None:
    _keepers[keeper.name] = keeper


def keepers() -> list[Keeper]:
    return list(_keepers.values())


def storage_used(owner_id: int) -> int:
    """Bytes kept for a person: their projects' files and history, the trash too,
    and what the other apps keep for them."""
    return projects_stored(owner_id) + sum(keeper.used(owner_id) for keeper in _keepers.values())


def projects_stored(owner_id: int) -> int:
    return _stored(project__owner_id=owner_id)


def project_stored(project_id: object) -> int:
    """Bytes one project keeps (its files, history, binary files and pushed Git
    objects): what handing it to another person adds to their storage."""
    return _stored(project_id=project_id)


def _stored(**whose: object) -> int:
    # A binary file's bytes are counted once, in its blob (current or not); its
    # ProjectFile holds only a marker naming the blob.
    files = ProjectFile.objects.filter(**whose).exclude(content__startswith=MARKER)
    blobs = RevisionBlob.objects.filter(**whose)
    binaries = BinaryBlob.objects.filter(**whose)
    in_files = files.aggregate(total=Sum("size"))["total"] or 0
    in_history = blobs.aggregate(total=Sum("stored_size"))["total"] or 0
    in_binaries = binaries.aggregate(total=Sum("size"))["total"] or 0
    # What pushes brought that the files cannot give back (projects.git).
    pushed = GitObject.objects.filter(**whose)
    in_git = pushed.aggregate(total=Sum("stored_size"))["total"] or 0
    return int(in_files) + int(in_history) + int(in_binaries) + int(in_git)
