"""How every writer of a project's files writes: in one transaction that a
refusal undoes whole, stored bytes included (`all_or_nothing`), with the
project's other writers held until it ends (`writes_held`). The file service's
writes go through both; so must any new writer (an undo, an import, a push)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec

from django.db import transaction

from projects.files.binaries import storage_written
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.models import Project
from projects.sweep import stored_files_delete

_P = ParamSpec("_P")


def all_or_nothing(
    write: Callable[_P, FileWrite | FileError],
) -> Callable[_P, FileWrite | FileError]:
    """One transaction per write, undone whole when the write is refused.

    A refusal is a value, not an exception, so `transaction.atomic` alone would
    commit whatever the write stored before something refused it (a binary
    file's bytes, history's texts): a refused upload kept its bytes, ten MiB a
    request. Inside a caller's transaction (an undo, an import) this is a
    savepoint, and only the refused write is taken back; the caller that rolls
    back a larger transaction deletes what its writes stored (binaries.storage_written)."""

    @functools.wraps(write)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> FileWrite | FileError:
        with storage_written() as stored:
            with transaction.atomic():
                result = write(*args, **kwargs)
                if isinstance(result, FileError):
                    transaction.set_rollback(True)
            if isinstance(result, FileError):
                # A file saved in Django's storage is not the database's to take
                # back: it goes now (a sweep would find it only an hour later).
                stored_files_delete(stored)
                stored.clear()
        return result

    return run


def writes_held(project: Project) -> FileError | None:
    """Serialise writers of one project until the transaction ends (PostgreSQL: a
    row lock; SQLite: IMMEDIATE transactions); a project in the trash, or deleted
    meanwhile, takes no writes. Every write takes it first; so does a larger
    write that must read and write with nothing changing between (projects.history.undo)."""
    found = Project.objects.select_for_update().filter(pk=project.pk).values_list("pk").first()
    if found is None:
        return FileError(
            ErrorCode.GONE,
            "This project is in the trash (or was deleted), so its files cannot change. "
            "Restore it from the Trash first.",
        )
    return None
