"""The servers bench/ws_fanout.py measures: N ASGI processes (daphne or uvicorn)
on ports of their own, and what they share when N > 1 (a fresh PostgreSQL
database and a Redis db of the bench's own). Also how their CPU and memory are
read. Nothing here imports Django: ws_fanout sets the environment first."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import psycopg
import redis
from psycopg import sql

Kind = Literal["daphne", "uvicorn"]
# uvicorn is not one of our dependencies: installed apart (pip --target) to compare.
UVICORN_PATH = os.environ.get("BENCH_UVICORN_PATH", "/tmp/bench-uvicorn")  # noqa: S108
POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
START_LIMIT = 30.0  # seconds for a server to answer


@dataclass
class Server:
    kind: Kind
    port: int
    log: Path
    process: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def base(self) -> str:
        return f"127.0.0.1:{self.port}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def command(kind: Kind, root: Path, port: int) -> list[str]:
    if kind == "daphne":
        # As the guide's production command runs it (docs/production.md).
        return [
            *(str(root / ".venv/bin/daphne"), "--ping-interval", "50"),
            *("-b", "127.0.0.1", "-p", str(port)),
        ]
    # The same websockets library as our clients; no access log, as daphne at WARNING.
    return [
        *(str(root / ".venv/bin/python"), "-m", "uvicorn", "--host", "127.0.0.1"),
        *("--port", str(port), "--ws", "websockets", "--log-level", "warning"),
        "--no-access-log",
    ]


def server_env(kind: Kind, fake_port: int) -> dict[str, str]:
    env = {
        **os.environ,
        "OPENROUTER_BASE_URL": f"http://127.0.0.1:{fake_port}/api/v1",
        "OPENROUTER_API_KEY": "sk-bench",
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        # Every client of the bench comes from 127.0.0.1: no bound per address.
        "BUILTIT_MAX_SOCKETS_PER_ADDRESS": "0",
    }
    if kind == "uvicorn":
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), UVICORN_PATH]))
    return env


def start(kind: Kind, root: Path, fake_port: int, log: Path) -> Server:
    return daphne_start(log, root=root, kind=kind, env=server_env(kind, fake_port))


def daphne_start(
    log: Path,
    *,
    root: Path,
    ready_path: str = "",
    host: str = "127.0.0.1",
    env: dict[str, str] | None = None,
    kind: Kind = "daphne",
    access_log: bool = True,
) -> Server:
    """The server (daphne as in production, or uvicorn to compare) on a free
    port, its output in `log` (without its access log when `access_log` is
    off: it is thrown away, as production's stdout would be). Ready once it
    listens, or, with `ready_path`, once that path answers 200 for `host`
    (listening is not enough when the first request loads the URLconf and
    views); the bench stops with the log's end otherwise."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(  # noqa: S603 (our own virtualenv's server)
            [*command(kind, root, port), "builtit.asgi:application"],
            cwd=root,
            env=os.environ.copy() if env is None else env,
            stdout=out if access_log else subprocess.DEVNULL,
            stderr=out,
        )
    server = Server(kind, port, log, process)
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline and process.poll() is None:
        answered = _answer(port, ready_path, host)
        if answered is None:
            time.sleep(0.1)
        elif answered == 200:
            return server
        else:
            break
    stop(server)
    raise SystemExit(f"{kind} did not start:\n{log.read_text(errors='replace')[-3000:]}")


def _answer(port: int, path: str, host: str) -> int | None:
    """The status `path` answers with (200 for listening alone, without a
    path), or None while nothing listens."""
    try:
        if not path:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return 200
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=START_LIMIT)
        try:
            connection.request("GET", path, headers={"Host": host})
            return connection.getresponse().status
        finally:
            connection.close()
    except (OSError, http.client.HTTPException):
        return None


def stop(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


# --- what N > 1 processes share ------------------------------------------------------


def database_url(name: str) -> str:
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def database_create(name: str) -> None:
    """A fresh, empty database (one left by a killed run is dropped first)."""
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def database_drop(name: str) -> None:
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def redis_flush(url: str) -> None:
    """Empty the bench's own Redis db (the number in `url`), never any other."""
    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


# --- what a process uses ---------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy() -> float:
    """CPU seconds all processes have used since boot, every core together."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    idle = int(fields[3]) + int(fields[4])  # idle, iowait
    return (sum(int(value) for value in fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int, field: Literal["VmHWM", "VmRSS"] = "VmHWM") -> float:
    """Peak (VmHWM) or current (VmRSS) resident memory of a process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")
