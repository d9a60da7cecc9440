"""Request bodies over their route's limit are refused by the server before
they are read (issue 13, finding 3), against daphne started as a process on the
real ASGI application, over raw sockets: the body is never sent, or only part."""

from __future__ import annotations

import os
import queue
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from django.conf import settings

from builtit.bodylimit import body_limit

ROOT = Path(__file__).resolve().parents[2]
START_LIMIT = 60.0


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-v",
            "1",
            "-e",
            "tcp:port=0:interface=127.0.0.1",
            "builtit.asgi:application",
        ],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield "127.0.0.1", _port(process)
    finally:
        process.terminate()
        process.wait(timeout=10)


def _port(process: subprocess.Popen[str]) -> int:
    """The port daphne says it listens on. Its stderr is read by a thread, line
    by line, to the end: select() on the pipe beside a buffered readline() missed
    a line that arrived in the same read as the one before it, and waited for
    more that never came (the server, listening, says nothing more); and an
    undrained pipe would fill and block the server."""
    assert process.stderr is not None
    lines: queue.Queue[str] = queue.Queue()

    def drain(stream: IO[str]) -> None:
        for line in stream:
            lines.put(line)
        lines.put("")  # the end: daphne exited

    threading.Thread(target=drain, args=(process.stderr,), daemon=True).start()
    seen: list[str] = []
    while True:
        try:
            line = lines.get(timeout=START_LIMIT)
        except queue.Empty:
            line = ""
        if not line:
            raise RuntimeError("daphne did not start: " + "".join(seen))
        seen.append(line)
        found = re.search(r"Listening on TCP address 127\.0\.0\.1:(\d+)", line)
        if found:
            return int(found.group(1))


def exchange(address: tuple[str, int], head: bytes, body: bytes = b"") -> bytes:
    """Send `head` (and `body`), then read what the server answers."""
    with socket.create_connection(address, timeout=30) as connection:
        connection.sendall(head + body)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and answer.startswith(b"HTTP/1.1 413"):
                break
        return answer


def post_head(path: str, *, length: int | None = None, chunked: bool = False) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_huge_declared_body_to_the_login_page_is_refused_before_it_is_sent(server) -> None:
    answer = exchange(server, post_head("/accounts/login/", length=1000 * 2**20))
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"accepts at most 64 KB" in answer


def test_a_chunked_body_is_cut_at_the_limit(server) -> None:
    piece = b"x" * 32 * 1024
    chunks = b"".join(b"%X\r\n%s\r\n" % (len(piece), piece) for _ in range(4))
    answer = exchange(server, post_head("/accounts/login/", chunked=True), chunks)
    assert answer.startswith(b"HTTP/1.1 413")


def test_an_import_over_its_limit_is_refused_before_it_is_sent(server) -> None:
    answer = exchange(server, post_head("/projects/import/", length=200 * 2**20))
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"accepts at most 20.1 MB" in answer


def test_a_body_within_the_limit_reaches_the_application(server) -> None:
    body = b"username=ada&password=x"
    answer = exchange(server, post_head("/accounts/login/", length=len(body)), body)
    # Django answers (here: the CSRF check), not the server's bound.
    assert answer.startswith(b"HTTP/1.1 403")


def test_each_route_has_the_limit_of_what_it_takes() -> None:
    assert body_limit(b"/accounts/login/?next=/") == settings.BUILTIT_MAX_FORM_BYTES
    assert body_limit(b"/projects/import/") > settings.BUILTIT_MAX_IMPORT_BYTES
    save = b"/projects/0b4e8f1c-0000-4000-8000-000000000000/files/save/"
    assert body_limit(save) == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert body_limit(b"/admin/projects/projectfile/1/change/") == (
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    )
