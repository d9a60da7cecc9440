"""What Channels' own `AsyncConsumer.dispatch` adds to every message a consumer
handles: `await aclose_old_connections()`, a trip through asgiref's one
shared thread (`sync_to_async`, thread-sensitive) to close stale database
connections before the handler runs.

Not a test: prints figures. Run with `.venv/bin/python bench/dispatch_hop.py`
(`--messages N`). It awaits the hop N times one after another, then as 50
consumers at once (50 tabs each handling a message), and prints the process's
CPU (both threads) and the wall time a hop. The chat consumer skips it
(chat.live.consumers.ChatConsumer.dispatch); bench/README.md ("Fewer layers on
a chunk's way") turns these figures into CPU a streamed chunk.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

from channels.db import aclose_old_connections

TABS = 50


async def _hops(count: int) -> None:
    for _ in range(count):
        await aclose_old_connections()


async def _measure(messages: int) -> None:
    await _hops(100)  # the shared thread started
    for label, tabs in (("one at a time", 1), (f"{TABS} consumers at once", TABS)):
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(_hops(messages // tabs) for _ in range(tabs)))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(
            f"{label:>24}: {cpu / messages * 1e6:6.1f} µs of CPU, "
            f"{wall / messages * 1e6:6.1f} µs of wall time a message"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    asyncio.run(_measure(args.messages))


if __name__ == "__main__":
    main()
