"""What the chat loop adds to a turn: one scripted multi-request turn run through
`run_turn` and through a baseline that only streams the same requests.

Not a test: prints figures. Run with `.venv/bin/python bench/turn_overhead.py`.
The turn is three model requests (some text and three create_file calls; then
read_file, edit_file and search_files; then the final answer), about 2,000
chunks that the fake OpenRouter paces PACE apart. The fake runs in a forked
process, so it neither shares the GIL nor counts in the CPU time measured here.
A call's last argument fragment is sent back to back with the chunk after it
(the next call's head, or the finish), as providers send them, so the latency
from that fragment to the call's `tool_result` measures the loop and the file
service, not the pacing. The database is a temporary SQLite file (WAL), as in
a default install; every run gets a fresh project so its create_file calls
succeed.

It prints the wall time of each (medians and bests of ROUNDS turns, run
alternately), the CPU per chunk of the event loop's thread and of the whole
process (so the pool threads' database work too), and the latency of every call.

Targets: the loop's wall time at most 1.05x the baseline's, and last argument
fragment -> tool_result under 10 ms at the median.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

import httpx
from django.contrib.auth.models import User
from django.core.management import call_command

from chat.agent.events import Done, ToolResultEvent
from chat.agent.limits import TurnLimits
from chat.agent.loop import TurnRequest, run_turn
from chat.llm import ChatRequest, ChatStream, ClientConfig, LLMClient, StreamEvent, ToolCallDelta
from chat.models import Conversation
from chat.services import conversation_create
from common import threads
from demo.site import brief_from, site_files
from fakes.openrouter import FakeOpenRouter
from fakes.script import (
    Chunk,
    Comment,
    Event,
    Pause,
    Raw,
    RecordedRequest,
    Reply,
    Stream,
    ToolCallScript,
)
from fakes.script import Done as DoneMarker
from projects.lifecycle import project_create
from projects.models import Project

PACE = 0.0025  # seconds between two chunks
ROUNDS = 7  # timed turns of each kind, alternating, after one untimed of each
PROMPT = "Build a one-page site for a small bakery."
LIMITS = TurnLimits(
    max_iterations=10,
    history_tokens=16_000,
    turn_cost_limit=None,
    project_cost_limit=None,
    tool_timeout=30.0,
)

FOOTER = '<p>© <span id="year"></span> Crumb &amp; Co</p>'
INTRO = (
    "I'll build the bakery's site as three files: the page with a hero and three cards, "
    "a stylesheet with a warm palette and a responsive grid, and a small script for the "
    "button. Creating them now."
)
CHECK = "Let me read the page back, fix the footer and check where the button is used."
ANSWER = " ".join(
    [
        "Done: the bakery's site is ready.",
        "`/index.html` is the page: a hero with the heading, a lead paragraph and a button,",
        "then three cards (Fast, Responsive, Yours) and a footer, which now names the bakery.",
        "`/styles.css` holds the palette in custom properties (ink, paper, accent and card),",
        "the hero's gradient, the rounded accent button with its hover lift, the pop",
        "animation for the message, and the card grid, which reflows from one column on a",
        "phone to three on a wide screen; under 30rem the hero aligns left and the button",
        "takes the full width.",
        "`/script.js` wires the button: each click shows the next of four friendly messages",
        "with a running count and restarts the pop animation.",
        "The search found the button in the page, the stylesheet and the script, so the",
        "id, the styles and the handler agree.",
    ]
    * 3
)


def turn_script() -> list[Reply]:
    """The three replies of the turn; ~2,000 chunks in all."""
    files = site_files(brief_from("a bakery called Crumb & Co."))
    create = [
        ToolCallScript("create_file", {"path": f"/{path}", "content": content})
        for path, content in files.items()
    ]
    edit = {
        "search": FOOTER,
        "replace": FOOTER.replace("Crumb &amp; Co</p>", "Baked by Crumb &amp; Co.</p>"),
    }
    check = [
        ToolCallScript("read_file", {"path": "/index.html"}),
        ToolCallScript("edit_file", {"path": "/index.html", "edits": [edit]}),
        ToolCallScript("search_files", {"query": "button"}),
    ]
    return [
        Reply(content=INTRO, tool_calls=create, content_pieces=60, argument_pieces=420),
        Reply(content=CHECK, tool_calls=check, content_pieces=20, argument_pieces=120),
        Reply(content=ANSWER, content_pieces=470),
    ]


def paced(reply: Reply) -> Stream:
    """The reply's stream with a pause before every chunk, except after a call's
    last argument fragment: providers send it and the next chunk back to back."""
    events = reply.to_stream().events
    last_fragment: dict[int, int] = {}  # call index -> position of its last fragment
    for position, event in enumerate(events):
        if isinstance(event, Chunk):
            for call in event.data["choices"][0]["delta"].get("tool_calls") or ():
                last_fragment[call["index"]] = position
    ends = set(last_fragment.values())
    out: list[Event] = []
    previous: int | None = None  # position of the previous chunk
    for position, event in enumerate(events):
        assert isinstance(event, Chunk | Comment | DoneMarker)
        if isinstance(event, Chunk):
            if previous is not None and previous not in ends:
                out.append(Pause(PACE))
            previous = position
        # Encoded once here, so the fake only writes bytes for every request.
        out.append(Raw(event.encode("\n")))
    return Stream(out)


def chunk_count(replies: list[Reply]) -> int:
    return sum(isinstance(event, Chunk) for reply in replies for event in reply.to_stream().events)


def serve(streams: list[Stream], ports: Any, stop: Any) -> None:
    """In the forked child: a fake that answers by how far the turn has got,
    counted in assistant messages, so it replays the turn any number of times."""

    def responder(request: RecordedRequest) -> Stream:
        body = request.json if isinstance(request.json, dict) else {}
        messages = body.get("messages") or []
        answered: int = sum(isinstance(m, dict) and m.get("role") == "assistant" for m in messages)
        return streams[min(answered, len(streams) - 1)]

    with FakeOpenRouter(responder=responder) as fake:
        ports.put(fake.port)
        stop.wait()


class TimedClient(LLMClient):
    """The real client, noting when each call's latest argument fragment arrived."""

    def __init__(self, config: ClientConfig) -> None:
        super().__init__(config)
        self.arrived: dict[str, float] = {}  # call id -> perf_counter of its last fragment

    def stream(self, request: ChatRequest, *, api_key: str | None = None) -> ChatStream:
        return ChatStream(self._timed(super().stream(request, api_key=api_key)))

    async def _timed(self, inner: ChatStream) -> AsyncGenerator[StreamEvent, None]:
        ids: dict[int, str] = {}
        async with inner:
            async for piece in inner:
                if isinstance(piece, ToolCallDelta):
                    if piece.id:
                        ids[piece.index] = piece.id
                    self.arrived[ids[piece.index]] = time.perf_counter()
                yield piece


@dataclass
class Figures:
    walls: list[float] = field(default_factory=list)
    thread_cpu: list[float] = field(default_factory=list)  # the event loop's thread
    process_cpu: list[float] = field(default_factory=list)  # every thread (the pool's DB work)
    latencies: list[tuple[str, float, float]] = field(default_factory=list)  # name, ms, handler

    def add(self, wall: float, thread_cpu: float, process_cpu: float) -> None:
        self.walls.append(wall)
        self.thread_cpu.append(thread_cpu)
        self.process_cpu.append(process_cpu)


async def measured(run: Callable[[], Awaitable[None]], figures: Figures | None) -> None:
    wall, thread_cpu, process_cpu = time.perf_counter(), time.thread_time(), time.process_time()
    await run()
    if figures is not None:
        figures.add(
            time.perf_counter() - wall,
            time.thread_time() - thread_cpu,
            time.process_time() - process_cpu,
        )


async def baseline(http: httpx.AsyncClient, requests: int, chunks: int) -> None:
    """Stream the same requests and read their lines; nothing else."""
    seen = 0
    for answered in range(requests):
        messages = [{"role": "user", "content": PROMPT}]
        messages += [{"role": "assistant", "content": ""}] * answered
        body = {"model": "openai/gpt-4o-mini", "stream": True, "messages": messages}
        async with http.stream("POST", "chat/completions", json=body) as response:
            async for line in response.aiter_lines():
                if line.startswith("data: {"):
                    seen += 1
    if seen != chunks:
        raise SystemExit(f"the baseline read {seen} chunks, not {chunks}; figures would be wrong")


def fresh_project(user: User, number: int) -> tuple[Project, Conversation]:
    project = project_create(owner=user, name=f"Bakery {number}")
    assert isinstance(project, Project), project
    return project, conversation_create(project=project)


async def loop_turn(
    client: TimedClient, user: User, number: int, figures: Figures | None, calls: int
) -> None:
    project, conversation = await threads.run(fresh_project, user, number)
    client.arrived.clear()
    results: dict[str, ToolResultEvent] = {}
    finished: dict[str, float] = {}
    done: list[Done] = []

    async def turn() -> None:
        request = TurnRequest(project, conversation, PROMPT, user=user)
        async for event in run_turn(request, client=client, limits=LIMITS):
            if isinstance(event, ToolResultEvent):
                finished[event.id] = time.perf_counter()
                results[event.id] = event
            elif isinstance(event, Done):
                done.append(event)

    await measured(turn, figures)
    failed = [f"{event.name}: {event.summary}" for event in results.values() if not event.ok]
    if len(results) != calls or failed or not done or done[0].status != "completed":
        raise SystemExit(f"the turn went wrong ({done}, {failed}); figures would be wrong")
    if figures is not None:
        for call_id, event in results.items():
            latency = (finished[call_id] - client.arrived[call_id]) * 1000
            figures.latencies.append((event.name, latency, event.duration_ms))


async def measure(base_url: str, requests: int, chunks: int, calls: int) -> tuple[Figures, Figures]:
    user = await threads.run(User.objects.create_user, "bench", password="bench-password-1")
    client = TimedClient(ClientConfig(base_url=base_url, api_key="bench"))
    ours, bare = Figures(), Figures()
    async with httpx.AsyncClient(base_url=base_url + "/") as http:
        # One untimed turn of each: clients live as long as the process, so their
        # set-up (a connection, the first queries' caches) is not a cost per turn.
        await loop_turn(client, user, 0, None, calls)
        await measured(partial(baseline, http, requests, chunks), None)
        for number in range(1, ROUNDS + 1):
            turn = loop_turn(client, user, number, ours, calls)
            lines = measured(partial(baseline, http, requests, chunks), bare)
            for run in (turn, lines) if number % 2 else (lines, turn):  # alternate who goes first
                await run
    await client.aclose()
    return ours, bare


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(ours: Figures, bare: Figures, chunks: int) -> None:
    print(
        f"{'turn':<24} {'wall s (med)':>12} {'best':>7}"
        f" {'thread CPU µs/chunk':>20} {'process CPU µs/chunk':>21}"
    )
    for name, figures in (("baseline: httpx lines", bare), ("chat loop (run_turn)", ours)):
        print(
            f"{name:<24} {statistics.median(figures.walls):>12.3f} {min(figures.walls):>7.3f}"
            f" {statistics.median(figures.thread_cpu) / chunks * 1e6:>20.2f}"
            f" {statistics.median(figures.process_cpu) / chunks * 1e6:>21.2f}"
        )
    thread = statistics.median(ours.thread_cpu) - statistics.median(bare.thread_cpu)
    process = statistics.median(ours.process_cpu) - statistics.median(bare.process_cpu)
    print(
        f"{'the loop adds':<24} {'':>12} {'':>7} {thread / chunks * 1e6:>20.2f}"
        f" {process / chunks * 1e6:>21.2f}"
    )
    print(
        "(thread: the event loop's thread; process: every thread here, so also the pool's"
        " database work)"
    )
    median_ratio = statistics.median(ours.walls) / statistics.median(bare.walls)
    best_ratio = min(ours.walls) / min(bare.walls)
    print(
        f"\nwall time loop / baseline: {median_ratio:.3f} (medians), {best_ratio:.3f} (bests)"
        "   target: <= 1.05"
    )
    print(
        f"\n{'last fragment -> tool_result':<28} {'n':>3} {'p50 ms':>7} {'p90 ms':>7}"
        f" {'max ms':>7} {'handler p50':>12} {'rest p50':>9}"
    )
    names = list(dict.fromkeys(name for name, _, _ in ours.latencies))
    for name in [*names, "all calls"]:
        rows = [row for row in ours.latencies if name in (row[0], "all calls")]
        latency = [row[1] for row in rows]
        handler = [row[2] for row in rows]
        rest = [row[1] - row[2] for row in rows]
        print(
            f"{name:<28} {len(rows):>3} {statistics.median(latency):>7.2f}"
            f" {percentile(latency, 0.9):>7.2f} {max(latency):>7.2f}"
            f" {statistics.median(handler):>12.2f} {statistics.median(rest):>9.2f}"
        )
    print(
        "(handler: the call's duration_ms, i.e. parsing its arguments and running the tool in"
        " a pool thread;\n rest: the remainder, noticing the call, storing the assistant"
        " message or the tool's result, handing the event on)\ntarget: p50 under 10 ms"
    )


def main() -> None:
    replies = turn_script()
    chunks = chunk_count(replies)
    calls = sum(len(reply.tool_calls) for reply in replies)
    forking = multiprocessing.get_context("fork")
    ports, stop = forking.Queue(), forking.Event()
    streams = [paced(reply) for reply in replies]
    server = forking.Process(target=serve, args=(streams, ports, stop))
    server.start()
    try:
        base_url = f"http://127.0.0.1:{ports.get(timeout=30)}/api/v1"
        call_command("migrate", verbosity=0)
        print(
            f"{len(replies)} requests, {calls} tool calls, {chunks:,} chunks {PACE * 1000:g} ms"
            f" apart; SQLite in {os.environ['BUILTIT_DATA_DIR']}; {ROUNDS} turns of each\n"
        )
        ours, bare = asyncio.run(measure(base_url, len(replies), chunks, calls))
    finally:
        stop.set()
        server.join()
        shutil.rmtree(os.environ["BUILTIT_DATA_DIR"], ignore_errors=True)
    report(ours, bare, chunks)


if __name__ == "__main__":
    main()
