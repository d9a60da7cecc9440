"""A published site kept behind a password: what a visitor's pass is, and how
many wrong guesses are let through.

A visitor who gives the password gets a pass (a signed cookie for the site's
own host, projects.views.published): it names the site and its password, so a
new password ends every pass given for the old one, and it lasts PASS_DAYS.
Wrong guesses are counted in the cache (shared through Redis when it is set):
TRIES from one address in WINDOW seconds, and SITE_TRIES from everyone, then
the form says to wait; the site itself stays up for whoever has a pass."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from django.contrib.auth.hashers import check_password, make_password
from django.core import signing
from django.core.cache import cache
from django.utils.crypto import salted_hmac

from projects.publish.live_sites import LiveSite

MIN_LENGTH = 8
MAX_LENGTH = 128
PASS_DAYS = 30
TRIES = 10
SITE_TRIES = 200  # from every address together: a botnet gets no more
WINDOW = 15 * 60  # seconds
_SALT = "builtit.site-pass"


@dataclass(frozen=True)
class Throttled:
    minutes: int


def password_problem(password: str) -> str | None:
    if len(password) < MIN_LENGTH:
        return f"A site's password needs at least {MIN_LENGTH} characters."
    if len(password) > MAX_LENGTH:
        return f"A site's password has at most {MAX_LENGTH} characters."
    return None


def password_hashed(password: str) -> str:
    return make_password(password)


def pass_for(site: LiveSite) -> str:
    """A visitor's pass to `site`, as its cookie holds it."""
    return signing.TimestampSigner(salt=_SALT).sign(f"{site.pk}:{_fingerprint(site)}")


def pass_valid(site: LiveSite, token: str | None) -> bool:
    if not token or not site.password:
        return False
    try:
        value = signing.TimestampSigner(salt=_SALT).unsign(token, max_age=PASS_DAYS * 86400)
    except signing.BadSignature:  # forged, another site's, or expired
        return False
    return value == f"{site.pk}:{_fingerprint(site)}"


def password_try(site: LiveSite, address: str | None, password: str) -> bool | Throttled:
    """Whether `password` opens `site`; Throttled, without looking, once too many
    wrong guesses came from `address` or from everyone. Each try is counted
    before the (slow) hash is compared, and given back if it was right: guesses
    sent all at once are counted all the same."""
    keys = (f"site-pass:{site.pk}:{address or '-'}", f"site-pass:{site.pk}")
    mine, everyone = (_counted(key) for key in keys)
    if mine > TRIES or everyone > SITE_TRIES:
        return Throttled(minutes=WINDOW // 60)
    if check_password(password[:MAX_LENGTH], site.password):
        for key in keys:
            _uncounted(key)
        return True
    return False


def _counted(key: str) -> int:
    cache.add(key, 0, timeout=WINDOW)  # the window starts at the first try
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout=WINDOW)
        return 1


def _uncounted(key: str) -> None:
    with contextlib.suppress(ValueError):  # expired meanwhile: nothing to give back
        cache.decr(key)


def _fingerprint(site: LiveSite) -> str:
    # The hash names the password without a pass revealing anything of it.
    return salted_hmac(_SALT, site.password).hexdigest()[:20]
