"""Talking to another Git host (dulwich's HTTP client): its refs, a pack of
what the project lacks (bounded like a push), and a pack of what it lacks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from io import BytesIO
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from dulwich.client import HttpGitClient, HTTPUnauthorized
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository
from dulwich.object_store import ObjectStoreGraphWalker
from dulwich.objects import Commit, ObjectID
from dulwich.refs import Ref

from projects.git.receive import Incoming
from projects.git.repository import MAIN, Store

TIMEOUT = 30.0  # seconds a host may take to answer
# What a host that answers badly, or not at all, makes dulwich raise.
_FAILURES = (GitProtocolError, HangupException, OSError, ValueError, NotGitRepository)
HEAD = b"HEAD"


class RemoteFailed(Exception):
    """The host could not be reached or refused us; the message says so in words."""


@dataclass(frozen=True)
class Remote:
    url: str
    username: str
    token: str


@dataclass
class Fetched:
    tip: bytes  # the remote's main (or what its HEAD names)
    objects: Incoming


def _client(remote: Remote) -> tuple[HttpGitClient, str]:
    parts = urlsplit(remote.url)
    base = f"{parts.scheme}://{parts.netloc}"
    client = HttpGitClient(
        base,
        username=(remote.username or "git") if remote.token else None,
        password=remote.token or None,
        timeout=TIMEOUT,
        quiet=True,
    )
    return client, parts.path or "/"


def remote_fetch(remote: Remote, store: Store, tip: bytes | None) -> Fetched:
    """The remote's main and every object of it the project lacks."""
    client, path = _client(remote)
    chosen: list[bytes] = []

    def wants(refs: Mapping[Ref, ObjectID], depth: int | None = None) -> list[ObjectID]:
        found = refs.get(Ref(MAIN)) or refs.get(Ref(HEAD))
        if found is None:
            raise RemoteFailed("The repository has no main branch.")
        chosen.append(found)
        return [] if found in store else [found]

    walker = ObjectStoreGraphWalker(
        [ObjectID(tip)] if tip else [], lambda sha: _parents(store, sha)
    )
    pack = _BoundedPack(int(settings.BUILTIT_MAX_IMPORT_BYTES))
    try:
        client.fetch_pack(path, wants, walker, pack.write)
    except HTTPUnauthorized as error:
        raise RemoteFailed("The host refused the token: check it, and what it may do.") from error
    except RemoteFailed:
        raise
    except NotGitRepository as error:
        raise RemoteFailed("There is no Git repository at that address.") from error
    except _FAILURES as error:
        raise RemoteFailed(f"The repository could not be read: {_short(error)}") from error
    incoming = Incoming(store)
    if pack.size:
        try:
            incoming.add_thin_pack(BytesIO(pack.data()).read, None)
        except _FAILURES as error:
            raise RemoteFailed(f"What the host sent could not be read: {_short(error)}") from error
    return Fetched(chosen[0], incoming)


def remote_send(remote: Remote, store: Store, tip: bytes) -> None:
    """Move the remote's main to `tip`, if that is a fast-forward for it."""
    client, path = _client(remote)

    def refs_wanted(refs: dict[Ref, ObjectID]) -> dict[Ref, ObjectID]:
        theirs = refs.get(Ref(MAIN))
        if theirs is not None and theirs != tip and not descends(store, tip, theirs):
            raise RemoteFailed(
                "The remote's main has commits the project lacks: pull from the remote first."
            )
        return {Ref(MAIN): ObjectID(tip)}

    def pack_data(have: Any, want: Any, **options: Any) -> Any:
        known = [sha for sha in have if sha in store]
        return store.generate_pack_data(known, want, **options)

    try:
        result = client.send_pack(path, refs_wanted, pack_data)
    except HTTPUnauthorized as error:
        raise RemoteFailed(
            "The host refused the token: check it, and that it may write."
        ) from error
    except RemoteFailed:
        raise
    except NotGitRepository as error:
        raise RemoteFailed("There is no Git repository at that address.") from error
    except _FAILURES as error:
        raise RemoteFailed(f"The push to the remote failed: {_short(error)}") from error
    status = (result.ref_status or {}).get(Ref(MAIN))
    if status is not None:
        raise RemoteFailed(f"The remote refused main: {status}")


def descends(store: Store | Incoming, commit_id: bytes, ancestor: bytes) -> bool:
    seen: set[bytes] = set()
    pending = [commit_id]
    while pending and len(seen) < 100_000:
        current = pending.pop()
        if current == ancestor:
            return True
        if current in seen:
            continue
        seen.add(current)
        pending.extend(_parents(store, current))
    return False


def _parents(store: Store | Incoming, sha: bytes) -> list[ObjectID]:
    try:
        found = store[ObjectID(sha)] if isinstance(store, Store) else store.find(sha)
    except KeyError:
        return []
    return list(found.parents) if isinstance(found, Commit) else []


class _BoundedPack:
    def __init__(self, limit: int) -> None:
        self._pieces: list[bytes] = []
        self.size = 0
        self._limit = limit

    def write(self, data: bytes) -> int:
        self.size += len(data)
        if self.size > self._limit:
            raise RemoteFailed(
                "The repository is larger than a project may import "
                f"({self._limit // (1024 * 1024)} MiB)."
            )
        self._pieces.append(data)
        return len(data)

    def data(self) -> bytes:
        return b"".join(self._pieces)


def _short(error: BaseException) -> str:
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__
