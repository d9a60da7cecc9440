"""Request bodies bounded before they are read, and ended when they stall.

Daphne (under `manage.py runserver` and `daphne builtit.asgi:application`
alike) lets Twisted receive a whole body, to a temporary file, and then puts
all of it on the application's queue in memory before Django sees a byte: an
anonymous 1,000 MiB POST to the login page took 2.65 GB. Django's own limits
act only after that, and no ASGI middleware runs sooner. So the bounds sit in
daphne's request class, the first code of ours that hears of a request.

When the headers are in:
- a Content-Length over the route's limit is answered 413 and the connection
  closed without reading the body; a chunked (or lying) body is counted as it
  arrives and cut the same way at the limit;
- the routes that take more than BUILTIT_MAX_FORM_BYTES (imports, uploads,
  file saves, the admin, a Git push) take more only from a signed-in person:
  a body past the form limit with no session cookie (for a push: no access
  token) is answered 413 at once, and one with a cookie (a token) waits,
  unread, while it is checked off the event loop (builtit.server.bodysession);
  until then the form limit holds, and Twisted reads at most what it had
  already taken from the socket.

Then a body must keep coming (builtit.server.bodypace), or it is answered 408. A
large body goes to the application a piece at a time from Twisted's file
(builtit.server.bodystream), and Twisted no longer parses forms into memory first.

Daphne builds its requests from the module attribute `daphne.http_protocol.
WebRequest`; `install()` points it at `LimitedWebRequest`, once, from
builtit.asgi, which every way of serving the app imports before it listens.
Behind a reverse proxy, set its own limit too (docs/production.md).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from io import BytesIO
from typing import IO, Any

from daphne import http_protocol
from django.conf import settings
from django.http.request import split_domain_port, validate_host

from builtit.server import bodypages, bodystream
from builtit.server.bodypace import Pace
from builtit.server.bodysession import (
    SignIn,
    session_key,
    session_signed_in,
    sign_in_check_later,
    token_signed_in,
)
from common.basic_auth import basic_credentials
from common.sites import is_sites_domain

logger = logging.getLogger(__name__)

# Multipart framing around an uploaded file: the boundary lines and headers.
_MULTIPART_ROOM = 64 * 1024
_FILE_WRITES = re.compile(rb"^/projects/[0-9a-fA-F-]{32,36}/files/")
_GIT_PUSHES = re.compile(rb"^/git/[0-9a-fA-F-]{32,36}\.git/git-receive-pack$")


def body_limit(path: bytes) -> int:
    """The largest body a signed-in person may send to `path` (the request
    target, query included); anyone else gets at most BUILTIT_MAX_FORM_BYTES."""
    path = path.split(b"?", 1)[0]
    if path == b"/projects/import/" or _GIT_PUSHES.match(path):
        # A push is an import's worth of files at most (projects.git.http).
        return int(settings.BUILTIT_MAX_IMPORT_BYTES) + _MULTIPART_ROOM
    if _FILE_WRITES.match(path) and path.endswith(b"/files/upload/"):
        return int(settings.BUILTIT_MAX_BINARY_BYTES) + _MULTIPART_ROOM
    if path.startswith(b"/projects/") and path.endswith(b"/chat-images/"):
        return int(settings.BUILTIT_MAX_CHAT_IMAGE_BYTES) + _MULTIPART_ROOM
    if _FILE_WRITES.match(path) or path.startswith(b"/admin/"):
        # A whole file in a form (the editor, the admin), as Django itself allows.
        return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    return int(settings.BUILTIT_MAX_FORM_BYTES)


def sites_limit(host: bytes) -> int | None:
    """The largest body any request to the sites origin may send (a form a
    visitor posts to a site: BUILTIT_FORMS_MAX_BYTES), whoever sends it: no
    session counts there. None for the app's own hosts (the sites host, a
    site's name under it, or a domain no setting names are the sites origin's,
    as projects.web.sites.request_place decides)."""
    domain, _ = split_domain_port(host.decode("latin-1").strip().lower())
    label, _, rest = domain.partition(".")
    configured = settings.BUILTIT_SITES_ORIGIN
    sites = is_sites_domain(domain, configured) or (
        bool(settings.BUILTIT_SITES_SUBDOMAINS)
        and bool(label)
        and is_sites_domain(rest, configured)
    )
    if not sites and domain and validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    return min(int(settings.BUILTIT_MAX_FORM_BYTES), int(settings.BUILTIT_FORMS_MAX_BYTES))


def stranger_limit(path: bytes) -> int:
    """The largest body anyone may send to `path` without a signed-in session."""
    return min(body_limit(path), int(settings.BUILTIT_MAX_FORM_BYTES))


class LimitedWebRequest(http_protocol.WebRequest):  # type: ignore[misc]
    """Daphne's request, bounding its body before keeping it."""

    content: IO[bytes] | None  # Twisted's: the body so far, in memory or a temporary file
    _route = 0  # the route's limit, for a signed-in person
    _limit = 0  # the limit that holds now
    _declared: int | None = None
    _received = 0
    _answered = False
    _checking = False  # a sign-in check is under way; the connection is not read
    _process_later = False  # the whole body came in while it was
    _continue = False  # a 100 Continue is owed once the check passes

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Daphne times its requests out from here on (check_timeouts).
        self._pace = Pace(
            window=float(settings.BUILTIT_BODY_TIMEOUT),
            rate=int(settings.BUILTIT_BODY_MIN_RATE),
            started=time.monotonic(),
        )
        # Twisted would parse a posted form or multipart body, all of it in
        # memory, into request.args before daphne runs; daphne never reads them.
        kwargs["parsePOSTFormSubmission"] = False
        super().__init__(*args, **kwargs)

    def gotLength(self, length: int | None) -> None:
        # The request line is parsed by now; the request learns its path only later.
        path = getattr(self.channel, "_path", b"") or b""
        self._route = body_limit(path)
        self._limit = stranger_limit(path)
        sites = sites_limit(self._host())
        if sites is not None:
            self._route = self._limit = sites
        self._declared = length
        self._pace.body(time.monotonic())
        if length is not None and length > self._route:
            self._answer(bodypages.too_large(self._route))
            return
        if self._route > self._limit and (length is None or length > self._limit):
            check = self._sign_in(path)
            if check is None and length is not None:
                self._answer(bodypages.sign_in_first(self._limit))
                return
            if check is not None:
                self._check(*check)
            # No cookie and no length (chunked): counted against the form limit.
        super().gotLength(length)

    def handleContentChunk(self, data: bytes) -> None:
        if self._answered:
            return
        self._received += len(data)
        self._pace.moved(len(data))
        # While the sign-in is checked, what Twisted had already read is kept:
        # one read of the socket at most (64 KiB), since reading stopped.
        if self._received > self._limit and not self._checking:
            self._answer(self._over_limit())
            return
        super().handleContentChunk(data)

    def process(self) -> Any:
        if self._answered:
            return None  # answered already; the application never hears of it
        if self._checking:
            self._process_later = True
            return None
        self._pace.done()
        if self._received <= bodystream.STREAM_PAST:
            return super().process()
        # Daphne would read the whole body onto the application's queue: it
        # reads an empty one instead, and the message it queued for it is
        # replaced by one that carries the file (builtit.server.bodystream).
        body, self.content = self.content, BytesIO()
        assert body is not None  # Twisted made it when the length was known
        try:
            processed = super().process()
        finally:
            self.content = body
        if self.application_queue is not None:
            self.application_queue.get_nowait()
            self.application_queue.put_nowait(bodystream.file_message(body))
        return processed

    def check_timeouts(self) -> None:
        # Daphne calls this on every request every 2 seconds.
        if not self._answered and self._pace.stalled(time.monotonic()):
            self._answer(bodypages.too_slow(self._pace.window, self._pace.rate))
            return
        super().check_timeouts()

    def _sign_in(self, path: bytes) -> tuple[Callable[[str], SignIn], str] | None:
        """How this request says who sends it: a Git push by an access token
        (HTTP Basic, as Git sends it), anything else by its session cookie."""
        if _GIT_PUSHES.match(path.split(b"?", 1)[0]):
            header = self.requestHeaders.getRawHeaders(b"Authorization") or [b""]
            found = basic_credentials(header[0].decode("latin-1"))
            return (token_signed_in, found[1]) if found is not None else None
        key = session_key(self.received_cookies)
        return (session_signed_in, key) if key is not None else None

    def _check(self, check: Callable[[str], SignIn], credential: str) -> None:
        self._checking = True
        self._pace.pause()
        # Twisted would tell the client to send the body at once; that waits
        # for the verdict, so a refused client need not send it at all.
        self._continue = self._expects_continue()
        self.requestHeaders.removeHeader(b"Expect")
        self.channel._networkProducer.pauseProducing()  # as daphne itself does
        sign_in_check_later(check, credential, self._checked)

    def _checked(self, verdict: SignIn) -> None:
        self._checking = False
        if self._answered or self.channel is None:
            return  # the client left meanwhile
        if verdict is SignIn.UNKNOWN:
            self._answer(bodypages.check_failed())
            return
        if verdict is SignIn.SIGNED_IN:
            self._limit = self._route
        if self._received > self._limit or (self._declared or 0) > self._limit:
            self._answer(self._over_limit())
            return
        if self._continue:
            self.channel.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        self._pace.body(time.monotonic())
        self.channel._networkProducer.resumeProducing()
        if self._process_later:
            self.process()

    def _host(self) -> bytes:
        """The host the request names, as projects.web.sites.raw_host reads it."""
        headers = self.requestHeaders
        if settings.USE_X_FORWARDED_HOST and headers.hasHeader(b"x-forwarded-host"):
            return bytes((headers.getRawHeaders(b"x-forwarded-host") or [b""])[0])
        return bytes((headers.getRawHeaders(b"host") or [b""])[0])

    def _expects_continue(self) -> bool:
        expect = self.requestHeaders.getRawHeaders(b"Expect") or [b""]
        version = getattr(self.channel, "_version", b"")
        return bool(expect[0].lower() == b"100-continue" and version == b"HTTP/1.1")

    def _over_limit(self) -> bytes:
        if self._limit < self._route:
            return bodypages.sign_in_first(self._limit)
        return bodypages.too_large(self._limit)

    def _answer(self, response: bytes) -> None:
        """Answer `response` ourselves and close; what arrived is dropped."""
        self._answered = True
        self._pace.done()
        dropped, self.content = self.content, BytesIO()
        if dropped is not None:  # None before Twisted made it (gotLength)
            dropped.close()
        self.requestHeaders.removeHeader(b"Expect")  # no 100 Continue after it
        channel = self.channel
        if channel is not None and channel.transport is not None:
            logger.info(
                "%s %s: %s",
                _text(getattr(channel, "_command", b"")),
                _text(getattr(channel, "_path", b"")),
                response.split(b"\r\n", 1)[0].decode()[9:],
            )
            channel.transport.write(response)
            channel.loseConnection()


def _text(raw: bytes) -> str:
    return raw.decode("ascii", "replace")[:200]


def install() -> None:
    http_protocol.WebRequest = LimitedWebRequest
