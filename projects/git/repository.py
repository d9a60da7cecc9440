"""The project as a Git repository, from the database alone, so any process
serves any project.

`main` is a chain of commits, one per step of the history (projects.git.steps).
A step's commit is made once, the first time anyone asks after the step is
over, and kept (`GitCommit`): its id never changes after, whatever happens to
the chat or to the people named in it, and `git pull` after a turn
fast-forwards. A turn still running is not a step yet (its revisions wait until
the assistant lets go of the project). A push's commits are kept as pushed
(`GitObject`), with the revisions it wrote behind them.

Trees and blobs are not stored: the files after each commit's last revision
are its tree, rebuilt by walking the revision log once. A process keeps the
walk of the projects it served last (`_cache`) and carries it on from where it
stopped, so a fetch after one more turn reads only that turn.
"""

from __future__ import annotations

import threading
import uuid
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from dulwich.object_store import MemoryObjectStore
from dulwich.objects import Commit, ObjectID, RawObjectID, ShaFile

from projects.git.identities import ASSISTANT, person_identity, step_message
from projects.git.steps import REV_FIELDS, Rev, Step, steps_of
from projects.git.texts import BlobShas
from projects.git.trees import TreeState
from projects.locks import lock_current
from projects.models import FileRevision, GitCommit, GitObject, GitRef, Project, Reversal
from projects.writing import writes_held

MAIN = b"refs/heads/main"
_CACHED_PROJECTS = 8


class Store(MemoryObjectStore):
    """Objects in memory, kept and handed out as made: dulwich's copies each one
    it is given and each one it is asked for (parsing it again), which was half
    of a clone's time (bench/git.py). Nothing here changes an object it reads."""

    def keep(self, obj: ShaFile) -> None:
        self._data[obj.id] = obj

    def __getitem__(self, name: ObjectID | RawObjectID) -> ShaFile:
        return self._data[self._to_hexsha(name)]


@dataclass
class Repository:
    project_id: uuid.UUID
    store: Store = field(default_factory=Store)
    tree: TreeState = field(default_factory=TreeState)
    blobs: BlobShas = field(init=False)
    walked: int = 0  # the newest revision applied to `tree`
    sequence: int = 0  # the newest GitCommit in `store`
    objects_seen: int = 0  # the newest GitObject in `store`
    tip: bytes | None = None  # main

    def __post_init__(self) -> None:
        self.blobs = BlobShas(self.project_id)


@dataclass(frozen=True)
class Opened:
    repository: Repository
    refs: dict[bytes, bytes]  # every ref but HEAD, which names main


_cache: OrderedDict[uuid.UUID, Repository] = OrderedDict()
_cache_lock = threading.Lock()
# One walk of a project at a time in a process: a lock per project, from a
# fixed few (two projects may share one; a lock per project ever served would grow).
_project_locks = [threading.Lock() for _ in range(64)]


def repository_open(project: Project) -> Opened:
    """The project's repository as it stands: every step over so far a commit."""
    with _project_lock(project.pk):
        with _cache_lock:
            repository = _cache.pop(project.pk, None)
        if repository is None:
            repository = Repository(project.pk)
        # Should either fail, the walk may be half-done: it is not kept.
        _catch_up(repository)
        _derive(project, repository)
        with _cache_lock:
            _cache[project.pk] = repository
            while len(_cache) > _CACHED_PROJECTS:
                _cache.popitem(last=False)
        return Opened(repository, _refs(project.pk, repository))


def repository_forget(project_id: uuid.UUID) -> None:
    """Drop this process's walk of a project (a push that failed half-way)."""
    with _cache_lock:
        _cache.pop(project_id, None)


def _project_lock(project_id: uuid.UUID) -> threading.Lock:
    return _project_locks[project_id.int % len(_project_locks)]


def _refs(project_id: uuid.UUID, repository: Repository) -> dict[bytes, bytes]:
    refs = {
        name.encode(): sha.encode()
        for name, sha in GitRef.objects.filter(project_id=project_id).values_list("name", "sha")
    }
    if repository.tip is not None:
        refs[MAIN] = repository.tip
    return refs


def _catch_up(repository: Repository) -> None:
    """Bring the walk up to the newest kept commit and pushed object."""
    project_id = repository.project_id
    objects = GitObject.objects.filter(project_id=project_id, pk__gt=repository.objects_seen)
    for pk, sha, type_num, data in objects.order_by("pk").values_list(
        "pk", "sha", "type_num", "data"
    ):
        raw = zlib.decompress(bytes(data))
        repository.store.keep(ShaFile.from_raw_string(type_num, raw, sha=ObjectID(sha.encode())))
        repository.objects_seen = pk
    commits = list(
        GitCommit.objects.filter(project_id=project_id, sequence__gt=repository.sequence)
        .order_by("sequence")
        .values_list("sequence", "sha", "upto", "data")
    )
    if not commits:
        return
    revisions = _revisions(project_id, repository.walked, upto=commits[-1][2])
    _load_blobs(repository, revisions)
    pending = iter(revisions)
    next_revision = next(pending, None)
    for sequence, sha, upto, data in commits:
        while next_revision is not None and next_revision.pk <= upto:
            _apply(repository, next_revision)
            next_revision = next(pending, None)
        repository.tree.root(repository.store.keep)
        commit = ShaFile.from_raw_string(Commit.type_num, bytes(data), ObjectID(sha.encode()))
        repository.store.keep(commit)
        repository.tip, repository.sequence = sha.encode(), sequence


def _derive(project: Project, repository: Repository) -> None:
    """Make and keep the commits of the steps over since the last one kept."""
    pending = _revisions_query(project.pk, repository.walked, _running_since(project))
    if not pending.exists():
        return
    # Their texts read and hashed first: on SQLite the transaction below holds
    # every writer of every project while it lasts.
    _load_blobs(repository, [Rev(*row) for row in pending.order_by("pk").values_list(*REV_FIELDS)])
    with transaction.atomic():
        if writes_held(project) is not None:
            return  # in the trash: its history is read as it was
        _catch_up(repository)  # what another process kept meanwhile
        revisions = list(
            _revisions_query(project.pk, repository.walked, _running_since(project))
            .order_by("pk")
            .values_list(*REV_FIELDS)
        )
        rows = [Rev(*row) for row in revisions]
        if not rows:
            return
        _load_blobs(repository, rows)
        steps = steps_of(rows)
        people = _people(project, steps)
        summaries = dict(
            Reversal.objects.filter(
                pk__in={step.key for step in steps if step.kind == "reversal"}
            ).values_list("pk", "summary")
        )
        for step in steps:
            for row in step.revisions:
                _apply(repository, row)
            commit = _commit(repository, step, people, summaries)
            commit_keep(repository, commit, upto=step.last.pk, pushed=False)


def commit_keep(repository: Repository, commit: Commit, *, upto: int, pushed: bool) -> None:
    """Keep `commit` as main's newest, holding the revisions up to `upto`
    (inside the caller's transaction, with the project's writers held)."""
    sequence = repository.sequence + 1
    commit_record(repository.project_id, commit, sequence=sequence, upto=upto, pushed=pushed)
    repository.store.keep(commit)
    repository.tip, repository.sequence = commit.id, sequence


def commit_record(
    project_id: uuid.UUID, commit: Commit, *, sequence: int, upto: int, pushed: bool
) -> None:
    """The row that makes `commit` main's `sequence`th; with the project's
    writers held, no other process can have taken that place."""
    GitCommit.objects.create(
        project_id=project_id,
        sequence=sequence,
        sha=commit.id.decode(),
        upto=upto,
        data=commit.as_raw_string(),
        pushed=pushed,
    )


def _commit(
    repository: Repository, step: Step, people: dict[int, User], summaries: dict[int, str]
) -> Commit:
    last = step.last
    person = person_identity(people.get(last.user_id or 0) or people.get(0))
    commit = Commit()
    commit.tree = repository.tree.root(repository.store.keep)
    commit.parents = [ObjectID(repository.tip)] if repository.tip is not None else []
    commit.author = ASSISTANT if step.kind == "turn" else person
    commit.committer = person
    moment = int(last.created_at.timestamp())
    commit.author_time = commit.commit_time = moment
    commit.author_timezone = commit.commit_timezone = 0
    key = step.key if isinstance(step.key, int) else 0
    commit.message = step_message(step, summaries.get(key, ""))
    return commit


def _people(project: Project, steps: list[Step]) -> dict[int, User]:
    """The people named in `steps` by id; the owner also as 0 (a revision that
    names nobody was the owner's: the only person who may write)."""
    ids = {step.last.user_id for step in steps if step.last.user_id is not None}
    people = {user.pk: user for user in User.objects.filter(pk__in=ids | {project.owner_id})}
    owner = people.get(project.owner_id)
    if owner is not None:
        people[0] = owner
    return people


def _running_since(project: Project) -> datetime | None:
    """When the assistant took the project, while it works: its revisions since
    are not a step yet."""
    lock = lock_current(project)
    return lock.acquired_at if lock is not None else None


def _revisions_query(
    project_id: uuid.UUID, after: int, before: datetime | None
) -> QuerySet[FileRevision]:
    rows = FileRevision.objects.filter(project_id=project_id, pk__gt=after)
    return rows.filter(created_at__lt=before) if before is not None else rows


def _revisions(project_id: uuid.UUID, after: int, *, upto: int) -> list[Rev]:
    rows = FileRevision.objects.filter(project_id=project_id, pk__gt=after, pk__lte=upto)
    return [Rev(*row) for row in rows.order_by("pk").values_list(*REV_FIELDS)]


def _load_blobs(repository: Repository, revisions: list[Rev]) -> None:
    repository.blobs.load(
        (row.after_id for row in revisions if row.after_id is not None), repository.store.keep
    )


def _apply(repository: Repository, row: Rev) -> None:
    tree = repository.tree
    if row.action == FileRevision.Action.DELETE:
        tree.remove(row.path)
    else:
        if row.action == FileRevision.Action.RENAME:
            tree.remove(row.old_path)
        assert row.after_id is not None
        tree.put(row.path, repository.blobs[row.after_id])
    repository.walked = row.pk
