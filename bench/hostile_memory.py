"""Peak memory of the server under hostile input.

Not a test: prints figures. Run with `.venv/bin/python bench/hostile_memory.py`.

Streams: each case runs one real turn (`run_turn`, the real client, a
temporary SQLite database) against the fake OpenRouter, which writes without
end where the case says so. The fake runs in a forked process, so only the
app's memory is measured: the peak RSS of this process (VmHWM, reset before
each case through /proc/self/clear_refs) minus its RSS before the case.

Bodies (bench/hostile_bodies.py): daphne serves the app as a separate
process; raw sockets send a 1,000 MiB POST to the login page, a 200 MiB ZIP
import, ten parallel 20 MiB imports anonymous and ten signed in (generated on
the fly, never held), and the server's own RSS is read from its /proc.

A watchdog ends a case that passes WATCHDOG_BYTES or WATCHDOG_SECONDS (the
code before the fix ran until memory ran out), and says so.
Target: the peak grows by less than 100 MB for each case; after ten parallel
anonymous imports the server's RSS is within 50 MB of where it was.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

import json

from django.contrib.auth.models import User
from django.core.management import call_command

from bench.hostile_bodies import bodies
from chat.agent.limits import TurnLimits
from chat.agent.loop import TurnRequest, run_turn
from chat.llm import ClientConfig, LLMClient
from chat.services import conversation_create
from fakes.openrouter import FakeOpenRouter
from fakes.script import (
    Comment,
    Endless,
    Raw,
    Scripted,
    Stall,
    Stream,
    ToolCallScript,
    text,
    tool_calls,
)
from projects.lifecycle import project_create
from projects.models import Project

MB = 2**20
WATCHDOG_BYTES = 1500 * MB
WATCHDOG_SECONDS = 60.0
WATCHDOG_EXIT = 3
REQUEST_LIMIT = 20.0  # seconds, for the stall case (BUILTIT_REQUEST_TIME_LIMIT: 600)


def status(pid: int | str, field: str) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


# --- streams --------------------------------------------------------------------------


def chunk(delta: dict[str, object]) -> bytes:
    body = {"id": "gen-1", "model": "m", "choices": [{"index": 0, "delta": delta}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def endless_arguments() -> Scripted:
    head = {
        "index": 0,
        "id": "c1",
        "type": "function",
        "function": {"name": "create_file", "arguments": ""},
    }
    more = chunk({"tool_calls": [{"index": 0, "function": {"arguments": "x" * 8192}}]})
    return Stream([Comment(), Raw(chunk({"tool_calls": [head]})), Endless(more)])


def endless_event() -> Scripted:
    return Stream([Raw(b'data: {"choices":\n'), Endless(b"data: " + b" " * 8192 + b"\n")])


def endless_text() -> Scripted:
    return Stream([Endless(chunk({"content": "words " * 1500}))])


def many_calls() -> Scripted:
    reads = [ToolCallScript("read_file", {"path": f"/p{n}.html"}) for n in range(2000)]
    return tool_calls(*reads)


def stall() -> Scripted:
    return Stream([Comment(), Stall()])


STREAMS: list[tuple[str, Callable[[], Scripted]]] = [
    ("endless tool arguments", endless_arguments),
    ("one event of endless data: lines", endless_event),
    ("endless text", endless_text),
    ("2,000 tool calls in one answer", many_calls),
    ("stall before any output", stall),
]


def serve_fake(port_out: multiprocessing.connection.Connection, case: int) -> None:
    with FakeOpenRouter() as fake:
        script = STREAMS[case][1]()
        asked: list[object] = []

        def respond(request: object) -> Scripted:
            # The case's answer to the turn's first request (and to its retries);
            # an answer that ends the turn after a round of tools.
            first = not any(m.get("role") == "tool" for m in request.json["messages"])  # type: ignore[attr-defined]
            asked.append(request)
            return script if first else text("Done.")

        fake.responder = respond
        port_out.send(fake.base_url)
        port_out.recv()  # until told to stop


def run_stream_case(index: int, project: Project, user: User) -> str:
    parent, child = multiprocessing.Pipe()
    fake = multiprocessing.get_context("fork").Process(target=serve_fake, args=(child, index))
    fake.start()
    base_url = parent.recv()
    # The stall case would wait the default 600 s; the bound is the same code.
    limits = replace(
        TurnLimits.for_project(project), **known(TurnLimits, request_time_limit=REQUEST_LIMIT)
    )
    try:
        config = known(
            ClientConfig,
            base_url=base_url,
            api_key="sk-bench",
            max_retries=3,
            max_answer_bytes=_setting("BUILTIT_MAX_ANSWER_BYTES"),
        )
        client = LLMClient(ClientConfig(**config))
        return _measure(lambda: asyncio.run(_turn(client, project, user, limits)))
    finally:
        parent.send("stop")
        fake.join(10)
        if fake.is_alive():
            fake.kill()


def known(kind: type, **values: Any) -> dict[str, Any]:
    """The values `kind` has fields for: the same script measures older code too."""
    names = {field.name for field in fields(kind)}
    return {name: value for name, value in values.items() if name in names}


def _setting(name: str) -> int:
    from django.conf import settings  # noqa: PLC0415

    return int(getattr(settings, name, 8 * MB))


async def _turn(client: LLMClient, project: Project, user: User, limits: TurnLimits) -> str:
    conversation = await asyncio.to_thread(conversation_create, project=project)
    request = TurnRequest(project, conversation, "Build me a site", user=user)
    last = ""
    try:
        async for event in run_turn(request, client=client, limits=limits):
            last = getattr(event, "code", "") or last
            if event.type == "done":
                return f"{event.status}" + (f" ({last})" if last else "")
    finally:
        await client.aclose()
    return "no end"


def _measure(work: Callable[[], str]) -> str:
    """Peak RSS growth of this process while `work` runs, with a watchdog."""
    base = status("self", "VmRSS")
    reset_peak()
    started = time.monotonic()
    over = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if status("self", "VmRSS") - base > WATCHDOG_BYTES or (
                time.monotonic() - started > WATCHDOG_SECONDS
            ):
                over.set()
                os._exit(WATCHDOG_EXIT)  # the old code: nothing stops it but memory
            time.sleep(0.05)

    done = threading.Event()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    outcome = work()
    done.set()
    growth = status("self", "VmHWM") - base
    return f"{growth / MB:7.1f} MB  {time.monotonic() - started:6.1f} s  {outcome}"


def streams() -> None:
    print("Model streams (the app's peak RSS growth, wall time, how the turn ended):")
    for index, (name, _script) in enumerate(STREAMS):
        # Each case in a process of its own, so the watchdog ends only that one.
        child = subprocess.run(  # noqa: S603
            [sys.executable, __file__, "case", str(index)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        line = child.stdout.strip().splitlines()[-1:] or [""]
        if child.returncode == WATCHDOG_EXIT:
            line = [f"> {WATCHDOG_BYTES / MB:.0f} MB or > {WATCHDOG_SECONDS:.0f} s: stopped"]
        print(f"  {name:36} {line[0]}", flush=True)


def stream_case(index: int) -> None:
    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", password="x" * 12)
    project = project_create(owner=user, name=f"Bench {index}")
    assert isinstance(project, Project)
    print(run_stream_case(index, project, user), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["case"]:
        stream_case(int(sys.argv[2]))
        sys.exit(0)
    which = sys.argv[1:] or ["streams", "bodies"]
    if "streams" in which:
        streams()
    if "bodies" in which:
        bodies()
