"""Streamed text through daphne processes to many chat sockets at once.

Not a test: prints figures. Run with `.venv/bin/python bench/ws_fanout.py`
(`--clients 1,50,200`, `--pace-ms 5`, `--chunks 200`, `--format html|json`,
`--processes N`, `--server daphne|uvicorn`; `--idle N` for sockets that only
stay open).

With `--processes 1` (the default) one daphne, as deployed without REDIS_URL
(the in-memory channel layer), on a temporary SQLite database, serves N
websocket clients (N = 1, 50, 200). With `--processes P` > 1, P daphnes share a
fresh PostgreSQL database (created and dropped here) and Redis (`--redis-url`,
a db of the bench's own, flushed before and after), as deployed behind a
balancer, and the clients are spread over them round-robin. Each client is
signed in as the owner of its own project and runs one turn. A small fake
OpenRouter in a forked process (bench/fanout_fake.py) answers every model
request with CHUNKS content chunks PACE apart; each chunk's text carries a
marker `⟦seq:ns⟧`, ns being the fake's `time.monotonic_ns()` as it writes the
chunk. The fake holds a round's streams until all N turns have asked, so N
streams really run at once (how long the turns took to start is shown apart).
The clients (one asyncio process, this one, with `websockets`) note
`time.monotonic_ns()` as each frame arrives and read the frames only after the
turn, so their work per frame is a clock read and an append. CLOCK_MONOTONIC is
system-wide, so the difference is what the server adds: reading and parsing
the stream, the loop, the fan-out (chat.live.layer in process, and Redis through
chat.live.relay with several processes; pieces that came while a tab was busy
share a frame), rendering and the socket. Keep `--chunks` under 1,000: a
streamed block's drawing is bounded there (the rest shows when it ends), and
the chunks past it would count as dropped.

Per N it prints that added latency over every chunk of every client (p50, p99,
max); chunks received against expected (each chunk's text must arrive exactly
once in the streamed fragments; several chunks may share a frame, so frames
are counted apart); errors (a socket refused or closed, a turn that did not
complete, an error shown, a traceback in a server's log); the rate the fake
sent at; how long the turns took to start and to finish; the CPU used while
the chunks streamed, by each server process, the fake, the clients and the
rest of the machine (other processes skew every figure: run it on an idle
machine); and each server's peak RSS (VmHWM, so it only grows from one N to
the next). One untimed turn per server process runs first.

`--idle N` runs no turns: N HTML chat sockets (one project each) open, spread
over the processes, and stay open `--idle-seconds`; it prints how long they
took to open and the CPU the servers and the clients used meanwhile (a
connect's share of each), each server's resident memory before and after they
opened, its peak, and the CPU it used while they sat there.

Targets on the 2-core machine, with no errors and nothing dropped or repeated:
p99 added latency at most 25 ms with 50 clients x 200 chunks 5 ms apart on one
process, and 100 ms with 200 clients x 100 chunks 20 ms apart on two; 1,000
idle sockets on one process at most 5% of a core.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import fanout_servers as servers
from bench.fanout_fake import serve


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="1,50,200", help="comma-separated counts")
    parser.add_argument("--pace-ms", type=float, default=5.0, help="between two chunks")
    parser.add_argument("--chunks", type=int, default=200, help="content chunks per turn")
    parser.add_argument("--format", choices=("html", "json"), default="html")
    parser.add_argument("--processes", type=int, default=1, help="server processes")
    parser.add_argument("--server", choices=("daphne", "uvicorn"), default="daphne")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/5", help="its own db")
    parser.add_argument("--idle", type=int, default=0, help="open N sockets and run no turns")
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    return parser.parse_args()


# Read before Django starts: the processes decide the database and channel layer.
ARGS = arguments()
BENCH_DATABASE = f"builtit_bench_{os.getpid()}"
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ["BUILTIT_HTTPS"] = "0"
if ARGS.processes > 1:
    os.environ["DATABASE_URL"] = servers.database_url(BENCH_DATABASE)
    os.environ["REDIS_URL"] = ARGS.redis_url
else:  # the in-memory channel layer and a temporary SQLite database, in daphne too
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
# One person owns every project here: their per-person bounds (turns at once,
# spending) would refuse all but the first turns. This measures the fan-out.
os.environ["BUILTIT_MAX_TURNS_PER_PERSON"] = "0"
os.environ["BUILTIT_USER_DAILY_COST_LIMIT"] = "0"
os.environ["BUILTIT_USER_MONTHLY_COST_LIMIT"] = "0"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connections
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException
from websockets.typing import Origin

from projects.lifecycle import project_create
from projects.models import Project

PROMPT = "Tell me about the bakery's opening hours."
TURN_TIMEOUT = 300.0  # seconds from sending the message to the turn's footer
# Sockets being opened at once: daphne listens with a backlog of 50 (Twisted's
# default), and connections past it wait for SYN retries, seconds each.
OPENING = 32

MARKER = re.compile(r"⟦(\d+):(\d+)⟧")
# Streamed answer text, drawn as Markdown while it streams (chat.render.streaming):
# what settled, put before the block's open part, the open part redrawn, and the
# words added to its tail between two drawings. The rendered block that replaces
# it at the end is left out.
STREAMED = re.compile(
    r'hx-swap-oob="(?:(?:beforebegin|innerHTML):#t\d+-b\d+-open|beforeend:#t\d+-b\d+-tail)">'
    r"(.*?)</div>",
    re.DOTALL,
)
FOOTER_END = re.compile(r'class="turn-footer (?!running)(\w+)"')


@dataclass(frozen=True)
class Sample:
    """When, then CPU seconds so far of each server, the fake, this process and the machine."""

    at: int
    servers: tuple[float, ...]
    fake: float
    clients: float
    machine: float


def session_cookie(user: User) -> str:
    # The site's own engine (accounts.sessions): a session of another store is not found.
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


def project_groups(user: User, counts: list[int]) -> list[list[uuid.UUID]]:
    """Fresh projects for each round, one per client."""
    groups = []
    for count in counts:
        made = [project_create(owner=user, name=f"Bakery {number}") for number in range(count)]
        groups.append([project.pk for project in made if isinstance(project, Project)])
    return groups


# --- the clients ------------------------------------------------------------------------


@dataclass
class Tab:
    """One client: every frame of its turn, with when it arrived."""

    url: str
    origin: str
    frames: list[tuple[int, str | bytes]] = field(default_factory=list)
    sent: int = 0
    ended: int = 0
    error: str | None = None


def tabs_for(projects: list[uuid.UUID], bases: list[str], as_json: bool) -> list[Tab]:
    """A tab per project, spread round-robin over the servers at `bases`."""
    query = "?format=json" if as_json else ""
    tabs = []
    for number, project in enumerate(projects):
        base = bases[number % len(bases)]
        tabs.append(Tab(f"ws://{base}/ws/projects/{project}/chat/{query}", f"http://{base}"))
    return tabs


async def open_tab(
    tab: Tab, cookie: str, gate: asyncio.Semaphore, as_json: bool
) -> ClientConnection:
    async with gate:
        socket_ = await connect(
            tab.url,
            origin=Origin(tab.origin),
            additional_headers={"Cookie": cookie},
            proxy=None,
            max_size=None,
            ping_interval=None,
            open_timeout=60,
        )
        if not as_json:
            await asyncio.wait_for(socket_.recv(), 30)  # the snapshot (HTML only)
        return socket_


async def open_tabs(
    tabs: list[Tab], cookie: str, as_json: bool
) -> list[tuple[ClientConnection, Tab]]:
    """The tabs that could open a socket, with it; the others get an error."""
    gate = asyncio.Semaphore(OPENING)
    opened = await asyncio.gather(
        *(open_tab(tab, cookie, gate, as_json) for tab in tabs), return_exceptions=True
    )
    live: list[tuple[ClientConnection, Tab]] = []
    for tab, result in zip(tabs, opened, strict=True):
        if isinstance(result, BaseException):
            tab.error = f"could not open the socket: {result!r}"
        else:
            live.append((result, tab))
    return live


async def follow(socket_: ClientConnection, tab: Tab, ended: Callable[[str], bool]) -> None:
    try:
        async with asyncio.timeout(TURN_TIMEOUT):
            tab.sent = time.monotonic_ns()
            await socket_.send(json.dumps({"message": PROMPT}))
            async for text in socket_:
                tab.frames.append((time.monotonic_ns(), text))
                if isinstance(text, str) and ended(text):
                    tab.ended = tab.frames[-1][0]
                    return
        tab.error = "the socket closed before the turn ended"
    except TimeoutError:
        tab.error = f"the turn did not end within {TURN_TIMEOUT:g} s"
    except WebSocketException as error:
        tab.error = f"socket: {error!r}"


def html_ended(text: str) -> bool:
    return "turn-footer " in text and FOOTER_END.search(text) is not None


def json_ended(text: str) -> bool:
    return '"type": "done"' in text


async def run_round(tabs: list[Tab], cookie: str, as_json: bool) -> None:
    """Every tab opens its socket, then all send their message at once."""
    live = await open_tabs(tabs, cookie, as_json)
    ended = json_ended if as_json else html_ended
    await asyncio.gather(*(follow(socket_, tab, ended) for socket_, tab in live))
    await asyncio.gather(*(socket_.close() for socket_, _ in live))


async def sample_cpu(pids: list[int], fake: int, samples: list[Sample]) -> None:
    """CPU seconds of the servers, the fake, this process and the whole machine,
    ten times a second: anything else running on the machine skews every figure."""
    while True:
        samples.append(sample_now(pids, fake))
        await asyncio.sleep(0.1)


def sample_now(pids: list[int], fake: int) -> Sample:
    used = tuple(servers.cpu_seconds(pid) for pid in pids)
    clients, machine = time.process_time(), servers.machine_busy()
    return Sample(time.monotonic_ns(), used, servers.cpu_seconds(fake), clients, machine)


def cores_between(first: Sample, last: Sample) -> tuple[list[float], float, float, float]:
    """Cores used by each server, the fake, the clients and the rest of the machine."""
    seconds = (last.at - first.at) / 1e9
    each = [(b - a) / seconds for a, b in zip(first.servers, last.servers, strict=True)]
    fake = (last.fake - first.fake) / seconds
    clients = (last.clients - first.clients) / seconds
    machine = (last.machine - first.machine) / seconds
    return each, fake, clients, machine - sum(each) - fake - clients


# --- reading the frames -------------------------------------------------------------------


@dataclass
class Round:
    clients: int
    expected: int
    latencies: list[float] = field(default_factory=list)  # ms, every chunk received
    seen: Counter[tuple[int, int]] = field(default_factory=Counter)  # (tab, seq) -> times
    frames: int = 0
    errors: list[str] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)  # ns, each message sent
    stamps: list[int] = field(default_factory=list)  # ns, each chunk written by the fake
    arrived: int = 0  # ns, the last chunk received
    turns: list[float] = field(default_factory=list)  # s, message sent -> footer
    samples: list[Sample] = field(default_factory=list)  # from sample_cpu
    peak_rss: list[float] = field(default_factory=list)  # MB, each server

    def cpu_while_streaming(self) -> tuple[list[float], float, float, float] | None:
        """`cores_between` the first chunk sent and the last received."""
        start, end = min(self.stamps or [0]), self.arrived
        inside = [sample for sample in self.samples if start <= sample.at <= end]
        return cores_between(inside[0], inside[-1]) if len(inside) >= 2 else None


def stamps_in(text: str, as_json: bool) -> Iterator[tuple[int, int]]:
    """(seq, ns) of every chunk whose text the frame streams."""
    if not as_json:
        parts = STREAMED.findall(text)
    elif '"type": "content"' in text:
        parts = [text]
    else:
        return
    for part in parts:
        for seq, stamp in MARKER.findall(part):
            yield int(seq), int(stamp)


def shows_error(text: str, as_json: bool) -> bool:
    if as_json:
        failed = json_ended(text) and '"status": "completed"' not in text
        return failed or '"type": "error"' in text
    footer = FOOTER_END.search(text)
    return 'role="alert"' in text or (footer is not None and footer.group(1) != "completed")


def add_tab(figures: Round, number: int, tab: Tab, as_json: bool) -> None:
    if tab.error:
        figures.errors.append(tab.error)
    if tab.ended:
        figures.turns.append((tab.ended - tab.sent) / 1e9)
    figures.sent.append(tab.sent)
    figures.frames += len(tab.frames)
    for arrived, text in tab.frames:
        assert isinstance(text, str), "the chat socket sends text frames"
        if shows_error(text, as_json):
            figures.errors.append(f"shown: {text[:300]}")
        for seq, stamp in stamps_in(text, as_json):
            # The open part is redrawn as it grows: a chunk counts where it first arrived.
            if (number, seq) in figures.seen and not as_json:
                continue
            figures.seen[number, seq] += 1
            figures.latencies.append((arrived - stamp) / 1e6)
            figures.stamps.append(stamp)
            figures.arrived = max(figures.arrived, arrived)


def tracebacks(log: Path, offset: int) -> tuple[list[str], int]:
    """Tracebacks a server logged since `offset`, and the new offset."""
    text = log.read_text(errors="replace")
    parts = text[offset:].split("Traceback")[1:]
    return [f"{log.stem}: {_raised(part)} ({_last_frame(part)})" for part in parts], len(text)


def _last_frame(traceback: str) -> str:
    """Where a logged traceback was raised: its last `File ...` line."""
    frames = [line.strip() for line in traceback.splitlines() if line.startswith('  File "')]
    return frames[-1] if frames else "?"


def _raised(traceback: str) -> str:
    """The exception a logged traceback ends with (its first unindented line)."""
    lines = traceback.splitlines()[1:]
    return next((line for line in lines if line and not line.startswith(" ")), "?")


@dataclass
class Bench:
    """The running servers, and what the clients need to reach them."""

    servers: list[servers.Server]
    fake: int  # pid
    expected: Any  # the fake's multiprocessing.Value: streams asked for so far, all rounds
    cookie: str
    logged: dict[Path, int] = field(default_factory=dict)  # log -> offset read so far

    @property
    def bases(self) -> list[str]:
        return [server.base for server in self.servers]

    @property
    def pids(self) -> list[int]:
        return [server.pid for server in self.servers]

    def new_tracebacks(self) -> list[str]:
        found: list[str] = []
        for server in self.servers:
            more, self.logged[server.log] = tracebacks(server.log, self.logged.get(server.log, 0))
            found += more
        return found


async def measure(
    groups: list[list[uuid.UUID]], bench: Bench, chunks: int, as_json: bool
) -> list[Round]:
    rounds = []
    for projects in groups:
        figures = Round(len(projects), len(projects) * chunks)
        bench.expected.value += len(projects)
        sampler = asyncio.create_task(sample_cpu(bench.pids, bench.fake, figures.samples))
        tabs = tabs_for(projects, bench.bases, as_json)
        await run_round(tabs, bench.cookie, as_json)
        sampler.cancel()
        figures.peak_rss = [servers.memory_mb(pid) for pid in bench.pids]
        for number, tab in enumerate(tabs):
            add_tab(figures, number, tab, as_json)
        figures.errors += bench.new_tracebacks()
        rounds.append(figures)
        await asyncio.sleep(1)  # the turns release their locks; the servers settle
    return rounds


# --- sockets that only stay open -------------------------------------------------------------


@dataclass
class Idle:
    sockets: int
    opened: int = 0
    opening_s: float = 0.0
    rss_before: list[float] = field(default_factory=list)  # MB, each server
    rss_after: list[float] = field(default_factory=list)
    peak_rss: list[float] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)  # while idle
    opening: list[Sample] = field(default_factory=list)  # as the opening began, and ended
    errors: list[str] = field(default_factory=list)


async def sit_idle(projects: list[uuid.UUID], bench: Bench, seconds: float) -> Idle:
    """HTML tabs that open and then only stay open: what each server spends on them."""
    figures = Idle(len(projects))
    figures.rss_before = [servers.memory_mb(pid, "VmRSS") for pid in bench.pids]
    tabs = tabs_for(projects, bench.bases, as_json=False)
    began = time.monotonic()
    figures.opening.append(sample_now(bench.pids, bench.fake))
    live = await open_tabs(tabs, bench.cookie, as_json=False)
    figures.opening_s, figures.opened = time.monotonic() - began, len(live)
    figures.opening.append(sample_now(bench.pids, bench.fake))
    await asyncio.sleep(2)  # the last connects' database work ends
    sampler = asyncio.create_task(sample_cpu(bench.pids, bench.fake, figures.samples))
    await asyncio.sleep(seconds)
    sampler.cancel()
    figures.rss_after = [servers.memory_mb(pid, "VmRSS") for pid in bench.pids]
    figures.peak_rss = [servers.memory_mb(pid) for pid in bench.pids]
    closed = [socket_ for socket_, _ in live if socket_.close_code is not None]
    figures.errors = [tab.error for tab in tabs if tab.error]
    figures.errors += [f"closed while idle: {socket_.close_code}" for socket_ in closed]
    await asyncio.gather(*(socket_.close() for socket_, _ in live))
    figures.errors += bench.new_tracebacks()
    return figures


def report_idle(figures: Idle, kind: str) -> None:
    each, _, clients, rest = cores_between(figures.samples[0], figures.samples[-1])
    seconds = (figures.samples[-1].at - figures.samples[0].at) / 1e9
    print(f"{figures.opened:,}/{figures.sockets:,} sockets opened in {figures.opening_s:.1f} s")
    opening, _, opening_clients, opening_rest = cores_between(*figures.opening)
    print(
        f"while opening: servers {' + '.join(f'{cores:.2f}' for cores in opening)} cores,"
        f" clients {opening_clients:.2f}, rest of the machine {opening_rest:.2f}"
        f" ({sum(opening) * figures.opening_s * 1e3 / max(figures.opened, 1):.2f} ms of server"
        f" CPU and {opening_clients * figures.opening_s * 1e3 / max(figures.opened, 1):.2f} ms"
        " of the clients' a socket)"
    )
    print(f"{'server':>6} {'RSS before':>10} {'RSS open':>9} {'VmHWM':>7} {'cores idle':>10}")
    for number, cores in enumerate(each):
        before, after = figures.rss_before[number], figures.rss_after[number]
        print(
            f"{number:>6} {before:>7.0f} MB {after:>6.0f} MB"
            f" {figures.peak_rss[number]:>4.0f} MB {cores:>10.4f}"
        )
    added = sum(figures.rss_after) - sum(figures.rss_before)
    print(
        f"total: {sum(each):.4f} cores over {seconds:.0f} s idle; {added:.0f} MB more resident"
        f" with the sockets open ({added * 1024 / max(figures.opened, 1):.0f} KB a socket);"
        f" clients {clients:.3f}, rest of the machine {rest:.3f} cores\n"
        f"(cores idle: {kind}'s CPU from 2 s after the last socket opened, {seconds:.0f} s;"
        " target: at most 0.05 for 1,000 sockets on one process)"
    )
    report_errors(figures.errors, "")


# --- the report -------------------------------------------------------------------------


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def report_delivery(rounds: list[Round]) -> None:
    print(
        f"{'clients':>7} {'chunks got/expected':>20} {'dropped':>7} {'repeated':>8}"
        f" {'frames':>7} {'errors':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}"
    )
    for figures in rounds:
        received = sum(figures.seen.values())
        dropped = figures.expected - len(figures.seen)
        repeated = received - len(figures.seen)
        lat = figures.latencies
        print(
            f"{figures.clients:>7} {f'{received:,}/{figures.expected:,}':>20} {dropped:>7}"
            f" {repeated:>8} {figures.frames:>7,} {len(figures.errors):>6}"
            f" {percentile(lat, 0.5):>8.1f} {percentile(lat, 0.99):>8.1f} {max(lat or [0]):>8.1f}"
        )
    print(
        "(latency: the fake writing a chunk -> the client receiving the frame with it;"
        " frames: every frame of the turns)\n"
        "targets: p99 <= 25 ms at 50 clients x 5 ms on one process and <= 100 ms at 200 x 20 ms"
        " on two; no errors, nothing dropped or repeated\n"
    )


def joined(values: list[float], form: str) -> str:
    """Each server's figure, then their total when there are several."""
    each = "+".join(format(value, form) for value in values)
    return each if len(values) == 1 else f"{each}={format(sum(values), form)}"


def report_load(rounds: list[Round], scripted: float, kind: str) -> None:
    print(
        f"{'clients':>7} {'chunks/s sent':>13} {'start s':>8} {'turn s p50/max':>15}"
        f" {'cores servers':>16} {'fake/clients/rest':>18} {'µs/chunk':>8} {'VmHWM MB':>12}"
    )
    for figures in rounds:
        first, last = min(figures.stamps or [0]), max(figures.stamps or [0])
        rate = len(figures.stamps) / max((last - first) / 1e9, 1e-9)
        start = (first - min(figures.sent or [first])) / 1e9
        turns = f"{statistics.median(figures.turns or [0]):.2f}/{max(figures.turns or [0]):.2f}"
        cores = figures.cpu_while_streaming() or ([float("nan")], *(float("nan"),) * 3)
        each, others = cores[0], " / ".join(f"{share:.2f}" for share in cores[1:])
        per_chunk = sum(each) * (figures.arrived - first) / 1e3 / max(len(figures.stamps), 1)
        print(
            f"{figures.clients:>7} {rate:>13,.0f} {start:>8.2f} {turns:>15}"
            f" {joined(each, '.2f'):>16} {others:>18} {per_chunk:>8,.0f}"
            f" {joined(figures.peak_rss, '.0f'):>12}"
        )
    print(
        "(chunks/s sent: by the fake, all streams, first chunk to last; start: the messages"
        " sent -> the streams began, i.e. every turn had asked the model;\n turn: message"
        f" sent -> footer, the stream alone is {scripted:g} s; cores: CPU used from the first"
        f" chunk sent to the last received, by each {kind} process (and their total), the fake,"
        " the clients and the rest of the machine (other processes, Redis and PostgreSQL,"
        f" and kernel work such as loopback networking; {os.cpu_count()} cores);\n µs/chunk:"
        f" the servers' CPU meanwhile per chunk; VmHWM: each {kind}'s peak RSS since it started)"
    )
    for figures in rounds:
        report_errors(figures.errors, f"{figures.clients} clients: ")


def report_errors(errors: list[str], prefix: str) -> None:
    """The commonest errors, once each with how often they came."""
    counted = Counter(errors).most_common()
    for error, times in counted[:5]:
        print(f"  {prefix}{times} x {error}")
    if len(counted) > 5:
        print(f"  {prefix}... and {sum(times for _, times in counted[5:])} more errors")


# --- the run ------------------------------------------------------------------------------


def shared_start() -> None:
    """A fresh database and Redis db for the processes to share (N > 1), migrated."""
    if ARGS.processes > 1:
        servers.database_create(BENCH_DATABASE)
        servers.redis_flush(ARGS.redis_url)
    call_command("migrate", verbosity=0)


def shared_end() -> None:
    connections.close_all()
    if ARGS.processes > 1:
        servers.database_drop(BENCH_DATABASE)
        servers.redis_flush(ARGS.redis_url)


def describe(args: argparse.Namespace, data_dir: Path) -> str:
    if args.processes > 1:
        where = f"{args.processes} {args.server}s, Redis ({args.redis_url}), PostgreSQL"
    else:
        where = f"one {args.server}, in-memory channel layer, SQLite in {data_dir}"
    if args.idle:
        return f"{args.idle} idle HTML sockets for {args.idle_seconds:g} s; {where}\n"
    return (
        f"{args.chunks} chunks per turn, {args.pace_ms:g} ms apart; {where}; {args.format}"
        " frames; one untimed turn per server first\n"
    )


def run(args: argparse.Namespace, fake: int, fake_port: int, expected: Any, data_dir: Path) -> None:
    user = User.objects.create_user("bench", password="bench-password-1")
    counts = [args.idle] if args.idle else [args.processes, *map(int, args.clients.split(","))]
    groups = project_groups(user, counts)
    cookie = session_cookie(user)
    connections.close_all()
    started: list[servers.Server] = []
    try:
        for number in range(args.processes):
            log = data_dir / f"{args.server}-{number}.log"
            started.append(servers.start(args.server, ROOT, fake_port, log))
        print(describe(args, data_dir))
        bench = Bench(started, fake, expected, cookie)
        if args.idle:
            report_idle(asyncio.run(sit_idle(groups[0], bench, args.idle_seconds)), args.server)
            return
        rounds = asyncio.run(measure(groups, bench, args.chunks, args.format == "json"))
    finally:
        for server in started:
            servers.stop(server)
    report_delivery(rounds[1:])
    report_load(rounds[1:], args.chunks * args.pace_ms / 1000, args.server)


def main() -> None:
    data_dir = Path(os.environ["BUILTIT_DATA_DIR"])
    forking = multiprocessing.get_context("fork")
    ports, stop, expected = forking.Queue(), forking.Event(), forking.Value("i", 0)
    fake = forking.Process(
        target=serve, args=(ARGS.chunks, ARGS.pace_ms / 1000, expected, ports, stop)
    )
    fake.start()
    try:
        fake_port = ports.get(timeout=30)
        assert fake.pid is not None
        shared_start()
        run(ARGS, fake.pid, fake_port, expected, data_dir)
    finally:
        stop.set()
        fake.join(10)
        if fake.is_alive():
            fake.terminate()
        shared_end()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
