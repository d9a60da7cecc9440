"""Generations: how every process of the server learns that what it kept from
the database is out of date, without asking the database.

A generation is a random word, named for what it guards ("sites", a project's
preview), stored where every process sees it: the cache when it is Redis
(REDIS_URL: every machine), else a file in the data directory (every process of
one machine, which is every process an embedded database has). Reading one
costs a small file's read or one Redis GET; reading the rows would cost a
query, and under ASGI each request's thread opens its own database connection,
which costs more.

A process keeps what it read with the generation it read *before* reading it;
a change moves the generation on (a new random word), so a process that finds
another word reads again. It moves when the change commits (so no process
keeps what it read before the change was visible) and also at once (so the
same transaction, as in a test, sees its own change). A word that is missing
(never moved, dropped, or expired in Redis) is made by whoever reads it: any
new word only makes processes read again, never keep what changed."""

from __future__ import annotations

import mmap
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

_PREFIX = "builtit:generation:"
_LENGTH = 16  # characters of a word
# In Redis, a generation nobody moved for this long goes (a project's, long
# deleted); it is made again, as a new word, when read.
_LIFETIME = 30 * 86400  # seconds


def generation(name: str) -> str:
    """`name`'s word now."""
    if _shared_by_cache():
        word = cache.get(_PREFIX + name)
        if word is None:
            cache.add(_PREFIX + name, _word(), timeout=_LIFETIME)
            word = cache.get(_PREFIX + name, "")
        return str(word)
    try:
        word = _read(_file(name))
    except FileNotFoundError:
        return _moved(name)
    # Short: read while the file was made. A word of its own then, which
    # nothing kept is under: this reader reads again, and keeps nothing others find.
    return word if len(word) == _LENGTH else _word()


def _read(path: Path) -> str:
    # The descriptor's calls alone: Path.read_text's layers of file objects cost
    # three times the open, read and close (12 µs against 4), and a chat socket's
    # connect reads two words (chat.live.connect_cache).
    handle = os.open(path, os.O_RDONLY)
    try:
        return os.read(handle, _LENGTH + 1).decode("ascii", "replace")  # longer: not a word
    finally:
        os.close(handle)


def generation_watched(name: str) -> str:
    """`name`'s word now, as `generation` says, for a name read on every
    request (the sites') and never dropped (generation_drop). In the data
    directory its file is mapped into the process's memory once and each read
    is a read of that memory, not a file's open, read and close (12% of the
    server's busy time at 200 forms a second, bench/forms.py): a write in
    place by any process (_moved) is in every mapping of the file at once, so
    a change is seen by the next read, as before."""
    if _shared_by_cache():
        return generation(name)
    path = _file(name)
    mapped = _mapped.get(name)
    if mapped is None or mapped.path != path or time.monotonic() >= mapped.until:
        mapped = _map(name, path, mapped)
        if mapped is None:
            return generation(name)  # not made yet (or being made): made or read there
    word = mapped.memory[:_LENGTH].decode("ascii", "replace")
    # Read during a write: half of each word, which nothing is kept under (as above).
    return word


@dataclass(frozen=True)
class _Mapped:
    path: Path  # another data directory (as in tests) is mapped again
    inode: int
    memory: mmap.mmap
    until: float  # time.monotonic(): then the file's inode is looked at again


# A file deleted or put in place of the one mapped (by hand, or a restore of
# the data directory) would never be seen by the old mapping: the path is
# looked at again this often, a stat a second.
_MAPPED_CHECK = 1.0  # seconds
_mapped: dict[str, _Mapped] = {}
_mapping = threading.Lock()


def _map(name: str, path: Path, was: _Mapped | None) -> _Mapped | None:
    with _mapping:
        try:
            handle = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            _mapped.pop(name, None)
            return None
        try:
            found = os.fstat(handle)
            until = time.monotonic() + _MAPPED_CHECK
            if was is not None and was.path == path and was.inode == found.st_ino:
                mapped = _Mapped(path, found.st_ino, was.memory, until)  # the same file
            elif found.st_size < _LENGTH:
                return None
            else:
                # The mapping keeps the file open; the descriptor is not needed.
                memory = mmap.mmap(handle, _LENGTH, access=mmap.ACCESS_READ)
                mapped = _Mapped(path, found.st_ino, memory, until)
        finally:
            os.close(handle)
        # One it replaces is closed when no reader holds it any more.
        _mapped[name] = mapped
        return mapped


def generation_advance(name: str) -> None:
    """Every process reads again what it kept under `name`, now and when the
    change commits."""
    _moved(name)
    transaction.on_commit(lambda: _moved(name))


def generation_drop(name: str) -> None:
    """`name` is no more (its project deleted): every process reads again, and
    nothing of it stays behind. Never a name generation_watched reads: its
    mapping would keep the file that went."""
    _drop(name)
    transaction.on_commit(lambda: _drop(name))


def _shared_by_cache() -> bool:
    return "redis" in settings.CACHES["default"]["BACKEND"].lower()


def _file(name: str) -> Path:
    return Path(settings.DATA_DIR) / "generations" / name


def _word() -> str:
    return secrets.token_hex(_LENGTH // 2)


def _moved(name: str) -> str:
    word = _word()
    if _shared_by_cache():
        cache.set(_PREFIX + name, word, timeout=_LIFETIME)
        return word
    path = _file(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Over the old word in place, as long as it: a new file and a rename cost
    # 40 times as much (the journal), on every write of a project's file. A
    # reader that reads during the write and gets half of each word has a word
    # nothing is kept under: it reads again, which is all a new word asks.
    handle = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.pwrite(handle, word.encode(), 0)
    finally:
        os.close(handle)
    return word


def _drop(name: str) -> None:
    if _shared_by_cache():
        cache.delete(_PREFIX + name)
        return
    _file(name).unlink(missing_ok=True)
