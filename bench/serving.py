"""A site's files published and through the preview, beside the same files
through WhiteNoise.

Not a test: prints figures. Run with `.venv/bin/python bench/serving.py`
(`--seconds 10` per phase, `--clients 50`, `--rounds 2`, `--warmup 2`).

The target for publishing a site: a 20-file site, 50 concurrent clients, one
process; serving a published page costs at most 1.2x what the same server pays
to serve the same file as a static file through WhiteNoise. A project of 20
files (an index.html of about 7 KB, 12 more pages, a stylesheet, a script and
5 small PNGs) is made through the file service on a temporary SQLite database
and published (site_publish) as `bench-site`, and the same bytes are written
under STATIC_ROOT before the server starts (WhiteNoise scans it once, at
startup). One daphne serves `builtit.asgi:application` as production runs it.
50 clients (each its own httpx client, so its own kept-alive connection) ask
for the 20 files round-robin, one side a phase: `/preview/<token>/<path>` and
`/<path>` on the site's own host (`bench-site.sites.localhost`; sites are never
served on the app's), `/static/bench-site/<path>` on the app's. Every request
sends `Accept-Encoding: identity`, so every side answers the file's own bytes
(a published site would gzip text for a client that takes it; WhiteNoise here
has no compressed copies to offer). Each side is warmed up first (untimed),
then the phases run in a palindrome (preview, static, published, then
published, static, preview, ...): over an even number of rounds each side's
phases sit, on average, at the same moment of the run, so none gains from
going first or from the machine getting steadily busier or quieter.

Per side: requests a second, p50 and p99 latency (send to the last byte of the
body), errors (anything but a 200), the bytes of a response, and the server's
CPU seconds per 1,000 requests (utime + stime from /proc/<pid>/stat, all its
threads). On a 2-core machine the clients compete with the server for CPU, so
the CPU per request is the fairest "what the server pays"; the clients' cores
and the rest of the machine's are printed beside it to show how busy it was.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import itertools
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import fanout_servers as servers


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="per timed phase")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument(
        "--rounds", type=int, default=2, help="rounds of the three sides (best even)"
    )
    parser.add_argument("--warmup", type=float, default=2.0, help="untimed seconds per side")
    return parser.parse_args()


ARGS = arguments()
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ["BUILTIT_HTTPS"] = "0"
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"
# Production settings on a temporary SQLite database, in daphne too.
os.environ["DEBUG"] = "0"
os.environ["LOG_LEVEL"] = "WARNING"
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)
os.environ.pop("BUILTIT_SITES_ORIGIN", None)  # the default sites host, which SITES_HOST names
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

import httpx
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connections
from PIL import Image

from projects.files.results import FileError
from projects.lifecycle import project_create
from projects.models import Project
from projects.publish.services import PublishRefused, site_publish
from projects.services import Author, file_create, file_upload

Side = Literal["preview", "static", "published"]
# Static in the middle: both ratios are against it, and it runs next to each.
SIDES: tuple[Side, ...] = ("preview", "static", "published")
STATIC_FOLDER = "bench-site"
SITE_NAME = "bench-site"  # the published site's address: its own host, bench-site.<sites host>
APP_HOST = "127.0.0.1"
# Previews and published sites are served on a host of their own (common.sites:
# "sites." before the app's name, sites.localhost for this machine), the same process.
SITES_HOST = "sites.localhost"
# The same headers on every side (httpx would ask for gzip, deflate and br):
# each answers the file's own bytes, as the target compares "the same file".
HEADERS = {"Accept-Encoding": "identity"}
TIMEOUT = 30.0  # seconds for one request


# --- the site ---------------------------------------------------------------------------


def page(title: str, paragraphs: int) -> str:
    """An HTML page like a generated site's: a head with the stylesheet and the
    script, a nav to every page, pictures, text."""
    nav = "".join(
        f'      <li><a href="page-{number:02}.html">Page {number}</a></li>\n'
        for number in range(1, 13)
    )
    body = "".join(
        f"    <section>\n      <h2>{title}, part {number}</h2>\n"
        f'      <img src="img/photo-{number % 5 + 1}.png" alt="A photo" width="96" height="96">\n'
        "      <p>Our bakery opens at seven every morning with bread from the wood oven, "
        "pastries made with butter from the farm down the road, and coffee roasted "
        "in town. Come early on Saturdays: the sourdough sells out by ten.</p>\n"
        "    </section>\n"
        for number in range(paragraphs)
    )
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n'
        '  <meta charset="utf-8">\n'
        '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"  <title>{title}</title>\n"
        '  <link rel="stylesheet" href="css/style.css">\n'
        '  <script src="js/app.js" defer></script>\n'
        "</head>\n<body>\n  <nav>\n    <ul>\n"
        f"{nav}    </ul>\n  </nav>\n  <main>\n    <h1>{title}</h1>\n{body}  </main>\n"
        "  <footer>The Corner Bakery, 12 Mill Street</footer>\n</body>\n</html>\n"
    )


STYLE = "".join(
    f".block-{number} {{ margin: {number}px auto; padding: 1rem; color: #37{number:02}51; "
    "border-radius: 6px; font: 16px/1.5 system-ui, sans-serif; }\n"
    for number in range(40)
)
SCRIPT = "".join(
    f"document.querySelectorAll('.block-{number}').forEach((element) => {{\n"
    f"  element.addEventListener('click', () => element.classList.toggle('open-{number}'));\n"
    "});\n"
    for number in range(20)
)


def picture(seed: int) -> bytes:
    """A small PNG with some detail, so it does not compress to nothing."""
    image = Image.new("RGB", (96, 96))
    image.putdata(
        [
            ((x * 7 + seed * 40) % 256, (y * 5 + x * y) % 256, (seed * 60 + y) % 256)
            for y in range(96)
            for x in range(96)
        ]
    )
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def site() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {"index.html": page("The Corner Bakery", 16)}
    for number in range(1, 13):
        files[f"page-{number:02}.html"] = page(f"Page {number}", 3 + number % 4)
    files["css/style.css"] = STYLE
    files["js/app.js"] = SCRIPT
    for number in range(1, 6):
        files[f"img/photo-{number}.png"] = picture(number)
    return files


def project_with(files: dict[str, str | bytes]) -> Project:
    """The site as a person's project, written through the file service."""
    user = User.objects.create_user("bench", password="bench-password-1")
    project = project_create(owner=user, name="Bench bakery")
    assert isinstance(project, Project)
    author = Author.person(user)
    for path, content in files.items():
        written = (
            file_upload(project=project, path=path, data=content, author=author)
            if isinstance(content, bytes)
            else file_create(project=project, path=path, content=content, author=author)
        )
        if isinstance(written, FileError):
            raise SystemExit(f"could not write {path}: {written.message}")
    return project


def publish(project: Project) -> None:
    """The project's files as they are now, live at /s/bench-site/ on the sites host."""
    version = site_publish(project=project, user=project.owner, name=SITE_NAME)
    if isinstance(version, PublishRefused):
        raise SystemExit(f"could not publish: {version.message}")


def static_copy(files: dict[str, str | bytes]) -> None:
    folder = Path(settings.STATIC_ROOT) / STATIC_FOLDER
    for path, content in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def kind_of(path: str) -> str:
    return path.rsplit(".", 1)[-1]


# --- the server -------------------------------------------------------------------------


def check_sides(port: int, token: str, files: dict[str, str | bytes]) -> None:
    """Every file once on every side, as the clients will ask: a 200, not
    compressed, and (published and static) the file's own bytes. The preview
    adds its page-report script to HTML, so only its other files are compared."""
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False) as client:
        for side in SIDES:
            for path, content in files.items():
                url, host = address(side, token, path)
                answer = client.get(url, headers={**HEADERS, "Host": host})
                wrong = what_is_wrong(answer, side, path, content)
                if wrong:
                    raise SystemExit(f"{side} {url} on {host}: {wrong}")


def what_is_wrong(answer: httpx.Response, side: Side, path: str, content: str | bytes) -> str:
    if answer.status_code != 200:
        return f"status {answer.status_code}"
    if "Content-Encoding" in answer.headers:
        return f"sent {answer.headers['Content-Encoding']}"
    expected = content if isinstance(content, bytes) else content.encode("utf-8")
    if answer.content != expected and not (side == "preview" and kind_of(path) == "html"):
        return "not the file's bytes"
    return ""


def stop_daphne(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- the clients ------------------------------------------------------------------------


@dataclass
class Phase:
    side: Side
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)  # ms, every 200
    by_kind: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: int = 0
    body_bytes: int = 0
    server_cpu: float = 0.0  # seconds
    client_cpu: float = 0.0
    machine_cpu: float = 0.0

    @property
    def requests(self) -> int:
        return len(self.latencies) + self.errors


@dataclass(frozen=True)
class Target:
    url: str
    host: str
    kind: str  # the file's extension


def address(side: Side, token: str, path: str) -> tuple[str, str]:
    """A file's path on a side, and the host it is asked for on."""
    if side == "preview":
        return f"/preview/{token}/{path}", SITES_HOST
    if side == "published":
        return f"/{path}", f"{SITE_NAME}.{SITES_HOST}"  # its own host
    return f"/static/{STATIC_FOLDER}/{path}", APP_HOST


async def client_loop(
    client: httpx.AsyncClient,
    targets: list[Target],
    turn: itertools.count[int],
    deadline: float,
    phase: Phase,
) -> None:
    while time.perf_counter() < deadline:
        target = targets[next(turn) % len(targets)]
        start = time.perf_counter()
        try:
            response = await client.get(target.url, headers={**HEADERS, "Host": target.host})
        except httpx.HTTPError:
            phase.errors += 1
            continue
        elapsed = (time.perf_counter() - start) * 1000
        if response.status_code != 200:
            phase.errors += 1
            continue
        phase.latencies.append(elapsed)
        phase.by_kind[target.kind].append(elapsed)
        phase.body_bytes += len(response.content)


async def run_phase(
    clients: list[httpx.AsyncClient],
    targets: list[Target],
    side: Side,
    seconds: float,
    pid: int,
) -> Phase:
    phase = Phase(side)
    turn = itertools.count()
    server, mine, machine = servers.cpu_seconds(pid), time.process_time(), servers.machine_busy()
    start = time.perf_counter()
    await asyncio.gather(
        *(client_loop(client, targets, turn, start + seconds, phase) for client in clients)
    )
    # Requests under way at the deadline finish and count: the phase lasts until they do.
    phase.seconds = time.perf_counter() - start
    phase.server_cpu = servers.cpu_seconds(pid) - server
    phase.client_cpu = time.process_time() - mine
    phase.machine_cpu = servers.machine_busy() - machine
    return phase


def percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def phase_line(label: str, phases: list[Phase]) -> tuple[float, float, float, float]:
    """Prints the phases together; returns req/s, p50, p99 and CPU ms per request."""
    seconds = sum(phase.seconds for phase in phases)
    requests = sum(phase.requests for phase in phases)
    ordered = sorted(latency for phase in phases for latency in phase.latencies)
    server = sum(phase.server_cpu for phase in phases)
    client = sum(phase.client_cpu for phase in phases)
    rest = sum(phase.machine_cpu for phase in phases) - server - client
    per_second = requests / seconds
    p50, p99 = percentile(ordered, 0.50), percentile(ordered, 0.99)
    per_thousand = server / requests * 1000 if requests else float("nan")
    size = sum(phase.body_bytes for phase in phases) / max(len(ordered), 1)
    print(
        f"| {label} | {requests:,} | {per_second:,.0f} | {p50:.1f} ms | {p99:.1f} ms "
        f"| {sum(phase.errors for phase in phases)} | {size:,.0f} B | {per_thousand:.2f} s "
        f"| {server / seconds:.2f} / {client / seconds:.2f} / {rest / seconds:.2f} |"
    )
    return per_second, p50, p99, per_thousand


def report(timed: list[Phase]) -> None:
    print()
    print(
        "| phase | requests | req/s | p50 | p99 | errors | body | server CPU per 1,000 "
        "| cores: server / clients / rest |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for number, phase in enumerate(timed, start=1):
        phase_line(f"{number}. {phase.side}", [phase])
    totals = {
        side: phase_line(f"**{side}, all**", [p for p in timed if p.side == side]) for side in SIDES
    }
    static = totals["static"]
    print()
    for side in SIDES:
        if side == "static":
            continue
        mine = totals[side]
        print(
            f"{side} / static: req/s {mine[0] / static[0]:.2f}, p50 {mine[1] / static[1]:.2f}, "
            f"p99 {mine[2] / static[2]:.2f}, server CPU per request {mine[3] / static[3]:.2f}"
        )
    print()
    kinds = sorted({kind for phase in timed for kind in phase.by_kind})
    print("| p50 by file type | " + " | ".join(kinds) + " |")
    print("| --- |" + " --- |" * len(kinds))
    for side in SIDES:
        cells = []
        for kind in kinds:
            samples = [x for p in timed if p.side == side for x in p.by_kind.get(kind, [])]
            cells.append(f"{statistics.median(samples):.1f} ms" if samples else "-")
        print(f"| {side} | " + " | ".join(cells) + " |")


async def drive(port: int, pid: int, token: str, paths: list[str]) -> list[Phase]:
    base = f"http://127.0.0.1:{port}"
    urls: dict[Side, list[Target]] = {
        side: [
            Target(base + url, host, kind_of(path))
            for path in paths
            for url, host in [address(side, token, path)]
        ]
        for side in SIDES
    }
    # One client each, one connection each, kept for the whole run as a browser keeps one.
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    clients = [
        httpx.AsyncClient(limits=limits, timeout=TIMEOUT, trust_env=False)
        for _ in range(ARGS.clients)
    ]
    try:
        for side in SIDES:
            warm = await run_phase(clients, urls[side], side, ARGS.warmup, pid)
            print(f"warm-up {side}: {warm.requests:,} requests, {warm.errors} errors")
        timed = []
        for number in range(ARGS.rounds):
            # A palindrome: forward, then backward (see the module's docstring).
            for side in SIDES if number % 2 == 0 else SIDES[::-1]:
                phase = await run_phase(clients, urls[side], side, ARGS.seconds, pid)
                print(
                    f"round {number + 1} {side}: {phase.requests / phase.seconds:,.0f} req/s, "
                    f"{phase.errors} errors",
                    flush=True,
                )
                timed.append(phase)
        return timed
    finally:
        await asyncio.gather(*(client.aclose() for client in clients))


def interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # the same clean-up as Ctrl-C


def main() -> None:
    signal.signal(signal.SIGTERM, interrupted)
    data_dir = Path(os.environ["BUILTIT_DATA_DIR"])
    process: subprocess.Popen[bytes] | None = None
    try:
        call_command("migrate", verbosity=0)
        files = site()
        project = project_with(files)
        publish(project)
        static_copy(files)
        # daphne opens the database on its own; this process's connection would
        # only hold SQLite's WAL open for nothing.
        connections.close_all()
        text = sum(len(c) for c in files.values() if isinstance(c, str))
        binary = sum(len(c) for c in files.values() if isinstance(c, bytes))
        print(
            f"{len(files)} files ({text:,} B of text, index.html "
            f"{len(files['index.html']):,} B; {binary:,} B of PNG), SQLite in {data_dir}"
        )
        log = data_dir / "daphne.log"
        # daphne as the guide's production command runs it; its access log
        # (stdout, as in production) thrown away.
        server = servers.daphne_start(
            log,
            root=ROOT,
            ready_path=f"/static/{STATIC_FOLDER}/index.html",
            access_log=False,
        )
        process, port = server.process, server.port
        check_sides(port, project.preview_token, files)
        # What the probes above logged is not the run's.
        logged_before = len(log.read_bytes())
        print(
            f"daphne pid {process.pid} on port {port}, previews on host {SITES_HOST}, the "
            f"site on {SITE_NAME}.{SITES_HOST}, static files on {APP_HOST}; "
            f"{ARGS.clients} clients, {ARGS.rounds} rounds of {ARGS.seconds:g} s per side, "
            f"{ARGS.warmup:g} s warm-up"
        )
        timed = asyncio.run(drive(port, process.pid, project.preview_token, list(files)))
        report(timed)
        logged = log.read_bytes()[logged_before:].decode(errors="replace")
        if "Traceback" in logged:
            print(f"\nthe server logged {logged.count('Traceback')} tracebacks:\n{logged[-3000:]}")
    finally:
        if process is not None:
            stop_daphne(process)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit("interrupted; the server and the temporary data are gone") from None
