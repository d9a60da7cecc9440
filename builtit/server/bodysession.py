"""Whether a request comes from a signed-in person, decided from its session
cookie (a Git push: its access token) before its body is read
(builtit.server.bodylimit gives only them the larger limits).

The answer is Django's own (`auth.get_user`: the session exists and has not
expired, its person exists and is active, and it was made under their current
password), given a session it can only read: the real request does any
writing when Django handles it, and a cookie checked here is never cycled
away under it. A made-up cookie finds no session.

Daphne runs Twisted, the app's async code and the websockets on one event
loop, so the database is asked in a small pool of threads of its own, and the
request's connection stops being read meanwhile (builtit.server.bodylimit). Measured
(bench/hostile_memory.py): about a millisecond on SQLite.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import import_module
from typing import Any, cast

from django.conf import settings
from django.contrib import auth
from django.contrib.sessions.backends.base import SessionBase
from django.db import DatabaseError, close_old_connections
from django.http import HttpRequest

logger = logging.getLogger(__name__)

# Two threads: a check is one or two indexed reads, and a flood of made-up
# cookies then queues here instead of taking the database's connections.
_checks = ThreadPoolExecutor(max_workers=2, thread_name_prefix="builtit-session-check")


class SignIn(enum.Enum):
    SIGNED_IN = "signed in"
    SIGNED_OUT = "signed out"
    UNKNOWN = "unknown"  # the check itself failed: the database did not answer


def session_key(cookies: Mapping[bytes, bytes]) -> str | None:
    """The session cookie's value, if the request has one that could be a key."""
    raw = cookies.get(settings.SESSION_COOKIE_NAME.encode(), b"").strip(b'"')
    return raw.decode("ascii") if raw and raw.isascii() and raw.isalnum() else None


def session_signed_in(key: str) -> SignIn:
    """Django's verdict on the session `key` (blocking: run it off the event loop)."""
    close_old_connections()
    try:
        request = HttpRequest()
        store = import_module(settings.SESSION_ENGINE).SessionStore(key)
        request.session = cast(SessionBase, _ReadOnly(store))
        return SignIn.SIGNED_IN if auth.get_user(request).is_authenticated else SignIn.SIGNED_OUT
    except DatabaseError as error:
        logger.warning("Could not check a session before reading a request body: %s", error)
        return SignIn.UNKNOWN
    finally:
        close_old_connections()


def token_signed_in(secret: str) -> SignIn:
    """Whether `secret` is an access token that may write (a Git push signs in
    with one, not with a session): blocking, as `session_signed_in`."""
    # Imported here: the wiring may know chat, but this module is imported by
    # daphne's patches before Django's apps are ready.
    from chat.access_tokens import token_may_write  # noqa: PLC0415

    close_old_connections()
    try:
        return SignIn.SIGNED_IN if token_may_write(secret) else SignIn.SIGNED_OUT
    except DatabaseError as error:
        logger.warning("Could not check a token before reading a request body: %s", error)
        return SignIn.UNKNOWN
    finally:
        close_old_connections()


def sign_in_check_later(
    check: Callable[[str], SignIn], credential: str, then: Callable[[SignIn], None]
) -> None:
    """`check(credential)` in the pool, then `then` with the verdict on the reactor."""
    # Imported here: daphne.server installs the asyncio reactor before anything
    # imports this one, and importing it at the top would install the default.
    from twisted.internet import reactor  # noqa: PLC0415

    def checked(future: Future[SignIn]) -> None:
        reactor.callFromThread(then, _verdict(future))

    _checks.submit(check, credential).add_done_callback(checked)


def _verdict(future: Future[SignIn]) -> SignIn:
    error = future.exception()
    if error is None:
        return future.result()
    # A bug, not a foreseeable case: logged whole, and the request answered 503
    # rather than left waiting for a verdict that never comes.
    logger.error("The session check failed", exc_info=error)
    return SignIn.UNKNOWN


class _ReadOnly:
    """The session as `auth.get_user` uses it, reads only: it ends a session it
    finds stale (flush) and moves one signed under a fallback SECRET_KEY to a
    new key (cycle_key, then the new hash); Django does both, for real, when it
    handles the request. A use of the session added by a later Django fails
    loudly here (the request is answered 503), never writes."""

    def __init__(self, store: SessionBase) -> None:
        self._store = store

    def __getitem__(self, name: str) -> Any:
        return self._store[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self._store.get(name, default)

    def __setitem__(self, name: str, value: Any) -> None:
        pass

    def flush(self) -> None:
        pass

    def cycle_key(self) -> None:
        pass
