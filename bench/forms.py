"""A published site's form endpoint under load, while a chat turn streams,
beside a page of the same site served meanwhile.

Not a test: prints figures. Run with `.venv/bin/python bench/forms.py`
(`--rate 200` submissions a second, `--page-rate 50` page requests a second,
`--seconds 8` per phase, `--pace-ms 10` between a turn's chunks).

The target: the endpoint answers 200 submissions a second on one process
while a turn streams, with p99 at most 100 ms. One daphne serves
`builtit.asgi:application` as production runs it (DEBUG=0, a temporary
SQLite database, no REDIS_URL, no mail server: nothing is mailed), with the
per-address and per-site bounds raised out of the way (every submission here
comes from 127.0.0.1). A site with a contact page is published as
`bench-forms` and reached at its own host, `bench-forms.sites.localhost`.

Load is open-loop, as visitors are: a submission is started every 1/rate
seconds whatever the earlier ones are doing (a POST of a contact form's
four fields, urlencoded, with the site's Origin and Referer, answered 303),
and a GET of the contact page every 1/page-rate seconds; each on a kept-alive
connection from a pool of 64. Latency is from the moment a request is sent to
the last byte of its answer. Two phases: the load alone, then the same load
while one turn streams its answer through a websocket to a signed-in tab
(HTML frames, as a person's tab gets them), from a fake OpenRouter in a forked
process (bench/fanout_fake.py) sending a chunk every `--pace-ms`. Printed per
phase and kind: requests, the rate reached, p50, p99, max, errors (anything but
303 or 200), and the server's CPU seconds per second of the phase; this
script's own CPU and the load average at each phase's end (a starved client
delays the figures as much as a starved server); and the turn's chunks received.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import fanout_servers as servers
from bench.fanout_fake import serve


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=200.0, help="submissions a second")
    parser.add_argument("--page-rate", type=float, default=50.0, help="page GETs a second")
    parser.add_argument("--seconds", type=float, default=8.0, help="per timed phase")
    parser.add_argument("--pace-ms", type=float, default=10.0, help="between a turn's chunks")
    parser.add_argument("--no-turn", action="store_true", help="only the load, no turn")
    return parser.parse_args()


ARGS = arguments()
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ["BUILTIT_HTTPS"] = "0"
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"
os.environ["DEBUG"] = "0"
os.environ["LOG_LEVEL"] = "WARNING"
for name in ("DATABASE_URL", "REDIS_URL", "BUILTIT_SITES_ORIGIN", "EMAIL_HOST"):
    os.environ.pop(name, None)
# Every request comes from 127.0.0.1: the bounds would refuse all but ten a minute.
os.environ["BUILTIT_FORMS_PER_ADDRESS"] = str(10**9)
os.environ["BUILTIT_FORMS_PER_SITE"] = str(10**9)
os.environ["BUILTIT_MAX_TURNS_PER_PERSON"] = "0"
os.environ["BUILTIT_USER_DAILY_COST_LIMIT"] = "0"
os.environ["BUILTIT_USER_MONTHLY_COST_LIMIT"] = "0"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

import httpx
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connections
from websockets.asyncio.client import connect
from websockets.typing import Origin

from projects.lifecycle import project_create
from projects.models import FormSubmission, Project
from projects.publish.services import PublishRefused, site_publish
from projects.services import Author, file_create

SITE = "bench-forms"
HOST = f"{SITE}.sites.localhost"
CONTACT = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Contact</title>'
    "</head><body><h1>Write to us</h1>"
    '<form action="/_forms/contact" method="post">'
    '<label for="n">Name</label><input id="n" name="name">'
    '<label for="e">Email</label><input id="e" name="email" type="email">'
    '<label for="m">Message</label><textarea id="m" name="message"></textarea>'
    '<p hidden><input name="_gotcha"></p><button>Send</button></form>'
    + "<p>Our bakery opens at seven every morning.</p>" * 40
    + "</body></html>"
)
FIELDS = {
    "name": "Ana Lima",
    "email": "ana@example.org",
    "message": "Two sourdough loaves for Saturday morning, please. " * 3,
    "_gotcha": "",
}
FOOTER_END = re.compile(r'class="turn-footer (?!running)(\w+)"')
MARKER = re.compile(r"⟦(\d+):\d+⟧")


def session_cookie(user: User) -> str:
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


def prepare() -> tuple[Project, str]:
    """The published site, and a project (with its owner's session) whose turn streams."""
    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", password="bench-password-1")
    site = project_create(owner=user, name="Bench bakery")
    chat = project_create(owner=user, name="Bench chat")
    assert isinstance(site, Project)
    assert isinstance(chat, Project)
    file_create(project=site, path="/index.html", content=CONTACT, author=Author.person(user))
    version = site_publish(project=site, user=user, name=SITE)
    if isinstance(version, PublishRefused):
        raise SystemExit(f"could not publish: {version.message}")
    cookie = session_cookie(user)
    connections.close_all()
    return chat, cookie


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)  # ms
    errors: int = 0


@dataclass
class Phase:
    name: str
    seconds: float = 0.0
    forms: Figures = field(default_factory=Figures)
    pages: Figures = field(default_factory=Figures)
    server_cpu: float = 0.0
    client_cpu: float = 0.0  # this script's, which sends the load: starved, it delays the figures
    load_average: float = 0.0  # at the phase's end
    chunks: int = 0


async def one(client: httpx.AsyncClient, kind: str, figures: Figures) -> None:
    headers = {"Host": HOST, "Accept-Encoding": "identity"}
    start = time.perf_counter()
    try:
        if kind == "form":
            origin = f"http://{HOST}"
            sent = {**headers, "Origin": origin, "Referer": f"{origin}/"}
            answer = await client.post("/_forms/contact", data=FIELDS, headers=sent)
            ok = answer.status_code == 303
        else:
            answer = await client.get("/", headers=headers)
            ok = answer.status_code == 200
    except httpx.HTTPError:
        figures.errors += 1
        return
    if ok:
        figures.latencies.append((time.perf_counter() - start) * 1000)
    else:
        figures.errors += 1


async def load(client: httpx.AsyncClient, phase: Phase, seconds: float) -> None:
    """Open-loop: each kind started on its own schedule until `seconds` pass."""
    tasks: list[asyncio.Task[None]] = []
    start = time.perf_counter()

    async def schedule(kind: str, rate: float, figures: Figures) -> None:
        if rate <= 0:
            return
        number = 0
        while (due := start + number / rate) < start + seconds:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            tasks.append(asyncio.create_task(one(client, kind, figures)))
            number += 1

    await asyncio.gather(
        schedule("form", ARGS.rate, phase.forms), schedule("page", ARGS.page_rate, phase.pages)
    )
    await asyncio.gather(*tasks)
    phase.seconds = time.perf_counter() - start


async def turn(
    base: str, project: Project, cookie: str, phase: Phase, started: asyncio.Event
) -> None:
    url = f"ws://{base}/ws/projects/{project.pk}/chat/"
    async with connect(
        url, origin=Origin(f"http://{base}"), additional_headers={"Cookie": cookie}, proxy=None
    ) as socket_:
        await socket_.recv()  # the snapshot
        await socket_.send(json.dumps({"message": "Tell me about the bakery's hours."}))
        seen: set[int] = set()
        async for text in socket_:
            if isinstance(text, str):
                seen.update(int(seq) for seq in MARKER.findall(text))
                if seen:
                    started.set()
                if FOOTER_END.search(text):
                    break
        phase.chunks = len(seen)


async def run_phase(base: str, name: str, streaming: tuple[Project, str] | None, pid: int) -> Phase:
    phase = Phase(name)
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(
        base_url=f"http://{base}", limits=limits, timeout=30, trust_env=False
    ) as client:
        turn_task = None
        if streaming is not None:
            started = asyncio.Event()
            turn_task = asyncio.create_task(turn(base, *streaming, phase, started))
            await asyncio.wait_for(started.wait(), 30)
        cpu, own = servers.cpu_seconds(pid), time.process_time()
        await load(client, phase, ARGS.seconds)
        phase.server_cpu = servers.cpu_seconds(pid) - cpu
        phase.client_cpu = time.process_time() - own
        phase.load_average = os.getloadavg()[0]
        if turn_task is not None:
            if turn_task.done():
                print("note: the turn ended before the load did: raise the chunks")
            await turn_task
    return phase


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


def report(phases: list[Phase]) -> None:
    print(
        "| phase | kind | requests | per second | p50 | p99 | max | errors | server CPU "
        "| server CPU per request |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for phase in phases:
        served = len(phase.forms.latencies) + len(phase.pages.latencies)
        per_request = phase.server_cpu / max(served, 1) * 1000
        for kind, figures in (("form POST", phase.forms), ("page GET", phase.pages)):
            ordered = sorted(figures.latencies)
            count = len(ordered) + figures.errors
            if not count:
                continue
            print(
                f"| {phase.name} | {kind} | {count:,} | {count / phase.seconds:,.0f} "
                f"| {percentile(ordered, 0.5):.1f} ms | {percentile(ordered, 0.99):.1f} ms "
                f"| {max(ordered, default=0):.1f} ms | {figures.errors} "
                f"| {phase.server_cpu / phase.seconds:.2f} cores "
                f"| {per_request:.1f} ms (both kinds) |"
            )
    print()
    for phase in phases:
        print(
            f"{phase.name}: this script (the load) used {phase.client_cpu / phase.seconds:.2f} "
            f"cores; the load average was {phase.load_average:.2f} at its end."
        )
    streamed = [phase for phase in phases if phase.chunks]
    for phase in streamed:
        print(f"\n{phase.name}: the turn's tab received {phase.chunks} chunks.")


def main() -> None:
    data_dir = Path(os.environ["BUILTIT_DATA_DIR"])
    chunks = int((ARGS.seconds + 10) * 1000 / ARGS.pace_ms)
    forking = multiprocessing.get_context("fork")
    ports, stop, expected = forking.Queue(), forking.Event(), forking.Value("i", 1)
    fake = forking.Process(target=serve, args=(chunks, ARGS.pace_ms / 1000, expected, ports, stop))
    fake.start()
    server = None
    try:
        fake_port = ports.get(timeout=30)
        project, cookie = prepare()
        server = servers.start("daphne", ROOT, fake_port, data_dir / "daphne.log")
        base = server.base
        # Untimed: the first requests load the URLconf, the views and the site's files.
        asyncio.run(warm(base))
        print(
            f"One daphne, SQLite, {ARGS.rate:g} submissions/s and {ARGS.page_rate:g} page "
            f"GETs/s, open-loop, {ARGS.seconds:g} s a phase; the turn streams {chunks} chunks "
            f"{ARGS.pace_ms:g} ms apart\n"
        )
        phases = [asyncio.run(run_phase(base, "alone", None, server.pid))]
        if not ARGS.no_turn:
            streaming = (project, cookie)
            phases.append(
                asyncio.run(run_phase(base, "while a turn streams", streaming, server.pid))
            )
        report(phases)
        kept = FormSubmission.objects.count()
        print(f"\nSubmissions kept: {kept:,}")
        log = (data_dir / "daphne.log").read_text(errors="replace")
        if "Traceback" in log:
            print("The server's log holds a traceback:\n" + log[-3000:])
    finally:
        if server is not None:
            servers.stop(server)
        stop.set()
        fake.join(10)
        if fake.is_alive():
            fake.terminate()
        shutil.rmtree(data_dir, ignore_errors=True)


async def warm(base: str) -> None:
    async with httpx.AsyncClient(base_url=f"http://{base}", trust_env=False) as client:
        warmed = Phase("warm")
        for _ in range(20):
            await one(client, "form", warmed.forms)
            await one(client, "page", warmed.pages)
        if warmed.forms.errors or warmed.pages.errors:
            raise SystemExit("the warm-up's requests were refused: see the server's log")


if __name__ == "__main__":
    main()
