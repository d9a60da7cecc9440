"""The fake OpenRouter of bench/ws_fanout.py, run in a forked process: every
model request is answered with CHUNKS content chunks PACE apart, each chunk's
text carrying a marker `⟦seq:ns⟧`, ns being `time.monotonic_ns()` as the chunk
is written. A round's streams are held until all its turns have asked."""

from __future__ import annotations

import asyncio
import json
import time
from functools import partial
from typing import Any

GATE_WAIT = 120.0  # seconds the fake holds a round's streams for turns that never ask


def sse(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    choice = {
        "index": 0,
        "delta": {"role": "assistant", **delta},
        "finish_reason": finish,
        "native_finish_reason": finish,
        "logprobs": None,
    }
    data = {
        "id": "gen-1763700000-bench",
        "provider": "OpenAI",
        "model": "openai/gpt-4o-mini",
        "object": "chat.completion.chunk",
        "created": 1763700000,
        "choices": [choice],
        **extra,
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return b"data: " + text.encode() + b"\n\n"


def http_chunk(data: bytes) -> bytes:
    return b"%X\r\n%s\r\n" % (len(data), data)


HEAD, TAIL = sse({"content": "@TEXT@"}).split(b"@TEXT@")
USAGE = {"prompt_tokens": 100, "completion_tokens": 200, "total_tokens": 300, "cost": 0.0001}
FINISH = b"".join(
    [
        http_chunk(sse({"content": ""}, "stop")),
        http_chunk(sse({"content": ""}, "stop", usage=USAGE)),
        http_chunk(b"data: [DONE]\n\n"),
        b"0\r\n\r\n",
    ]
)
STREAM_HEADERS = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n" + http_chunk(b": OPENROUTER PROCESSING\n\n")
)
NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"


class Feed:
    """One streamed answer: a chunk stamped as it is written every `pace` seconds,
    then the finish. Timer callbacks, not a task per stream: 200 streams at 5 ms
    are 40,000 writes a second, and the fake must not be what is measured.

    The n-th chunk is due n paces after the stream begins. This VM's timers fire
    late (a 1 ms sleep takes 5), so "a pace after the last write" would halve the
    rate; instead chunks that are late go out at once, together, each stamped, as
    a provider's would on a slow network. On time, each chunk is a write of its own."""

    def __init__(self, writer: asyncio.StreamWriter, chunks: int, pace: float) -> None:
        self.writer, self.chunks, self.pace = writer, chunks, pace
        self.seq = 0
        self.loop = asyncio.get_running_loop()
        self.start = 0.0
        self.done: asyncio.Future[None] = self.loop.create_future()

    def begin(self) -> None:
        self.start = self.loop.time()
        self.loop.call_at(self.start + self.pace, self.next)

    def next(self) -> None:
        if self.writer.is_closing():
            self.done.set_result(None)
        elif self.seq < self.chunks:
            due = int((self.loop.time() - self.start) / self.pace)
            pieces = []
            for seq in range(self.seq, max(self.seq + 1, min(due, self.chunks))):
                text = f"⟦{seq}:{time.monotonic_ns()}⟧ fresh bread "
                pieces.append(http_chunk(HEAD + text.encode() + TAIL))
            self.writer.write(b"".join(pieces))
            self.seq += len(pieces)
            self.loop.call_at(self.start + (self.seq + 1) * self.pace, self.next)
        else:
            self.writer.write(FINISH)
            self.done.set_result(None)


class Gate:
    """Holds streams until `expected` requests have come in all (the parent adds
    each round's N before it starts), so a round's N streams run together."""

    def __init__(self, expected: Any) -> None:
        self.expected = expected  # a multiprocessing.Value shared with the parent
        self.asked = 0
        self.held: list[Feed] = []
        self.timer: asyncio.TimerHandle | None = None

    def hold(self, feed: Feed) -> None:
        self.asked += 1
        self.held.append(feed)
        if self.asked >= self.expected.value:
            self.open()
        elif self.timer is None:
            self.timer = feed.loop.call_later(GATE_WAIT, self.open)

    def open(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        held, self.held = self.held, []
        for feed in held:
            feed.begin()


async def read_request(reader: asyncio.StreamReader) -> tuple[str, str, int] | None:
    """Method, path and body length of the next request; None once the client hangs up."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    first, *lines = head.decode("latin-1").split("\r\n")
    method, path, _ = first.split(" ", 2)
    length = 0
    for line in lines:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return method, path, length


async def answer(
    gate: Gate,
    chunks: int,
    pace: float,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
) -> None:
    try:
        while request := await read_request(reader):  # keep-alive: the client pools
            method, path, length = request
            await reader.readexactly(length)
            if method == "POST" and path.endswith("/chat/completions"):
                writer.write(STREAM_HEADERS)
                feed = Feed(writer, chunks, pace)
                gate.hold(feed)
                await feed.done
            else:
                writer.write(NOT_FOUND)
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def fake_openrouter(chunks: int, pace: float, expected: Any, ports: Any, stop: Any) -> None:
    respond = partial(answer, Gate(expected), chunks, pace)
    server = await asyncio.start_server(respond, "127.0.0.1", 0, backlog=1024)
    ports.put(server.sockets[0].getsockname()[1])
    await asyncio.to_thread(stop.wait)
    server.close()


def serve(chunks: int, pace: float, expected: Any, ports: Any, stop: Any) -> None:
    asyncio.run(fake_openrouter(chunks, pace, expected, ports, stop))
