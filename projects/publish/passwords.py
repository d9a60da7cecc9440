"""A published site kept behind a password: what a visitor's pass is, and how
many wrong guesses are let through.

A visitor who gives the password gets a pass (a signed cookie for the site's
own host, projects.views.published): it names the site and its password, so a
new password ends every pass given for the old one, and it lasts PASS_DAYS.

Wrong guesses are bounded per address (an IPv6 /64 as one: common.addresses)
and for the site as a whole, in the cache (shared by every process through
Redis when it is set; each process's own otherwise), over WINDOW seconds:
- an address may guess wrong TRIES times; then it is refused, without its
  guess being looked at, until the window ends. What is refused counts
  nowhere: one address cannot use up what the site allows everyone.
- once SITE_TRIES wrong guesses came from all addresses together, the site is
  being guessed at: for the rest of that window each address may guess wrong
  only TRIES_WHILE_GUESSED times. A guesser with many addresses then gets
  that many tries from each, not TRIES; a visitor with the right password,
  from an address not refused, still gets in. Refusing right passwords too
  would bound guessing further, but would lock every visitor out for as long
  as anyone kept guessing.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from django.contrib.auth.hashers import check_password, make_password
from django.core import signing
from django.core.cache import cache
from django.utils.crypto import salted_hmac

from common.addresses import address_counted_as
from projects.publish.live_sites import LiveSite

MIN_LENGTH = 8
MAX_LENGTH = 128
PASS_DAYS = 30
TRIES = 10  # wrong guesses from one address in WINDOW
SITE_TRIES = 200  # wrong guesses from every address together, before the site is guessed at
TRIES_WHILE_GUESSED = 3  # wrong guesses from one address in WINDOW, while it is
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
    """Whether `password` opens `site`; Throttled, without looking, once `address`
    has guessed wrong as often as it may (fewer times while the site is guessed
    at from many addresses). Each try is counted before the (slow) hash is
    compared, so guesses sent all at once count all the same, and given back
    if it was refused or right: only wrong guesses that were looked at count."""
    counted_as = address_counted_as(address) or "-"
    keys = (f"site-pass:{site.pk}:{counted_as}", f"site-pass:{site.pk}")
    mine, everyone = (_counted(key) for key in keys)
    allowed = TRIES if everyone <= SITE_TRIES else TRIES_WHILE_GUESSED
    if mine > allowed:
        _given_back(keys)
        return Throttled(minutes=WINDOW // 60)
    if check_password(password[:MAX_LENGTH], site.password):
        _given_back(keys)
        return True
    return False


def _counted(key: str) -> int:
    cache.add(key, 0, timeout=WINDOW)  # the window starts at the first try
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout=WINDOW)
        return 1


def _given_back(keys: tuple[str, ...]) -> None:
    for key in keys:
        with contextlib.suppress(ValueError):  # expired meanwhile: nothing to give back
            cache.decr(key)


def _fingerprint(site: LiveSite) -> str:
    # The hash names the password without a pass revealing anything of it.
    return salted_hmac(_SALT, site.password).hexdigest()[:20]
