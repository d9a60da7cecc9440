"""Server memory under hostile request bodies: the `bodies` part of
bench/hostile_memory.py, which sets Django up first
(`.venv/bin/python bench/hostile_memory.py bodies`).

Each case starts daphne as production runs it (`daphne builtit.asgi:application`)
on the bench's fresh SQLite database, warms it up, then sends bodies over raw
sockets, generated on the fly, and reads the server's own memory from /proc:
its RSS before, its peak (VmHWM, reset through /proc/<pid>/clear_refs just
before the case) and its RSS a few seconds after the last answer.

- One 1,000 MiB POST to the sign-in page and one 200 MiB import, anonymous.
- Ten parallel 20 MiB imports, anonymous (the issue's figure: 105 to 456 MB,
  never given back), then signed in. The upload imports: a ZIP of 4 MiB of
  pages behind 16 MiB of leading bytes, which ZIP readers skip as they skip a
  self-extractor's stub (a project holds at most 10 MiB, so a 20 MiB upload
  that imports needs them). Then the same uploads with the ZIP's end record
  gone, refused as unreadable once parsed: what the body itself costs,
  without the import's work.
- What the sign-in check costs: the time to the 413 for a 20 MiB import
  declared with a made-up session cookie (checked in the database) and with
  none (refused from the headers alone).

A watchdog kills the server past WATCHDOG_BYTES of growth (the code before
issue 13 held whole bodies until memory ran out) and says so.
"""

from __future__ import annotations

import io
import os
import queue
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO

from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

ROOT = Path(__file__).resolve().parents[1]
MB = 2**20
WATCHDOG_BYTES = 1500 * MB
SETTLE = 3.0  # seconds after the last answer before the RSS "after"
CSRF = "b" * 32
BOUNDARY = "bench-boundary"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"


def status(pid: int, field: str) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def start_daphne() -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "--ping-interval",
            "50",
            "-v",
            "1",
            "-e",
            "tcp:port=0:interface=127.0.0.1",
            "builtit.asgi:application",
        ],
        cwd=ROOT,
        env={**os.environ},
        stdout=subprocess.DEVNULL,  # its access log
        stderr=subprocess.PIPE,
        text=True,
    )
    # Read by a thread to the end (tests/builtit/server/test_body_limits.py says why:
    # select() beside a buffered readline() misses lines), which also keeps
    # the pipe from filling.
    lines: queue.Queue[str] = queue.Queue()

    def drain(stream: IO[str]) -> None:
        for line in stream:
            lines.put(line)
        lines.put("")

    threading.Thread(target=drain, args=(process.stderr,), daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=60)
        except queue.Empty:
            line = ""
        if not line:
            process.kill()
            raise RuntimeError("daphne did not start")
        if found := re.search(r"Listening on TCP address 127\.0\.0\.1:(\d+)", line):
            return process, int(found.group(1))


def head(path: str, size: int, content_type: str, session: str | None = None) -> bytes:
    lines = [
        f"POST {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Content-Type: {content_type}",
        f"Content-Length: {size}",
        "Connection: close",
    ]
    if session is not None:
        lines += [f"Cookie: csrftoken={CSRF}; sessionid={session}", f"X-CSRFToken: {CSRF}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def send(port: int, start: bytes, body: Callable[[], bytes | None]) -> str:
    """Send `start`, then the pieces `body` gives until None; the status line back."""
    with socket.create_connection(("127.0.0.1", port), timeout=300) as connection:
        try:
            connection.sendall(start)
            while (piece := body()) is not None:
                connection.sendall(piece)
        except OSError:
            pass  # the server closed: refused before the rest was read
        answer = b""
        try:
            while chunk := connection.recv(65536):
                answer += chunk
        except OSError:
            pass
    return answer.split(b"\r\n", 1)[0].decode(errors="replace") or "(connection closed)"


def filler(size: int) -> Callable[[], bytes | None]:
    piece = b"x" * MB
    left = [size]

    def next_piece() -> bytes | None:
        if left[0] <= 0:
            return None
        count = min(MB, left[0])
        left[0] -= count
        return piece[:count]

    return next_piece


def once(data: bytes) -> Callable[[], bytes | None]:
    pieces = [data[at : at + MB] for at in range(0, len(data), MB)]
    return lambda: pieces.pop(0) if pieces else None


def padded_import(size: int) -> bytes:
    """A multipart body of `size` bytes holding a ZIP that imports: 4 MiB of pages."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as writing:
        for number in range(16):
            page = f"<h1>Page {number}</h1>" + os.urandom(128 * 1024).hex()
            writing.writestr(f"page{number}.html", page)
    start = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="archive"; filename="big.zip"\r\n'
        "Content-Type: application/zip\r\n\r\n"
    ).encode()
    end = f"\r\n--{BOUNDARY}--\r\n".encode()
    stub = size - len(start) - len(end) - len(archive.getvalue())
    return start + os.urandom(stub) + archive.getvalue() + end


class Watched:
    """A server whose memory is watched, and killed past the watchdog."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.process, self.port = start_daphne()
        self.killed = threading.Event()
        self.base = 0

    def start(self) -> None:
        Path(f"/proc/{self.process.pid}/clear_refs").write_text("5")  # peak := now
        self.base = status(self.process.pid, "VmRSS")
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while self.process.poll() is None:
            if status(self.process.pid, "VmRSS") - self.base > WATCHDOG_BYTES:
                self.killed.set()
                self.process.kill()
            time.sleep(0.05)

    def report(self, outcome: str) -> None:
        if self.killed.is_set():
            print(f"  {self.name:44} > {WATCHDOG_BYTES / MB:.0f} MB: server killed", flush=True)
            return
        time.sleep(SETTLE)
        peak, after = status(self.process.pid, "VmHWM"), status(self.process.pid, "VmRSS")
        figures = (
            f"{self.base / MB:6.1f} → peak {peak / MB:6.1f} → after {after / MB:6.1f} MB "
            f"({(after - self.base) / MB:+.1f})"
        )
        print(f"  {self.name:44} {figures}  {outcome}", flush=True)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def single(name: str, path: str, size: int, kind: str) -> None:
    server = Watched(name)
    try:
        send(server.port, b"GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", once(b""))
        server.start()
        server.report(send(server.port, head(path, size, kind), filler(size)))
    finally:
        server.stop()


def parallel(name: str, count: int, one: Callable[[int], str], warm: Callable[[int], str]) -> None:
    server = Watched(name)
    try:
        warm(server.port)
        server.start()
        with ThreadPoolExecutor(count) as pool:
            answers = list(pool.map(lambda _: one(server.port), range(count)))
        tally = ", ".join(f"{answers.count(a)}: {a}" for a in sorted(set(answers)))
        server.report(tally)
    finally:
        server.stop()


def signed_in_session() -> str:
    user = User.objects.create_user("bench-bodies", password="x" * 12)
    client = Client()
    client.force_login(user)
    return str(client.cookies["sessionid"].value)


def time_to_answer(port: int, start: bytes, rounds: int) -> float:
    """The median time from sending a head to reading the answer, in ms."""
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        send(port, start, once(b""))
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


def check_cost() -> None:
    process, port = start_daphne()
    try:
        made_up = head("/projects/import/", 20 * MB, MULTIPART, session="a" * 32)
        none = head("/projects/import/", 20 * MB, MULTIPART)
        time_to_answer(port, made_up, 20)  # the pool's threads and connections open
        rounds = 200
        with_cookie = time_to_answer(port, made_up, rounds)
        without = time_to_answer(port, none, rounds)
        print(
            f"  {'the sign-in check (median of ' + str(rounds) + ')':44} "
            f"made-up cookie {with_cookie:.2f} ms, no cookie {without:.2f} ms to the answer",
            flush=True,
        )
    finally:
        process.terminate()
        process.wait(30)


def bodies() -> None:
    call_command("migrate", verbosity=0)
    session = signed_in_session()
    upload = padded_import(20 * MB)
    # Its end record gone: refused as "not a readable ZIP" as soon as the upload
    # is parsed, so what is left is what the body itself costs.
    broken = upload[:-200] + bytes(200)
    form = "application/x-www-form-urlencoded"
    print("Request bodies (daphne's RSS before, at its peak and after; what it answered):")
    single("1,000 MiB POST to /accounts/login/", "/accounts/login/", 1000 * MB, form)
    single("200 MiB ZIP import, anonymous", "/projects/import/", 200 * MB, MULTIPART)

    def anonymous(port: int) -> str:
        return send(port, head("/projects/import/", len(upload), MULTIPART), once(upload))

    def warm_anonymous(port: int) -> str:
        return send(port, head("/accounts/login/", 10, form), once(b"x" * 10))

    def signed(port: int) -> str:
        return send(port, head("/projects/import/", len(upload), MULTIPART, session), once(upload))

    def unreadable(port: int) -> str:
        return send(port, head("/projects/import/", len(broken), MULTIPART, session), once(broken))

    parallel("ten parallel anonymous 20 MiB imports", 10, anonymous, warm_anonymous)
    parallel("ten parallel signed-in 20 MiB imports", 10, signed, signed)
    parallel("the same, signed in, the ZIP unreadable", 10, unreadable, unreadable)
    if "--no-check-cost" not in sys.argv:
        check_cost()
