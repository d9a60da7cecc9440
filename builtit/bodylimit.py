"""Request bodies bounded before they are read: 413 at once, nothing buffered.

Daphne (under `manage.py runserver` and `daphne builtit.asgi:application`
alike) lets Twisted receive a whole body, to a temporary file, and then puts
all of it on the application's queue in memory before Django sees a byte: an
anonymous 1,000 MiB POST to the login page took 2.65 GB. Django's own limits
act only after that, and no ASGI middleware runs sooner. So the bound sits in
daphne's request class, the first code of ours that hears of a request: when
the headers are in, a Content-Length over the route's limit is answered 413
and the connection closed without reading the body; a chunked (or lying) body
is counted as it arrives and cut the same way at the limit.

Daphne builds its requests from the module attribute `daphne.http_protocol.
WebRequest`; `install()` points it at `LimitedWebRequest`, once, from
builtit.asgi, which every way of serving the app imports before it listens.
Behind a reverse proxy, set its own limit too (README, "Production").
"""

from __future__ import annotations

import re
from io import BytesIO
from typing import Any

from daphne import http_protocol
from django.conf import settings

# Multipart framing around an uploaded file: the boundary lines and headers.
_MULTIPART_ROOM = 64 * 1024
_FILE_WRITES = re.compile(rb"^/projects/[0-9a-fA-F-]{32,36}/files/")


def body_limit(path: bytes) -> int:
    """The largest body accepted on `path` (the request target, query included)."""
    path = path.split(b"?", 1)[0]
    if path == b"/projects/import/":
        return int(settings.BUILTIT_MAX_IMPORT_BYTES) + _MULTIPART_ROOM
    if _FILE_WRITES.match(path) and path.endswith(b"/files/upload/"):
        return int(settings.BUILTIT_MAX_BINARY_BYTES) + _MULTIPART_ROOM
    if path.startswith(b"/projects/") and path.endswith(b"/chat-images/"):
        return int(settings.BUILTIT_MAX_CHAT_IMAGE_BYTES) + _MULTIPART_ROOM
    if _FILE_WRITES.match(path) or path.startswith(b"/admin/"):
        # A whole file in a form (the editor, the admin), as Django itself allows.
        return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    return int(settings.BUILTIT_MAX_FORM_BYTES)


def refusal(limit: int) -> bytes:
    size = f"{limit / 2**20:.1f} MB" if limit >= 2**20 else f"{limit // 1024} KB"
    page = (
        "<!doctype html><meta charset=utf-8><title>Too large</title>"
        '<body style="font-family:system-ui;padding:2rem;color:#374151">'
        "<h1>Request too large</h1>"
        f"<p>This address accepts at most {size}. Nothing was saved. "
        "Go back and send something smaller.</p>"
    ).encode()
    head = (
        "HTTP/1.1 413 Content Too Large\r\n"
        "Content-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(page)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    return head + page


class LimitedWebRequest(http_protocol.WebRequest):  # type: ignore[misc]
    """Daphne's request, refusing a body past its route's limit before keeping it."""

    _limit = 0
    _received = 0
    _refused = False

    def gotLength(self, length: int | None) -> None:
        # The request line is parsed by now; the request learns its path only later.
        self._limit = body_limit(getattr(self.channel, "_path", b"") or b"")
        if length is not None and length > self._limit:
            self._refuse()
            return
        super().gotLength(length)

    def handleContentChunk(self, data: bytes) -> None:
        if self._refused:
            return
        self._received += len(data)
        if self._received > self._limit:
            self._refuse()
            return
        super().handleContentChunk(data)

    def process(self) -> Any:
        if self._refused:
            return None  # answered already; the application never hears of it
        return super().process()

    def _refuse(self) -> None:
        self._refused = True
        self.content = BytesIO()  # what arrived is dropped; nothing more is kept
        channel = self.channel
        if channel is not None and channel.transport is not None:
            channel.transport.write(refusal(self._limit))
            channel.loseConnection()


def install() -> None:
    http_protocol.WebRequest = LimitedWebRequest
