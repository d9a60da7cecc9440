"""receive-pack: dulwich's handler, with the pack kept in memory beside the
repository (never in it until the push is applied) and the ref updates decided
by projects.git.push, all or none. What the person should read goes out on
Git's progress channel, which the `git` command prints as `remote:` lines."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from dulwich.errors import ApplyDeltaError, ChecksumMismatch, ObjectFormatException
from dulwich.object_store import MemoryObjectStore
from dulwich.objects import ObjectID, ShaFile
from dulwich.protocol import SIDE_BAND_CHANNEL_PROGRESS
from dulwich.refs import Ref
from dulwich.server import ReceivePackHandler

from projects.files.limits import current_limits
from projects.git.packs import pack_problem
from projects.git.push import Command, push_apply
from projects.git.repository import Opened, Store
from projects.models import Project

_UNPACK_ERRORS = (OSError, ChecksumMismatch, ApplyDeltaError, ValueError, ObjectFormatException)


class PackRefused(ValueError):
    pass


class Incoming(MemoryObjectStore):
    """The objects a push brought; a delta's base may be in the repository."""

    def __init__(self, base: Store) -> None:
        super().__init__()
        self._base = base

    def get_raw(self, name: Any) -> tuple[int, bytes]:
        try:
            return super().get_raw(name)
        except KeyError:
            return self._base.get_raw(name)

    def find(self, sha: bytes) -> ShaFile:
        found = self._data.get(ObjectID(sha))
        return found if found is not None else self._base[ObjectID(sha)]

    def keep(self, obj: ShaFile) -> None:
        self._data[obj.id] = obj

    def received(self) -> list[ShaFile]:
        return list(self._data.values())

    def add_pack(self) -> Any:
        pack, commit, abort = super().add_pack()

        def bounded_commit() -> None:
            pack.seek(0)
            # The pack as received: at most the request's body limit.
            problem = pack_problem(
                pack.read(),
                limit=4 * current_limits().max_project_bytes,
                object_limit=_object_limit(),
            )
            pack.seek(0, 2)
            if problem is not None:
                abort()
                raise PackRefused(problem)
            commit()

        return pack, bounded_commit, abort


def _object_limit() -> int:
    """The largest object a pack may build: twice the largest file a project may
    hold (a file past it is refused when the push is applied anyway; refusing
    here spares building it)."""
    return 2 * max(current_limits().max_file_bytes, settings.BUILTIT_MAX_BINARY_BYTES)


def receive_handler(
    project: Project, user: User, opened: Opened
) -> Callable[..., ReceivePackHandler]:
    def make(*args: Any, **kwargs: Any) -> ReceivePackHandler:
        return _Receive(project, user, opened, *args, **kwargs)

    return make


class _Receive(ReceivePackHandler):
    def __init__(self, project: Project, user: User, opened: Opened, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._project, self._user, self._opened = project, user, opened

    def _apply_pack(
        self, refs: list[tuple[ObjectID, ObjectID, Ref]]
    ) -> Iterator[tuple[bytes, bytes]]:
        incoming = Incoming(self._opened.repository.store)
        commands = [Command(old, new, ref) for old, new, ref in refs]
        if any(command.new != b"0" * 40 for command in commands):
            try:
                incoming.add_thin_pack(self.proto.read, getattr(self.proto, "recv", None))
            except _UNPACK_ERRORS as error:
                self._say([f"The pack could not be read: {error}"])
                yield (b"unpack", str(error).replace("\n", " ").encode("utf-8")[:200])
                return
        yield (b"unpack", b"ok")
        outcome = push_apply(
            project=self._project,
            user=self._user,
            opened=self._opened,
            commands=commands,
            get=incoming.find,
            received=incoming.received(),
        )
        self._say(outcome.lines)
        yield from outcome.statuses

    def _say(self, lines: list[str]) -> None:
        if not lines or not self.has_capability(b"side-band-64k"):
            return
        text = "".join(line.replace("\n", " ") + "\n" for line in lines)
        self.proto.write_sideband(SIDE_BAND_CHANNEL_PROGRESS, text.encode("utf-8"))
