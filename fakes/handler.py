"""The HTTP side of the fake: one handler per connection, keep-alive, chunked SSE.

It writes what a script says byte for byte, watches the socket while it waits
so a client that hangs up is noticed (and counted) at once, and never prints a
traceback for a client that went away.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import sys
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from fakes.script import (
    Action,
    Drop,
    Endless,
    HttpError,
    Json,
    Pause,
    RecordedRequest,
    Reply,
    Stall,
    Stream,
)

if TYPE_CHECKING:
    from fakes.openrouter import FakeOpenRouter

NO_SCRIPT = "fake OpenRouter: no scripted reply left"
# How often a waiting handler looks at the stop flag; bounds how long stop() takes.
STOP_POLL = 0.05


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # Benchmarks open hundreds of streams at once; the default backlog of 5
    # would reset some of them before they are accepted.
    request_queue_size = 512
    fake: FakeOpenRouter

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-request is part of what tests script, not a bug.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so a pooled connection is reused
    server: Server

    def setup(self) -> None:
        super().setup()
        self.server.fake._opened(self.connection)

    def finish(self) -> None:
        self.server.fake._closed(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.fake.verbose:
            sys.stderr.write(f"fake OpenRouter: {format % args}\n")

    def do_GET(self) -> None:
        if self.command == "GET" and _route(self.path) == "models":
            # Kept apart from `requests`: a turn reads the list (for prices) before
            # it asks the model, and tests read `requests` as what the model was asked.
            self.server.fake._listed(self._record(keep=False))
            self._send_json(200, {"data": self.server.fake.models})
            return
        request = self._record()
        self._send_error(HttpError(404, f"No route for {request.method} {request.path}"))

    def do_POST(self) -> None:
        request = self._record()
        if _route(request.path) != "chat":
            self._send_error(HttpError(404, f"No route for {request.method} {request.path}"))
            return
        scripted = self.server.fake._next(request)
        match scripted:
            case None:
                self._send_error(HttpError(400, NO_SCRIPT))
            case HttpError():
                self._send_error(scripted)
            case Json():
                self._send(scripted.status, scripted.encode(), "application/json", scripted.headers)
            case Reply() if _wants_stream(request):
                self._stream(scripted.to_stream())
            case Reply():
                self._send_json(200, scripted.to_json())
            case Stream():
                self._stream(scripted)

    do_PUT = do_PATCH = do_DELETE = do_GET

    def _record(self, *, keep: bool = True) -> RecordedRequest:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = RecordedRequest(self.command, self.path, headers, body, parsed)
        if keep:
            self.server.fake._append(request)
        return request

    def _send_json(self, status: int, body: object) -> None:
        self._send(status, json.dumps(body).encode(), "application/json", {})

    def _send_error(self, error: HttpError) -> None:
        self._send(error.status, error.encode(), error.content_type(), error.headers)

    def _send(self, status: int, body: bytes, kind: str, headers: Mapping[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        if self._write_headers():
            self._write(body)

    def _stream(self, stream: Stream) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in stream.headers.items():
            self.send_header(name, value)
        if not self._write_headers():
            return
        for action in stream.actions():
            if not self._act(action):
                return
        self._write(b"0\r\n\r\n")

    def _act(self, action: Action) -> bool:
        """Carry out one action of a stream; False when the stream ends here."""
        match action:
            case bytes():
                return self._write(b"%X\r\n%s\r\n" % (len(action), action))
            case Pause(seconds):
                return self._wait(seconds)
            case Drop():
                self._drop()
            case Stall():
                self._wait(None)
            case Endless(data, limit):
                return self._endless(data, limit)
        return False

    def _endless(self, data: bytes, limit: int) -> bool:
        frame = b"%X\r\n%s\r\n" % (len(data), data)
        sent = 0
        while sent < limit and not self.server.fake.stopping.is_set():
            if not self._write(frame):
                return False
            sent += len(data)
        return True

    def _write_headers(self) -> bool:
        try:
            self.end_headers()
        except (BrokenPipeError, ConnectionResetError):
            self._client_left()
            return False
        return True

    def _write(self, data: bytes) -> bool:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self._client_left()
            return False
        return True

    def _wait(self, seconds: float | None) -> bool:
        """Sleep `seconds` (None: until the end) watching the socket; False if we must stop."""
        stopping = self.server.fake.stopping
        deadline = None if seconds is None else time.monotonic() + seconds
        while not stopping.is_set():
            left = STOP_POLL if deadline is None else deadline - time.monotonic()
            if left <= 0:
                return True
            if self._gone_within(min(left, STOP_POLL)):
                self._client_left()
                break
        self.close_connection = True
        return False

    def _gone_within(self, seconds: float) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], seconds)
            if not readable:
                return False
            if self.connection.recv(1, socket.MSG_PEEK) == b"":
                return True
        except OSError:
            return True
        # Bytes from a client that is still there (it should not send any mid-reply):
        # sleep instead so select does not spin on them.
        self.server.fake.stopping.wait(seconds)
        return False

    def _client_left(self) -> None:
        self.close_connection = True
        # stop() shuts sockets down too; that is not the client leaving.
        if not self.server.fake.stopping.is_set():
            self.server.fake._disconnected()

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def _route(path: str) -> str | None:
    path = path.split("?", 1)[0].rstrip("/")
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/models"):
        return "models"
    return None


def _wants_stream(request: RecordedRequest) -> bool:
    return isinstance(request.json, dict) and request.json.get("stream") is True
