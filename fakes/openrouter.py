"""A real HTTP server on 127.0.0.1 that speaks the OpenRouter protocol from scripts.

Tests talk to it over real sockets, so the client's pooling, chunked decoding,
timeouts and cancellation are exercised for real. `python -m
fakes.openrouter` runs it in the foreground with the demo responder, for
trying the app offline.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import copy
import socket
import threading
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeAlias

from fakes.demo import NEVER_STOPS, demo_responder
from fakes.handler import NO_SCRIPT, STOP_POLL, Handler, Server
from fakes.script import HttpError, RecordedRequest, Scripted

__all__ = ["DEFAULT_MODELS", "NO_SCRIPT", "FakeOpenRouter", "RecordedRequest", "Responder"]

Responder: TypeAlias = Callable[[RecordedRequest], Scripted]

DEFAULT_MODELS: list[dict[str, Any]] = [
    {
        "id": "openai/gpt-4o-mini",
        "name": "OpenAI: GPT-4o-mini",
        "context_length": 128000,
        "pricing": {"prompt": "0.00000015", "completion": "0.0000006"},
        "supported_parameters": ["tools", "tool_choice", "temperature", "max_tokens"],
        "architecture": {"input_modalities": ["text", "image"], "output_modalities": ["text"]},
    },
    {
        "id": "anthropic/claude-sonnet-4",
        "name": "Anthropic: Claude Sonnet 4",
        "context_length": 200000,
        "pricing": {"prompt": "0.000003", "completion": "0.000015"},
        "supported_parameters": ["tools", "tool_choice", "reasoning", "max_tokens"],
        "architecture": {
            "input_modalities": ["text", "image", "file"],
            "output_modalities": ["text"],
        },
    },
    {
        "id": "google/gemini-2.5-flash",
        "name": "Google: Gemini 2.5 Flash",
        "context_length": 1048576,
        "pricing": {"prompt": "0.0000003", "completion": "0.0000025"},
        "supported_parameters": ["tools", "tool_choice", "reasoning", "max_tokens"],
        "architecture": {"input_modalities": ["text", "image"], "output_modalities": ["text"]},
    },
    {
        # Listed as reading text only, although its name looks like a model that reads
        # pictures: the list decides, not the name.
        "id": "google/gemini-text-only-test",
        "name": "A text-only model",
        "context_length": 32000,
        "pricing": {"prompt": "0.0000001", "completion": "0.0000001"},
        "supported_parameters": ["tools", "tool_choice", "max_tokens"],
        "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
    },
    {
        # The demo's model that never stops writing (fakes.demo).
        "id": NEVER_STOPS,
        "name": "Test: a model that never stops",
        "context_length": 128000,
        "pricing": {"prompt": "0.000002", "completion": "0.00001"},
        "supported_parameters": ["tools", "tool_choice", "max_tokens"],
        "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
    },
]


class FakeOpenRouter:
    def __init__(
        self,
        *,
        port: int = 0,
        responder: Responder | None = None,
        host: str = "127.0.0.1",
        verbose: bool = False,
    ) -> None:
        self.host = host
        self.port = port
        self.responder = responder
        self.verbose = verbose
        self.models: list[dict[str, Any]] = copy.deepcopy(DEFAULT_MODELS)
        self.requests: list[RecordedRequest] = []
        self.model_lists: list[RecordedRequest] = []  # GET /models, kept apart
        self.stopping = threading.Event()
        self._changed = threading.Condition()
        self._queue: collections.deque[Scripted] = collections.deque()
        self._disconnects = 0
        self._connections: set[socket.socket] = set()
        self._server: Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/api/v1"

    @property
    def disconnects(self) -> int:
        with self._changed:
            return self._disconnects

    @property
    def pending(self) -> int:
        """Scripted replies not yet taken by a request."""
        with self._changed:
            return len(self._queue)

    def start(self) -> FakeOpenRouter:
        self.stopping.clear()
        self._server = Server((self.host, self.port), Handler)
        self._server.fake = self
        self.port = self._server.server_address[1]
        # A short poll interval so stop() does not wait half a second for serve_forever.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": STOP_POLL}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self.stopping.set()
        server.shutdown()
        # Idle keep-alive connections would otherwise keep a handler thread
        # serving a stopped fake; shutting them down also wakes stalled handlers.
        with self._changed:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        server.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> FakeOpenRouter:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def script(self, *replies: Scripted) -> None:
        with self._changed:
            self._queue.extend(replies)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: len(self.requests) >= n, timeout)

    def wait_for_disconnect(self, timeout: float = 5.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._disconnects > 0, timeout)

    def _next(self, request: RecordedRequest) -> Scripted | None:
        with self._changed:
            if self._queue:
                return self._queue.popleft()
        if self.responder is None:
            return None
        try:
            return self.responder(request)
        except Exception as exc:
            # Shown to the client too, so a broken responder fails the test that hit it.
            traceback.print_exc()
            return HttpError(500, f"fake OpenRouter: responder failed: {exc!r}")

    def _append(self, request: RecordedRequest) -> None:
        with self._changed:
            self.requests.append(request)
            self._changed.notify_all()

    def _listed(self, request: RecordedRequest) -> None:
        with self._changed:
            self.model_lists.append(request)

    def _disconnected(self) -> None:
        with self._changed:
            self._disconnects += 1
            self._changed.notify_all()

    def _opened(self, connection: socket.socket) -> None:
        with self._changed:
            self._connections.add(connection)
        if self.stopping.is_set():  # accepted just as stop() ran: do not serve it
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def _closed(self, connection: socket.socket) -> None:
        with self._changed:
            self._connections.discard(connection)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake OpenRouter with an offline demo.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args(argv)
    fake = FakeOpenRouter(port=args.port, host=args.host, responder=demo_responder, verbose=True)
    fake.start()
    url = fake.base_url
    print(
        f"Fake OpenRouter listening on {url} — try: OPENROUTER_BASE_URL={url} make run", flush=True
    )
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print("\nStopping.")
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
