"""What a turn's batch costs the process that sends it through Redis, when
no other process listens to its group (the common case: each tab follows its
turn on the turn's own process).

Not a test: prints figures. Run with `.venv/bin/python bench/relay_publish.py`
(`--redis-url`, a db of its own, flushed before and after; `--groups`,
`--rounds`, `--runs`). One process's channel layer (chat.live.layer) with one
member in each of GROUPS project groups sends ROUNDS rounds of one turn batch
per group, draining the relay after each round as a busy server's flushes
follow one another, and reads each batch from the member's inbox. It prints
the process's CPU per batch (time.process_time, which counts the relay's
flushes and what its subscription hears back) over the whole run, once the
last publication had time to come back. Run it in two checkouts alternately
to compare: the figure is this process alone, but another process's load on a
2-core machine still moves it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

import redis

from chat.live.layer import LiveLayer

SETTLE = 0.5  # seconds for the last publications to come back before the clock stops


def batch(turn: str, seq: int) -> dict[str, Any]:
    event = {"type": "content", "text": f"word {seq} "}
    return {
        "type": "turn.events",
        "turn": turn,
        "conversation": 1,
        "events": [{"seq": seq, "event": event}],
        "first": seq,
    }


async def one_run(url: str, groups: int, rounds: int) -> float:
    """CPU seconds per batch over one run."""
    layer = LiveLayer(redis_url=url)
    names = [f"project.{uuid.uuid4().hex}" for _ in range(groups)]
    turns = [uuid.uuid4().hex for _ in range(groups)]
    members = []
    for name in names:
        member = await layer.new_channel()
        await layer.group_add(name, member)
        members.append(member)
    started = time.process_time()
    for seq in range(1, rounds + 1):
        for name, turn in zip(names, turns, strict=True):
            await layer.group_send(name, batch(turn, seq))
        for member in members:
            await layer.receive(member)
        await layer.drain()
    await asyncio.sleep(SETTLE)
    spent = time.process_time() - started
    await layer.close()
    return spent / (groups * rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/12", help="its own db")
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    redis.Redis.from_url(args.redis_url).flushdb()
    try:
        per_batch = [
            asyncio.run(one_run(args.redis_url, args.groups, args.rounds)) for _ in range(args.runs)
        ]
    finally:
        redis.Redis.from_url(args.redis_url).flushdb()
    figures = ", ".join(f"{seconds * 1e6:.1f}" for seconds in per_batch)
    print(
        f"{args.groups} groups x {args.rounds} rounds, one member each, no other process:"
        f" CPU a batch (µs) median {statistics.median(per_batch) * 1e6:.1f}; runs {figures}"
    )


if __name__ == "__main__":
    main()
