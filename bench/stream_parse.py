"""CPU cost of reading a streamed answer: chat.llm's client and assembler
against a bare httpx loop that only splits lines, over loopback from the fake.

Not a test: prints figures. Run with `.venv/bin/python bench/stream_parse.py`.
The fake runs in its own process (forked), so it neither shares the GIL
nor counts in the CPU time measured here (`time.thread_time`). Target: the client adds
under 20 µs of CPU per chunk, and a 10x longer stream costs at most 11x.

The fake writes the stream in 16 KB pieces, so a network read brings dozens of
events and the figures are the cost of an event. A provider writes an event at
a time, as the model writes it: the last rows ("one event a read") have the
fake write each event as an HTTP chunk of its own, which the client reads one
at a time, so they add the cost of a network read to every chunk, as on a
server streaming many answers (bench/ws_fanout.py).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

import httpx

from chat.llm import ChatMessage, ChatRequest, ClientConfig, LLMClient, MessageAssembler
from fakes.openrouter import FakeOpenRouter
from fakes.script import Raw, Stream

SIZES = (20_000, 200_000)
ROUNDS = 5
PIECE_SIZE = 16 * 1024  # bytes the fake writes at once
CALLS = 3  # tool calls in the answer, each getting an equal share of the argument chunks


def envelope(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "gen-1763700000-AbCdEfGhIjKlMnOpQrSt",
        "provider": "OpenAI",
        "model": "openai/gpt-4o-mini",
        "object": "chat.completion.chunk",
        "created": 1763700000,
        "choices": [
            {
                "index": 0,
                "delta": delta,
                "finish_reason": finish,
                "native_finish_reason": finish,
                "logprobs": None,
            }
        ],
    }


def scripted_events(chunks: int) -> list[bytes]:
    """A realistic answer: a quarter content, then three tool calls whose
    arguments arrive in many small fragments, then finish, usage and [DONE]."""
    events: list[dict[str, Any]] = []
    content_chunks = chunks // 4
    events += [envelope({"role": "assistant", "content": "word "}) for _ in range(content_chunks)]
    per_call = (chunks - content_chunks) // CALLS
    for index in range(CALLS):
        head = {"index": index, "id": f"call_{index}", "type": "function"}
        head["function"] = {"name": "create_file", "arguments": '{"path": "p.html", "content": "'}
        events.append(envelope({"role": "assistant", "content": None, "tool_calls": [head]}))
        for _ in range(per_call - 2):
            piece = {"index": index, "function": {"arguments": "<p>x</p>"}}
            events.append(envelope({"role": "assistant", "content": None, "tool_calls": [piece]}))
        tail = {"index": index, "function": {"arguments": '"}'}}
        events.append(envelope({"role": "assistant", "content": None, "tool_calls": [tail]}))
    events.append(envelope({"role": "assistant", "content": ""}, "tool_calls"))
    usage = envelope({"role": "assistant", "content": ""}, "tool_calls")
    usage["usage"] = {"prompt_tokens": 1000, "completion_tokens": chunks, "cost": 0.01}
    events.append(usage)
    lines = [b": OPENROUTER PROCESSING\n\n"]
    lines += [b"data: " + json.dumps(event).encode() + b"\n\n" for event in events]
    lines.append(b"data: [DONE]\n\n")
    return lines


async def bare_loop(http: httpx.AsyncClient) -> int:
    count = 0
    async with http.stream("POST", "chat/completions", json={"stream": True}) as response:
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                count += 1
    return count


async def client_loop(client: LLMClient) -> int:
    request = ChatRequest(model="openai/gpt-4o-mini", messages=[ChatMessage.user("Build it")])
    assembler = MessageAssembler()
    async with client.stream(request) as pieces:
        async for piece in pieces:
            assembler.add(piece)
    message = assembler.message()
    assert len(message.tool_calls) == CALLS, message.tool_calls
    for call in message.tool_calls:
        json.loads(call.arguments)  # the fragments were joined into valid JSON
    return len(message.content) // len("word ")


def serve(events: list[bytes], piece_size: int | None, ports: Any, stop: Any) -> None:
    """In the forked child: a fake that answers every request with `events`, in
    pieces of `piece_size` bytes (None: an HTTP chunk per event)."""
    if piece_size is None:
        stream = Stream([Raw(event) for event in events])
    else:
        stream = Stream([Raw(b"".join(events))], piece_size=piece_size)
    with FakeOpenRouter(responder=lambda request: stream) as fake:
        ports.put(fake.port)
        stop.wait()


async def timed(run: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """(best CPU seconds, wall seconds of that round) over ROUNDS runs, after one
    untimed run: clients live as long as the process, so their set-up (an SSL
    context, a connection) is not a cost per answer."""
    await run()
    best = (float("inf"), 0.0)
    for _ in range(ROUNDS):
        wall, cpu = time.perf_counter(), time.thread_time()
        await run()
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
        best = min(best, (cpu, wall))
    return best


async def measure(base_url: str) -> tuple[tuple[float, float], tuple[float, float]]:
    client = LLMClient(ClientConfig(base_url=base_url, api_key="bench"))
    async with httpx.AsyncClient(base_url=base_url + "/") as http:
        bare = await timed(lambda: bare_loop(http))
        ours = await timed(lambda: client_loop(client))
    await client.aclose()
    return bare, ours


def measure_size(size: int, piece_size: int | None = PIECE_SIZE) -> float:
    forking = multiprocessing.get_context("fork")
    ports, stop = forking.Queue(), forking.Event()
    server = forking.Process(target=serve, args=(scripted_events(size), piece_size, ports, stop))
    server.start()
    try:
        base_url = f"http://127.0.0.1:{ports.get(timeout=30)}/api/v1"
        (bare_cpu, bare_wall), (cpu, wall) = asyncio.run(measure(base_url))
    finally:
        stop.set()
        server.join()
    rows = (("bare httpx lines", bare_cpu, bare_wall), ("chat.llm", cpu, wall))
    each = "" if piece_size else ", one event a read"
    for name, row_cpu, row_wall in rows:
        rate, per_chunk = size / row_wall, row_cpu / size * 1e6
        print(f"{size:>8} {name + each:<36} {rate:>10,.0f} {per_chunk:>13.2f}")
    if piece_size:  # (a bare loop on httpx's own transport is no baseline for a read's cost)
        print(f"{size:>8} {'client adds':<36} {'':>10} {(cpu - bare_cpu) / size * 1e6:>13.2f}")
    return cpu


def main() -> None:
    print(f"{'chunks':>8} {'reader':<36} {'chunks/s':>10} {'CPU µs/chunk':>13}")
    small, large = SIZES
    small_cpu = measure_size(small)
    ratio = measure_size(large) / small_cpu
    measure_size(small, piece_size=None)
    print(f"\n{large // small}x longer stream costs {ratio:.2f}x the CPU (target: <= 11x)")


if __name__ == "__main__":
    main()
