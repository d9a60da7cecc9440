"""CPU cost of reading many streamed answers at once on one event loop, as a
busy server does: STREAMS concurrent answers of CHUNKS content chunks each,
PACE apart, from bench/fanout_fake.py's fake OpenRouter in a forked process
(so each chunk is a network read of its own, the per-read cost that matters),
read through `LLMClient.stream` and a MessageAssembler.

Not a test: prints figures. Run with `.venv/bin/python bench/stream_many.py`.
Each reader is measured in ROUNDS rounds after an untimed one (which opens the
pool's connections); CPU is the whole reading process's (`time.process_time`,
so threads count too), divided by the chunks read. "idle" is the share of the
machine's CPU nobody used during the round (/proc/stat): near zero means other
work competed and the figure is noisy.

    .venv/bin/python bench/stream_many.py [--streams 200] [--chunks 100] [--pace 0.02]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

import httpx

from bench.fanout_fake import serve
from chat.llm import ChatMessage, ChatRequest, ClientConfig, LLMClient, MessageAssembler

ROUNDS = 3
READERS: dict[str, Callable[[], httpx.AsyncBaseTransport | None]] = {
    # httpx's own transport (httpcore, h11 and anyio): the reader before issue 32.
    "httpx + httpcore": lambda: httpx.AsyncHTTPTransport(
        limits=httpx.Limits(max_connections=1000, max_keepalive_connections=1000)
    ),
    "chat.llm default": lambda: None,
}


async def one_answer(client: LLMClient) -> int:
    request = ChatRequest(model="openai/gpt-4o-mini", messages=[ChatMessage.user("Build it")])
    assembler = MessageAssembler()
    async with client.stream(request) as pieces:
        async for piece in pieces:
            assembler.add(piece)
    return assembler.message().content.count("fresh bread")


def idle_jiffies() -> tuple[int, int]:
    """(idle, total) jiffies of the whole machine so far."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return fields[3] + fields[4], sum(fields)


async def one_round(client: LLMClient, streams: int, expected: Any) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, share of the machine idle) of one round."""
    with expected.get_lock():
        expected.value += streams  # the fake holds the streams until all have asked
    idle, total = idle_jiffies()
    wall, cpu = time.perf_counter(), time.process_time()
    counts = await asyncio.gather(*(one_answer(client) for _ in range(streams)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    idle_after, total_after = idle_jiffies()
    if len(set(counts)) != 1:
        raise SystemExit(f"Streams read different numbers of chunks: {sorted(set(counts))}")
    return cpu, wall, (idle_after - idle) / max(total_after - total, 1)


async def measure(name: str, base_url: str, args: argparse.Namespace, expected: Any) -> None:
    config = ClientConfig(base_url=base_url, api_key="bench", max_retries=0)
    client = LLMClient(config, transport=READERS[name]())
    await one_round(client, args.streams, expected)
    for _ in range(ROUNDS):
        cpu, wall, idle = await one_round(client, args.streams, expected)
        per_chunk = cpu / (args.streams * args.chunks) * 1e6
        print(f"{name:<18} {args.streams:>7} {per_chunk:>13.1f} {wall:>7.2f} {idle:>6.0%}")
    await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=100)
    parser.add_argument("--pace", type=float, default=0.02, help="seconds between chunks")
    args = parser.parse_args()
    forking = multiprocessing.get_context("fork")
    ports, stop, expected = forking.Queue(), forking.Event(), forking.Value("i", 0)
    fake = forking.Process(target=serve, args=(args.chunks, args.pace, expected, ports, stop))
    fake.start()
    try:
        base_url = f"http://127.0.0.1:{ports.get(timeout=30)}/api/v1"
        print(f"{'reader':<18} {'streams':>7} {'CPU µs/chunk':>13} {'wall s':>7} {'idle':>6}")
        for name in READERS:
            asyncio.run(measure(name, base_url, args, expected))
    finally:
        stop.set()
        fake.join()


if __name__ == "__main__":
    main()
