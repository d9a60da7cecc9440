"""Real server processes for tests: daphne on the real ASGI application, as
`daphne builtit.asgi:application` serves it, against the test database.

pytest-django's live_server is WSGI: no websockets. A server here is a fresh
interpreter, not a fork: by the time it starts, this process holds thread pools
(common.threads, asgiref), channel layers and event loops that a forked
child would inherit without their threads, and hang on. It runs with daphne's
own signal handling, so SIGTERM is a real shutdown (builtit.server.shutdown) and
SIGKILL a real crash.
"""

from __future__ import annotations

import json
import os
import queue
import re
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from django.conf import settings
from django.db import connections

ROOT = Path(__file__).resolve().parents[1]
START_LIMIT = 30.0  # seconds
STOP_LIMIT = 60.0  # seconds: a SIGTERM's grace period and the drain after it

_SETTINGS = "BUILTIT_TEST_SERVER_SETTINGS"
_SERVE = f"""
import json, os
import django
django.setup()
from django.conf import settings
given = json.loads(os.environ.pop({_SETTINGS!r}))
settings.DATABASES["default"]["NAME"] = given.pop("database")
for name, value in given.items():
    setattr(settings, name, value)
from daphne.server import Server  # installs the asyncio reactor: first
from daphne.endpoints import build_endpoint_description_strings
from twisted.internet import reactor
from channels.routing import get_default_application
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
server = Server(
    ASGIStaticFilesHandler(get_default_application()),
    endpoints=build_endpoint_description_strings(host="127.0.0.1", port=0),
    ping_interval=50,  # as the guide's command line (--ping-interval 50)
)
def announce():
    if not server.listening_addresses:
        reactor.callLater(0.05, announce)
        return
    print(server.listening_addresses[0][1], flush=True)
reactor.callLater(0, announce)
server.run()
"""


def sites_url_of(url: str) -> str:
    """The sites origin of the app served at `url` on this machine (common.sites):
    sites.localhost on the same port; browsers resolve every *.localhost name
    to this machine."""
    scheme, _, rest = url.partition("://")
    port = rest.rsplit(":", 1)[1].rstrip("/")
    return f"{scheme}://sites.localhost:{port}"


@dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    port: int
    log: Path | None  # its stderr, when kept

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def sites_url(self) -> str:
        return sites_url_of(self.url)

    def terminate(self) -> int:
        """SIGTERM, as a deploy sends it; waits for the exit and returns its status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=STOP_LIMIT)

    def kill(self) -> None:
        """SIGKILL: the process vanishes mid-step, as in a crash or an OOM kill."""
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        """Whatever state it is in, make sure it is gone (fixtures' teardown)."""
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_LIMIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def logged(self) -> str:
        return self.log.read_text(errors="replace") if self.log is not None else ""


def shared_settings(**overrides: Any) -> dict[str, Any]:
    """What a server needs to share this test run's state: its database (the
    test database, which the tests commit to), its secret key (sessions
    signed here are valid there) and its DNS server, then `overrides`."""
    return {
        "database": str(connections["default"].settings_dict["NAME"]),
        "SECRET_KEY": settings.SECRET_KEY,
        "BUILTIT_DNS_SERVERS": settings.BUILTIT_DNS_SERVERS,  # the session's (tests/conftest.py)
        **overrides,
    }


def server_start(given: dict[str, Any], *, log: Path | None = None) -> ServerProcess:
    """A server on a free port of 127.0.0.1, with the settings `given`
    (shared_settings); its stderr goes to `log`, or to the test's."""
    env = {**os.environ, _SETTINGS: json.dumps(given)}
    env["DJANGO_SETTINGS_MODULE"] = settings.SETTINGS_MODULE
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # the server keeps Django's guard
    stderr = log.open("w") if log is not None else None
    try:
        process = subprocess.Popen(  # noqa: S603 (our own script)
            [sys.executable, "-c", _SERVE],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    finally:
        if stderr is not None:
            stderr.close()
    return ServerProcess(process, _port_of(process, log), log)


def _port_of(process: subprocess.Popen[str], log: Path | None) -> int:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], START_LIMIT)
    line = process.stdout.readline() if ready else ""
    if not line.strip().isdigit():
        process.kill()
        status = process.wait()
        said = log.read_text(errors="replace")[-3000:] if log is not None else "see its stderr"
        raise RuntimeError(f"the server did not start (exit code {status}): {said}")
    return int(line)


def database_url() -> str:
    """The test database as a DATABASE_URL, for a server started the way an
    operator starts one (environment variables, no settings of ours)."""
    given = connections["default"].settings_dict
    if given["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{given['NAME']}"
    user = quote(str(given.get("USER") or ""), safe="")
    password = quote(str(given.get("PASSWORD") or ""), safe="")
    login = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = f"{given.get('HOST') or '127.0.0.1'}:{given.get('PORT') or 5432}"
    return f"postgres://{login}{host}/{given['NAME']}"


def daphne_cli_start(
    arguments: list[str], env: dict[str, str], *, stdout: Path, stderr: Path | None = None
) -> ServerProcess:
    """`daphne <arguments>` as an operator types it (with `-p 0` for a free
    port), on the test settings and `env`; its access log goes to `stdout`, and
    what it logs to `stderr` when given (ServerProcess.logged)."""
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": settings.SETTINGS_MODULE, **env}
    environment.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with stdout.open("w") as log, (stderr or Path(os.devnull)).open("w") as errors:
        process = subprocess.Popen(  # noqa: S603 (our own command)
            [sys.executable, "-m", "daphne", *arguments],
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=errors if stderr is not None else subprocess.PIPE,
            text=True,
        )
    if stderr is not None:
        return ServerProcess(process, _listening_port_logged(process, stderr), stderr)
    return ServerProcess(process, listening_port(process), None)


_LISTENING = re.compile(r"Listening on TCP address 127\.0\.0\.1:(\d+)")


def _listening_port_logged(process: subprocess.Popen[str], log: Path) -> int:
    """The port daphne says it listens on, read from its log as it is written."""
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline and process.poll() is None:
        found = _LISTENING.search(log.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        time.sleep(0.05)
    process.kill()
    process.wait()
    raise RuntimeError("daphne did not start: " + log.read_text(errors="replace")[-3000:])


def listening_port(process: subprocess.Popen[str], *, limit: float = START_LIMIT) -> int:
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
            line = lines.get(timeout=limit)
        except queue.Empty:
            line = ""
        if not line:
            process.kill()
            process.wait()
            raise RuntimeError("daphne did not start: " + "".join(seen)[-3000:])
        seen.append(line)
        found = _LISTENING.search(line)
        if found:
            return int(found.group(1))
