"""The low-level words of a script: what the fake writes on the wire, byte for byte.

A `Stream` is a list of events (SSE chunks, comments, raw bytes, pauses, a cut
connection, a stall) that the server writes exactly as given; `HttpError` and
`Json` are whole non-streaming answers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

DEFAULT_ERROR_MESSAGES: Mapping[int, str] = {
    400: "Bad request",
    401: "No auth credentials found",
    402: "Insufficient credits. Add more using https://openrouter.ai/settings/credits",
    403: "Input was flagged by moderation",
    404: "Not found",
    408: "Request timed out",
    429: "Rate limit exceeded",
    500: "Internal server error",
    502: "Provider returned error",
    503: "No available provider",
}


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes
    json: Any  # the parsed body, None when it is not JSON


def _json_bytes(value: object) -> bytes:
    # Real UTF-8 rather than \u escapes, so piece_size can split a character.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True)
class Chunk:
    data: Mapping[str, Any]

    def encode(self, line_ending: str) -> bytes:
        return b"data: " + _json_bytes(self.data) + (line_ending * 2).encode()


@dataclass(frozen=True)
class Comment:
    text: str = "OPENROUTER PROCESSING"

    def encode(self, line_ending: str) -> bytes:
        return f": {self.text}{line_ending * 2}".encode()


@dataclass(frozen=True)
class Raw:
    data: bytes

    def encode(self, line_ending: str) -> bytes:
        return self.data


@dataclass(frozen=True)
class Done:
    def encode(self, line_ending: str) -> bytes:
        return f"data: [DONE]{line_ending * 2}".encode()


@dataclass(frozen=True)
class Pause:
    seconds: float


@dataclass(frozen=True)
class Drop:
    """Cut the connection here, without the chunked terminator."""


@dataclass(frozen=True)
class Stall:
    """Send nothing more; hold the connection until the client leaves."""


@dataclass(frozen=True)
class Endless:
    """Write `data` again and again, as a broken or hostile server does, until the
    client leaves or `limit` bytes are out (a bound, so the fake stops by itself)."""

    data: bytes
    limit: int = 4 * 1024**3


Event: TypeAlias = Chunk | Comment | Raw | Done | Pause | Drop | Stall | Endless
# What the server does, in order: write (and flush) bytes, or act on a marker.
Action: TypeAlias = bytes | Pause | Drop | Stall | Endless


@dataclass(frozen=True)
class Stream:
    events: Sequence[Event]
    line_ending: Literal["\n", "\r\n"] = "\n"
    piece_size: int | None = None
    pause: float = 0.0
    headers: Mapping[str, str] = field(default_factory=dict)

    def actions(self) -> list[Action]:
        actions: list[Action] = []
        # Gathered in a list and joined once: a long scripted stream stays linear.
        pending: list[bytes] = []
        for event in self.events:
            if isinstance(event, Pause | Drop | Stall | Endless):
                actions += self._pieces(b"".join(pending))
                pending = []
                actions.append(event)
            elif self.piece_size is None:
                actions.append(event.encode(self.line_ending))
            else:
                pending.append(event.encode(self.line_ending))
        actions += self._pieces(b"".join(pending))
        return self._paced(actions)

    def _pieces(self, data: bytes) -> list[Action]:
        size = self.piece_size or len(data) or 1
        return [data[i : i + size] for i in range(0, len(data), size)]

    def _paced(self, actions: list[Action]) -> list[Action]:
        if self.pause <= 0:
            return actions
        paced: list[Action] = []
        for action in actions:
            if isinstance(action, bytes) and paced and isinstance(paced[-1], bytes):
                paced.append(Pause(self.pause))
            paced.append(action)
        return paced


@dataclass(frozen=True)
class HttpError:
    status: int
    message: str = ""
    code: int | str | None = None
    metadata: Mapping[str, Any] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None  # sent verbatim as text/html, e.g. a proxy's error page

    def content_type(self) -> str:
        return "application/json" if self.body is None else "text/html; charset=utf-8"

    def encode(self) -> bytes:
        if self.body is not None:
            return self.body.encode()
        message = self.message or DEFAULT_ERROR_MESSAGES.get(self.status, "Error")
        error: dict[str, Any] = {"code": self.code or self.status, "message": message}
        if self.metadata is not None:
            error["metadata"] = dict(self.metadata)
        return _json_bytes({"error": error})


@dataclass(frozen=True)
class Json:
    """A whole answer as application/json: an object, or raw text sent verbatim
    (a hostile server's malformed JSON)."""

    body: Mapping[str, Any] | str
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)

    def encode(self) -> bytes:
        return self.body.encode() if isinstance(self.body, str) else _json_bytes(self.body)
