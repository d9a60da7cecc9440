"""The check of a whole site (projects.publish.site_check) run where a hostile
site cannot stall the server: in worker processes of its own, at most
CHECK_SECONDS, at most RUNNING at once per server process. html5lib is
quadratic in how deep tags nest and in how many attributes a tag has (5 s for
60 KB of "<div>", past the limit for a few hundred KB: bench/README.md), and a
thread could not be stopped; a process can.

Each of the RUNNING slots keeps its worker process between checks (a check
runs after every turn that changes files: starting a process for each cost
0.8 s). A check past its limit, or given up by its turn, ends its own slot's
worker (and waits for it to be gone); the slot's next check starts a new one.
No check ends another's."""

from __future__ import annotations

import atexit
import multiprocessing
import queue
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from multiprocessing.pool import AsyncResult, Pool

from django.conf import settings

from projects.publish.site_check import SiteCheck, site_check

CHECK_SECONDS = 20.0
RUNNING = 2
_POLL = 0.1  # seconds between looks at `cancelled`


@dataclass(frozen=True)
class CheckUnfinished:
    message: str


_FREE: queue.Queue[int] = queue.Queue()
for _slot in range(RUNNING):
    _FREE.put(_slot)
_WORKERS: list[Pool | None] = [None] * RUNNING
_BUSY = "The server is busy checking other sites, so this one was not checked."
_STOPPED = "The check was stopped before it finished."


def site_check_bounded(
    files: Mapping[str, str | None], *, cancelled: threading.Event | None = None
) -> SiteCheck | CheckUnfinished:
    """The check of `files`, or why it did not finish; `cancelled` (set by a turn
    that stops) ends it early, while it waits for a slot or runs."""
    cancelled = cancelled or threading.Event()
    slot = _slot_taken(cancelled)
    if slot is None:
        return CheckUnfinished(_STOPPED if cancelled.is_set() else _BUSY)
    try:
        own_host = bool(settings.BUILTIT_SITES_SUBDOMAINS)  # projects.web.sites.site_url
        pending = _worker(slot).apply_async(site_check, (dict(files),), {"own_host": own_host})
        done = _waited(pending, cancelled)
        if isinstance(done, CheckUnfinished):
            _end_worker(slot)  # still at it: stopped, not left running
        return done
    finally:
        _FREE.put(slot)


def _slot_taken(cancelled: threading.Event) -> int | None:
    deadline = time.monotonic() + CHECK_SECONDS
    while not cancelled.is_set() and time.monotonic() < deadline:
        try:
            return _FREE.get(timeout=_POLL)
        except queue.Empty:
            continue
    return None


def _waited(
    pending: AsyncResult[SiteCheck], cancelled: threading.Event
) -> SiteCheck | CheckUnfinished:
    deadline = time.monotonic() + CHECK_SECONDS
    while not cancelled.is_set():
        try:
            return pending.get(timeout=min(_POLL, max(deadline - time.monotonic(), 0)))
        except multiprocessing.TimeoutError:
            if time.monotonic() >= deadline:
                return CheckUnfinished(
                    f"The check of this site did not finish in {CHECK_SECONDS:g} seconds "
                    "(some page's markup is very broken), so it was stopped."
                )
    return CheckUnfinished(_STOPPED)


def _worker(slot: int) -> Pool:
    # Only the thread holding `slot` touches _WORKERS[slot].
    worker = _WORKERS[slot]
    if worker is None:
        # spawn: a fork would copy this process's threads' locks mid-use.
        worker = _WORKERS[slot] = multiprocessing.get_context("spawn").Pool(1)
    return worker


def _end_worker(slot: int) -> None:
    worker, _WORKERS[slot] = _WORKERS[slot], None
    if worker is not None:
        worker.terminate()
        worker.join()  # its process and pipes gone, not left to the collector


@atexit.register
def _end_all() -> None:
    # Before the interpreter takes its modules apart under the workers' threads.
    for slot, worker in enumerate(_WORKERS):
        if worker is not None:
            _WORKERS[slot] = None
            worker.terminate()
