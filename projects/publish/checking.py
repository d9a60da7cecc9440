"""The check of a whole site (projects.publish.site_check) run where a hostile
site cannot stall the server: in worker processes of its own, at most
CHECK_SECONDS, at most RUNNING at once per server process. html5lib is
quadratic in how deep tags nest and in how many attributes a tag has (5 s for
60 KB of "<div>", past the limit for a few hundred KB: bench/README.md), and a
thread could not be stopped; a process can.

The workers are kept between checks (a check runs after every turn that
changes files: starting a process for each cost 0.8 s). A check past its
limit, or given up by its turn, ends them all (any other check under way
then says it did not finish); the next check starts new ones."""

from __future__ import annotations

import atexit
import multiprocessing
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


_SLOTS = threading.BoundedSemaphore(RUNNING)
_POOL_LOCK = threading.Lock()
_pool: Pool | None = None


def site_check_bounded(
    files: Mapping[str, str | None], *, cancelled: threading.Event | None = None
) -> SiteCheck | CheckUnfinished:
    """The check of `files`, or why it did not finish; `cancelled` (set by a turn
    that stops) ends it early."""
    if not _SLOTS.acquire(timeout=CHECK_SECONDS):
        return CheckUnfinished(
            "The server is busy checking other sites, so this one was not checked."
        )
    try:
        own_host = bool(settings.BUILTIT_SITES_SUBDOMAINS)  # projects.web.sites.site_url
        pool = _workers()
        pending = pool.apply_async(site_check, (dict(files),), {"own_host": own_host})
        done = _waited(pending, cancelled or threading.Event())
        if isinstance(done, CheckUnfinished):
            _end_workers(pool)  # still at it: stopped, not left running
        return done
    finally:
        _SLOTS.release()


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
        except Exception:  # its worker was ended by another check's timeout
            return CheckUnfinished("The check was interrupted: ask for it again.")
    return CheckUnfinished("The check was stopped before it finished.")


def _workers() -> Pool:
    global _pool  # noqa: PLW0603  (one pool per process, made when first needed)
    with _POOL_LOCK:
        if _pool is None:
            # spawn: a fork would copy this process's threads' locks mid-use.
            _pool = multiprocessing.get_context("spawn").Pool(RUNNING)
            # Ended before the interpreter takes its modules apart under the pool's threads.
            atexit.register(_end_workers, _pool)
        return _pool


def _end_workers(pool: Pool) -> None:
    global _pool  # noqa: PLW0603
    with _POOL_LOCK:
        if _pool is pool:
            _pool = None
    pool.terminate()
