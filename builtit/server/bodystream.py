"""A large request body reaches Django from daphne's temporary file, a piece at
a time, instead of all at once in memory.

Twisted keeps a body past 100,000 bytes in a temporary file, but daphne then
reads all of it onto the application's queue before Django asks for a byte
(ten 20 MiB imports at once: 20 MiB each, in memory, at the same time). For a
body past STREAM_PAST bytes, builtit.server.bodylimit puts one message on that queue
that carries the file instead (`file_message`), and `BodyFromFile`, in front
of the HTTP application, reads it PIECE bytes at a time as Django asks. Django
copies the body into its own file, in memory only up to
FILE_UPLOAD_MAX_MEMORY_SIZE, and its upload handlers spool files to disk past
that too.

The file is read on the event loop, as daphne read it and as Twisted wrote it:
a temporary file just written, from the page cache.
"""

from __future__ import annotations

from typing import IO, Any

PIECE = 64 * 1024
STREAM_PAST = 64 * 1024  # bytes; a smaller body goes through daphne's queue as before
_FILE = "builtit.body_file"

Message = dict[str, Any]
Receive = Any  # ASGI's receive and send callables: daphne's and Channels' are untyped
Send = Any


def file_message(body: IO[bytes]) -> Message:
    """The message that stands for the whole body in `body`, read from its start."""
    body.seek(0)
    return {"type": "http.request", "body": b"", "more_body": True, _FILE: body}


class BodyFromFile:
    """ASGI middleware for HTTP: a body handed over as a file is read from it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            receive = _FileReceive(receive)
        await self.app(scope, receive, send)


class _FileReceive:
    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        self._body: IO[bytes] | None = None

    async def __call__(self) -> Message:
        if self._body is None:
            message: Message = await self._receive()
            if _FILE not in message:
                return message
            self._body = message[_FILE]
        return self._piece()

    def _piece(self) -> Message:
        assert self._body is not None
        try:
            piece = self._body.read(PIECE)
        except ValueError:
            # Twisted closed the file: the connection was lost.
            self._body = None
            return {"type": "http.disconnect"}
        if len(piece) < PIECE:
            # The end; what comes next (a disconnect) comes from daphne's queue.
            self._body = None
            return {"type": "http.request", "body": piece, "more_body": False}
        return {"type": "http.request", "body": piece, "more_body": True}
