"""The check of a whole site (projects.publish.site_check) run where a hostile
site cannot stall the server: in a process of its own, at most CHECK_SECONDS,
at most RUNNING at once per server process. html5lib is quadratic in how deep
tags nest and in how many attributes a tag has (5 s for 60 KB of "<div>", past
the limit for a few hundred KB: bench/README.md), and a thread could not be
stopped; a process can."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings

from projects.publish.site_check import SiteCheck, site_check

CHECK_SECONDS = 20.0
RUNNING = 2


@dataclass(frozen=True)
class CheckUnfinished:
    message: str


_SLOTS = threading.BoundedSemaphore(RUNNING)


def site_check_bounded(files: Mapping[str, str | None]) -> SiteCheck | CheckUnfinished:
    if not _SLOTS.acquire(timeout=CHECK_SECONDS):
        return CheckUnfinished(
            "The server is busy checking other sites, so this one was not checked."
        )
    try:
        # spawn: a fork would copy this process's threads' locks mid-use.
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            own_host = bool(settings.BUILTIT_SITES_SUBDOMAINS)  # projects.web.sites.site_url
            pending = pool.apply_async(site_check, (dict(files),), {"own_host": own_host})
            try:
                return pending.get(timeout=CHECK_SECONDS)
            except multiprocessing.TimeoutError:
                return CheckUnfinished(
                    f"The check of this site did not finish in {CHECK_SECONDS:g} seconds "
                    "(some page's markup is very broken), so it was stopped."
                )
    finally:
        _SLOTS.release()
