"""How many forms one visitor, and one site, may be sent: counted in the cache
(shared by every process through Redis when REDIS_URL is set) over one-minute
windows, by a keyed hash of the visitor's address (an IPv6 /64 as one:
common.addresses), never the address itself.

A submission past either bound is refused and counts nowhere, so a robot
that is refused cannot use up what the site allows everyone else for longer
than the minute it is in."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.utils.crypto import salted_hmac

from common.addresses import address_counted_as

WINDOW = 60  # seconds
_SALT = "builtit.forms.address"


@dataclass(frozen=True)
class Throttled:
    retry_after: int  # seconds until the window ends
    whose: str  # "address" or "site"


def address_hash(address: str | None) -> str:
    """The visitor's address as kept: a keyed hash, the same for one IPv6 /64."""
    counted_as = address_counted_as(address) or "-"
    return salted_hmac(_SALT, counted_as).hexdigest()[:32]


def submission_allowed(*, visitor: str, target: str) -> Throttled | None:
    """Count one submission from `visitor` (address_hash) to `target` (a site,
    or a preview), or say how long to wait when either has had its share."""
    now = time.time()
    window = int(now // WINDOW)
    retry_after = max(1, int((window + 1) * WINDOW - now))
    keys = (f"forms:a:{visitor}:{window}", f"forms:s:{target}:{window}")
    bounds = (int(settings.BUILTIT_FORMS_PER_ADDRESS), int(settings.BUILTIT_FORMS_PER_SITE))
    counted: list[str] = []
    for key, bound, whose in zip(keys, bounds, ("address", "site"), strict=True):
        counted.append(key)
        if _counted(key) > bound:
            _given_back(counted)
            return Throttled(retry_after=retry_after, whose=whose)
    return None


def _counted(key: str) -> int:
    cache.add(key, 0, timeout=WINDOW * 2)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout=WINDOW * 2)
        return 1


def _given_back(keys: list[str]) -> None:
    for key in keys:
        with contextlib.suppress(ValueError):
            cache.decr(key)
