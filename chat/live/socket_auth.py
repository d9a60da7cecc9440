"""Who may open the chat socket, and whether they still may.

Two ways in:
- A browser tab: its session cookie, from a page of this site. The Origin must
  be the socket's own (scheme, host and port, from the request itself) or one
  of CSRF_TRUSTED_ORIGINS; ALLOWED_HOSTS only says which hosts we answer to,
  and `*` there no longer opens the socket to every site.
- A script: `Authorization: Bearer <personal access token>`. No Origin is
  needed: a page of another site cannot set that header on a websocket, so a
  token cannot be used across sites the way a cookie could. Another scheme
  (`Basic`, from a password-protecting proxy in front) is left to the session.

A socket lives longer than a check at connect: signing out (here or
everywhere), changing the password or revoking the token tells the person's
sockets (a channel-layer group per person, see `user_group`), and each
re-checks before every turn.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any
from urllib.parse import urlsplit

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    load_backend,
)
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends.base import SessionBase
from django.core.exceptions import ValidationError
from django.http import parse_cookie
from django.http.request import split_domain_port, validate_host
from django.utils.crypto import constant_time_compare
from django.utils.http import is_same_domain

from chat.access_tokens import token_authenticate, token_exists
from chat.live import connect_cache
from chat.live.messages import SessionCheck, SessionMoved
from common import threads
from common.text import storable_cookies


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


async def socket_signed_in(scope: dict[str, Any]) -> dict[str, Any] | None:
    """Who opens the socket, as what the scope gets (None: refused before the
    consumer runs): a token's person, or a session from an allowed Origin.

    The session and its person are read at once, in one job of common.threads,
    not as Channels' AuthMiddlewareStack does it (three middlewares, each with
    its own copy of the scope, lazy objects, and two hops through asgiref's one
    shared thread): per socket that kept about 6 KB and cost a tenth of a
    connect (bench/ws_fanout.py --idle). The scope gets what that stack gave:
    `cookies`, `session` and `user` (AnonymousUser when the session names nobody
    valid); with a token, `user` and `token_id`. Called by the websocket side's
    one layer (builtit.sockets)."""
    token = _bearer(scope)
    if token is not None:
        found = await threads.run(token_authenticate, token)
        if found is None:
            return None
        user, token_id = found
        return {"user": user, "token_id": token_id}
    if not origin_allowed(scope):
        return None
    cookie = _header(scope, b"cookie")
    # As for pages: a cookie no database can store counts as not sent.
    cookies = storable_cookies(parse_cookie(cookie)) if cookie else {}
    session, person = await threads.run(session_user, cookies.get(settings.SESSION_COOKIE_NAME))
    return {"cookies": cookies, "session": session, "user": person}


def session_user(key: str | None) -> tuple[SessionBase, User | AnonymousUser]:
    """The session of `key` and its person, as Channels' `get_user` reads them
    (a session whose password hash no longer matches is flushed); the person
    as kept, with no query, when this process read them since and nothing
    changed (chat.live.connect_cache)."""
    session: SessionBase = import_module(settings.SESSION_ENGINE).SessionStore(key)
    kept = connect_cache.person_kept(key) if key else None
    if kept is not None:
        return session, kept  # the session not loaded: the socket reads only its key
    try:
        user_id = User._meta.pk.to_python(session[SESSION_KEY])
        backend_path = session[BACKEND_SESSION_KEY]
    except (KeyError, ValidationError):
        return session, AnonymousUser()
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return session, AnonymousUser()
    word = connect_cache.person_word(user_id)  # before the person is read
    user = load_backend(backend_path).get_user(user_id)
    if user is None:
        return session, AnonymousUser()
    hashed = session.get(HASH_SESSION_KEY)
    if not (hashed and constant_time_compare(hashed, user.get_session_auth_hash())):
        session.flush()
        return session, AnonymousUser()
    if key:
        connect_cache.person_keep(key, user=user, word=word)
    return session, user


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


def _bearer(scope: dict[str, Any]) -> str | None:
    """The token of `Authorization: Bearer <token>` ("" when it names none), or
    None without one. Any other scheme is not ours: a basic-auth proxy in front
    of the site sends its own on every request, and the session decides then."""
    value = _header(scope, b"authorization")
    if value is None:
        return None
    kind, _, token = value.strip().partition(" ")
    return token.strip() if kind.lower() == "bearer" else None


def origin_allowed(scope: dict[str, Any]) -> bool:
    """Whether a page of this origin may open a socket with the person's session:
    what Django's CSRF check accepts for a form post (CsrfViewMiddleware), so
    the socket and the pages trust the same origins. The page's own origin (its
    host one ALLOWED_HOSTS accepts), or one of CSRF_TRUSTED_ORIGINS, exactly or
    by a "*." subdomain pattern."""
    origin = _header(scope, b"origin")
    host = _header(scope, b"host")
    if not origin or not host:
        return False
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False  # Django answers such a request 400 before any check
    return origin == f"{_scheme(scope)}://{host}" or _trusted(origin)


def _trusted(origin: str) -> bool:
    """Django's reading of CSRF_TRUSTED_ORIGINS: an exact origin, or any
    subdomain of one written with "*." (same scheme)."""
    trusted = settings.CSRF_TRUSTED_ORIGINS
    if origin in (item for item in trusted if "*" not in item):
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    patterns = [urlsplit(item) for item in trusted if "*" in item]
    return any(
        is_same_domain(parts.netloc, pattern.netloc.lstrip("*"))
        for pattern in patterns
        if pattern.scheme == parts.scheme
    )


def _scheme(scope: dict[str, Any]) -> str:
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        header = proxy[0].removeprefix("HTTP_").replace("_", "-").lower().encode()
        if _header(scope, header) == proxy[1]:
            return "https"
    return "https" if scope.get("scheme") in {"wss", "https"} else "http"


def session_valid(scope: dict[str, Any]) -> bool:
    """Whether the socket's person may still act: their token not revoked, or
    their session not signed out and made under the current password."""
    user = scope.get("user")
    if user is None or not user.is_authenticated:
        return False
    token_id = scope.get("token_id")
    if token_id is not None:
        return token_exists(int(token_id))
    session = scope.get("session")
    key = getattr(session, "session_key", None)
    if not key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    if not store.exists(key):
        return False
    data = store.__class__(session_key=key).load()
    fresh = User.objects.filter(pk=user.pk, is_active=True).first()
    if fresh is None or str(data.get(SESSION_KEY)) != str(user.pk):
        return False
    return constant_time_compare(str(data.get(HASH_SESSION_KEY, "")), fresh.get_session_auth_hash())


def sessions_changed(
    user_id: int, *, ended_session: str | None = None, everywhere: bool = False
) -> None:
    """Tell the person's sockets: the one on `ended_session` closes at once, and
    every other re-checks (a password change, a revoked token); `everywhere`:
    the person signed out everywhere, which those closing say."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = SessionCheck(type="session.check")
    if ended_session:
        message["ended"] = ended_session
    if everywhere:
        message["everywhere"] = True
    async_to_sync(layer.group_send)(user_group(user_id), message)


def session_moved(user_id: int, *, old_key: str, new_key: str) -> None:
    """Tell the person's sockets: those on `old_key` now belong to `new_key`."""
    layer = get_channel_layer()
    if layer is None or not old_key or not new_key:
        return
    message = SessionMoved(type="session.moved", old_key=old_key, new_key=new_key)
    async_to_sync(layer.group_send)(user_group(user_id), message)


def session_follow(scope: dict[str, Any], *, old_key: str, new_key: str) -> None:
    """Point a socket's scope at its session's new key, if it was on the old one."""
    session = scope.get("session")
    if session is not None and getattr(session, "session_key", None) == old_key:
        scope["session"] = import_module(settings.SESSION_ENGINE).SessionStore(new_key)
