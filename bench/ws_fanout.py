"""Streamed text through one daphne process to many chat sockets at once.

Not a test: prints figures. Run with `.venv/bin/python bench/ws_fanout.py`
(`--clients 1,50,200`, `--pace-ms 5`, `--chunks 200`, `--format html|json`).

One daphne, as deployed without REDIS_URL (the in-memory channel layer), on a
temporary SQLite database, serves N websocket clients (N = 1, 50, 200), each
signed in as the owner of its own project and each running one turn. A small
fake OpenRouter in a forked process answers every model request with CHUNKS
content chunks PACE apart; each chunk's text carries a marker `⟦seq:ns⟧`, ns
being the fake's `time.monotonic_ns()` as it writes the chunk. The fake holds
a round's streams until all N turns have asked, so N streams really run at
once (how long the turns took to start is shown apart). The clients (one
asyncio process, this one, with `websockets`) note `time.monotonic_ns()` as
each frame arrives and read the frames only after the turn, so their work per
frame is a clock read and an append. CLOCK_MONOTONIC is system-wide, so the
difference is what daphne adds: reading and parsing the stream, the loop, the
channel layer, rendering and the socket.

Per N it prints that added latency over every chunk of every client (p50, p99,
max); chunks received against expected (each chunk's text must arrive exactly
once in the streamed fragments; several chunks may share a frame, so frames
are counted apart); errors (a socket refused or closed, a turn that did not
complete, an error shown, a traceback in daphne's log); the rate the fake sent
at; how long the turns took to start and to finish; the CPU used while the
chunks streamed, by each process and by the rest of the machine (other
processes skew every figure: run it on an idle machine); and daphne's peak RSS
(VmHWM, so it only grows from one N to the next). One untimed turn runs first.

Targets on the 2-core machine: p99 added latency at most 25 ms with 50 clients
and 100 ms with 200; no errors; no dropped or repeated chunks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ["BUILTIT_HTTPS"] = "0"
os.environ.pop("REDIS_URL", None)  # the in-memory channel layer, in daphne too
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
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django.db import connections
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException
from websockets.typing import Origin

from projects.lifecycle import project_create
from projects.models import Project

PROMPT = "Tell me about the bakery's opening hours."
TURN_TIMEOUT = 300.0  # seconds from sending the message to the turn's footer
GATE_WAIT = 120.0  # seconds the fake holds a round's streams for turns that never ask
OPENING = 32  # sockets being opened at once (daphne's listen backlog is 50)

MARKER = re.compile(r"⟦(\d+):(\d+)⟧")
# Streamed answer text: the block's first piece, then each piece appended to it.
# The rendered block that replaces it at the end is left out.
STREAMED = re.compile(
    r'(?:class="answer streaming" id="t\d+-b\d+"|hx-swap-oob="beforeend:#t\d+-b\d+")>([^<]*)'
)
FOOTER_END = re.compile(r'class="turn-footer (?!running)(\w+)"')
# When, then CPU seconds so far of daphne, the fake, this process and the whole machine.
Sample = tuple[int, float, float, float, float]


# --- the fake OpenRouter (a forked process) -------------------------------------------


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


# --- the server under test --------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_daphne(port: int, fake_port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "OPENROUTER_BASE_URL": f"http://127.0.0.1:{fake_port}/api/v1",
        "OPENROUTER_API_KEY": "sk-bench",
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
    }
    command = [str(ROOT / ".venv/bin/daphne"), "-b", "127.0.0.1", "-p", str(port)]
    with log.open("wb") as out:
        daphne = subprocess.Popen(  # noqa: S603 (our own virtualenv's daphne)
            [*command, "builtit.asgi:application"], cwd=ROOT, env=env, stdout=out, stderr=out
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and daphne.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            time.sleep(0.1)
        else:
            return daphne
    daphne.kill()
    raise SystemExit(f"daphne did not start:\n{log.read_text()[-3000:]}")


def stop_daphne(daphne: subprocess.Popen[bytes]) -> None:
    daphne.terminate()
    try:
        daphne.wait(timeout=10)
    except subprocess.TimeoutExpired:
        daphne.kill()
        daphne.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy() -> float:
    """CPU seconds all processes have used since boot, every core together."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    idle = int(fields[3]) + int(fields[4])  # idle, iowait
    return (sum(int(value) for value in fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def session_cookie(user: User) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


def project_groups(user: User, counts: list[int]) -> list[list[uuid.UUID]]:
    """Fresh projects for each round, one per client; the first round is the untimed turn."""
    groups = []
    for count in [1, *counts]:
        made = [project_create(owner=user, name=f"Bakery {number}") for number in range(count)]
        groups.append([project.pk for project in made if isinstance(project, Project)])
    return groups


# --- the clients ------------------------------------------------------------------------


@dataclass
class Tab:
    """One client: every frame of its turn, with when it arrived."""

    url: str
    frames: list[tuple[int, str | bytes]] = field(default_factory=list)
    sent: int = 0
    ended: int = 0
    error: str | None = None


async def open_tab(
    tab: Tab, cookie: str, origin: str, gate: asyncio.Semaphore, as_json: bool
) -> ClientConnection:
    async with gate:
        socket_ = await connect(
            tab.url,
            origin=Origin(origin),
            additional_headers={"Cookie": cookie},
            proxy=None,
            max_size=None,
            ping_interval=None,
            open_timeout=60,
        )
        if not as_json:
            await asyncio.wait_for(socket_.recv(), 30)  # the snapshot (HTML only)
        return socket_


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


async def run_round(urls: list[str], cookie: str, origin: str, as_json: bool) -> list[Tab]:
    """Every tab opens its socket, then all send their message at once."""
    tabs = [Tab(url) for url in urls]
    gate = asyncio.Semaphore(OPENING)
    opened = await asyncio.gather(
        *(open_tab(tab, cookie, origin, gate, as_json) for tab in tabs), return_exceptions=True
    )
    live: list[tuple[ClientConnection, Tab]] = []
    for tab, result in zip(tabs, opened, strict=True):
        if isinstance(result, BaseException):
            tab.error = f"could not open the socket: {result!r}"
        else:
            live.append((result, tab))
    ended = json_ended if as_json else html_ended
    await asyncio.gather(*(follow(socket_, tab, ended) for socket_, tab in live))
    await asyncio.gather(*(socket_.close() for socket_, _ in live))
    return tabs


async def sample_cpu(pids: tuple[int, int], samples: list[Sample]) -> None:
    """CPU seconds of daphne, the fake, this process and the whole machine, ten
    times a second: anything else running on the machine skews every figure."""
    while True:
        daphne, fake = (cpu_seconds(pid) for pid in pids)
        samples.append((time.monotonic_ns(), daphne, fake, time.process_time(), machine_busy()))
        await asyncio.sleep(0.1)


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
    peak_rss: float = 0.0

    def cpu_while_streaming(self) -> tuple[float, float, float, float]:
        """Cores used by daphne, the fake, the clients and the rest of the machine,
        from the first chunk sent to the last received."""
        start, end = min(self.stamps or [0]), self.arrived
        inside = [sample for sample in self.samples if start <= sample[0] <= end]
        if len(inside) < 2:
            return (float("nan"),) * 4
        first, last = inside[0], inside[-1]
        seconds = (last[0] - first[0]) / 1e9
        daphne, fake, clients, machine = ((last[i] - first[i]) / seconds for i in (1, 2, 3, 4))
        return daphne, fake, clients, machine - daphne - fake - clients


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
            figures.seen[number, seq] += 1
            figures.latencies.append((arrived - stamp) / 1e6)
            figures.stamps.append(stamp)
            figures.arrived = max(figures.arrived, arrived)


def tracebacks(log: Path, offset: int) -> tuple[list[str], int]:
    """Tracebacks daphne logged since `offset`, and the new offset."""
    text = log.read_text(errors="replace")
    found = [f"daphne: {part[:300]}" for part in text[offset:].split("Traceback")[1:]]
    return found, len(text)


@dataclass
class Servers:
    base: str  # host:port of daphne
    cookie: str
    daphne: int  # pids
    fake: int
    expected: Any  # the fake's multiprocessing.Value: streams asked for so far, all rounds
    log: Path


async def measure(
    groups: list[list[uuid.UUID]], servers: Servers, chunks: int, as_json: bool
) -> list[Round]:
    rounds, offset = [], 0
    query = "?format=json" if as_json else ""
    for projects in groups:
        urls = [f"ws://{servers.base}/ws/projects/{project}/chat/{query}" for project in projects]
        figures = Round(len(projects), len(projects) * chunks)
        servers.expected.value += len(projects)
        sampler = asyncio.create_task(sample_cpu((servers.daphne, servers.fake), figures.samples))
        tabs = await run_round(urls, servers.cookie, f"http://{servers.base}", as_json)
        sampler.cancel()
        figures.peak_rss = peak_rss_mb(servers.daphne)
        for number, tab in enumerate(tabs):
            add_tab(figures, number, tab, as_json)
        logged, offset = tracebacks(servers.log, offset)
        figures.errors += logged
        rounds.append(figures)
        await asyncio.sleep(1)  # the turns release their locks; daphne settles
    return rounds


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
        "targets: p99 <= 25 ms at 50 clients and <= 100 ms at 200; no errors, nothing dropped"
        " or repeated\n"
    )


def report_load(rounds: list[Round], scripted: float) -> None:
    print(
        f"{'clients':>7} {'chunks/s sent':>13} {'start s':>8} {'turn s p50/max':>15}"
        f" {'cores daphne/fake/clients/others':>32} {'daphne µs/chunk':>15} {'VmHWM':>7}"
    )
    for figures in rounds:
        first, last = min(figures.stamps or [0]), max(figures.stamps or [0])
        rate = len(figures.stamps) / max((last - first) / 1e9, 1e-9)
        start = (first - min(figures.sent or [first])) / 1e9
        turns = f"{statistics.median(figures.turns or [0]):.2f}/{max(figures.turns or [0]):.2f}"
        cores = figures.cpu_while_streaming()
        per_chunk = cores[0] * (figures.arrived - first) / 1e3 / max(len(figures.stamps), 1)
        print(
            f"{figures.clients:>7} {rate:>13,.0f} {start:>8.2f} {turns:>15}"
            f" {' / '.join(f'{share:.2f}' for share in cores):>32} {per_chunk:>15,.0f}"
            f" {f'{figures.peak_rss:.0f} MB':>7}"
        )
    print(
        "(chunks/s sent: by the fake, all streams, first chunk to last; start: the messages"
        " sent -> the streams began, i.e. every turn had asked the model;\n turn: message"
        f" sent -> footer, the stream alone is {scripted:g} s; cores: CPU used from the first"
        " chunk sent to the last received, by each process and by the rest of the machine"
        f" (other processes, and kernel work such as loopback networking; {os.cpu_count()}"
        " cores);\n daphne µs/chunk: its CPU meanwhile per chunk;"
        " VmHWM: daphne's peak RSS since it started)"
    )
    for figures in rounds:
        for error in figures.errors[:5]:
            print(f"  {figures.clients} clients: {error}")
        if len(figures.errors) > 5:
            print(f"  {figures.clients} clients: ... and {len(figures.errors) - 5} more errors")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="1,50,200", help="comma-separated counts")
    parser.add_argument("--pace-ms", type=float, default=5.0, help="between two chunks")
    parser.add_argument("--chunks", type=int, default=200, help="content chunks per turn")
    parser.add_argument("--format", choices=("html", "json"), default="html")
    return parser.parse_args()


def main() -> None:
    args = arguments()
    counts = [int(count) for count in args.clients.split(",")]
    data_dir = Path(os.environ["BUILTIT_DATA_DIR"])
    forking = multiprocessing.get_context("fork")
    ports, stop, expected = forking.Queue(), forking.Event(), forking.Value("i", 0)
    fake = forking.Process(
        target=serve, args=(args.chunks, args.pace_ms / 1000, expected, ports, stop)
    )
    fake.start()
    daphne: subprocess.Popen[bytes] | None = None
    try:
        fake_port = ports.get(timeout=30)
        assert fake.pid is not None
        call_command("migrate", verbosity=0)
        user = User.objects.create_user("bench", password="bench-password-1")
        groups = project_groups(user, counts)
        cookie = session_cookie(user)
        connections.close_all()
        port, log = free_port(), data_dir / "daphne.log"
        daphne = start_daphne(port, fake_port, log)
        print(
            f"{args.chunks} chunks per turn, {args.pace_ms:g} ms apart; one daphne, in-memory"
            f" channel layer, SQLite in {data_dir}; {args.format} frames; one untimed turn first\n"
        )
        servers = Servers(f"127.0.0.1:{port}", cookie, daphne.pid, fake.pid, expected, log)
        rounds = asyncio.run(measure(groups, servers, args.chunks, args.format == "json"))
    finally:
        if daphne is not None:
            stop_daphne(daphne)
        stop.set()
        fake.join(10)
        if fake.is_alive():
            fake.terminate()
        shutil.rmtree(data_dir, ignore_errors=True)
    report_delivery(rounds[1:])
    report_load(rounds[1:], args.chunks * args.pace_ms / 1000)


if __name__ == "__main__":
    main()
