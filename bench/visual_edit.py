"""A visual edit, from the change to the preview showing it, on a 50 KB page.

Not a test: prints figures. Run with `.venv/bin/python bench/visual_edit.py`
(`--runs 40`).

The target (issue 42): a visual edit shows in the preview within 300 ms of the
change, p50 on this machine, with the round trip to the server and the
reload, for a 50 KB page. One daphne serves `builtit.asgi:application` as
production runs it (DEBUG off, a temporary SQLite database). A project with a
page of about 50 KB (a heading and 345 paragraphs) and its stylesheet is made
through the file service; Chromium (Playwright) signs in, opens the
workspace, picks the heading and then, per run, presses one of the site's own
colours in the panel (Text colour), alternating two, and waits until the
heading in the preview frame is drawn in that colour (polled every frame):
the edit's request, then its stylesheet loaded again in the page. Timed: from
the press to that frame. Then the heading's words are edited in place
(double-click, new words, Enter): the preview shows them as typed, which is
what is written, so it is not loaded again; timed from the Enter to the
answer that the file was written. Then the first paragraph is moved down and
up again (Move down, Move up), a change to the HTML the preview shows by
loading the whole page again: timed from the press to the new page showing
the new order. The first two runs of each warm up, untimed.

Printed: p50, p90 and the worst of each, and of the style edit's request
alone (from the browser's resource timing), with the page's size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import fanout_servers as servers


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="timed edits")
    return parser.parse_args()


ARGS = arguments()
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ["BUILTIT_HTTPS"] = "0"
os.environ["ALLOWED_HOSTS"] = "localhost"
os.environ["DEBUG"] = "0"
os.environ["LOG_LEVEL"] = "WARNING"
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)
os.environ.pop("BUILTIT_SITES_ORIGIN", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

import httpx
from django.contrib.auth.models import User
from django.core.management import call_command
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, sync_playwright

from projects.files.results import FileError
from projects.lifecycle import project_create
from projects.models import Project
from projects.services import Author, file_create

PASSWORD = "bench-password-1"  # noqa: S105 (a throwaway account of a temporary database)
COLOURS = ("#1d4ed8", "#b91c1c")
WORDS = ("Warm bread", "Fresh bread")
CHROMIUM = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
START_LIMIT = 30.0


def page_text() -> str:
    paragraph = (
        "  <p>Our bakery has made bread by hand since 1952: rye, spelt and sourdough, "
        "baked each morning in a wood-fired oven and sold while still warm.</p>\n"
    )
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n'
        '  <title>Bakery</title>\n  <link rel="stylesheet" href="style.css">\n</head>\n'
        '<body>\n  <h1 class="title">Fresh bread</h1>\n'
        "  <p>First</p>\n  <p>Second</p>\n" + paragraph * 345 + "</body>\n</html>\n"
    )


STYLE = (
    "body { font-family: system-ui, sans-serif; color: #1f2937; }\n"
    f".title {{\n  color: {COLOURS[0]};\n}}\n"
    f"p {{ color: {COLOURS[1]}; }}\n"
)


def project_made() -> Project:
    user = User.objects.create_user("bench", password=PASSWORD)
    project = project_create(owner=user, name="Bench bakery")
    assert isinstance(project, Project)
    author = Author.person(user)
    for path, content in (("/index.html", page_text()), ("/style.css", STYLE)):
        written = file_create(project=project, path=path, content=content, author=author)
        if isinstance(written, FileError):
            raise SystemExit(f"could not write {path}: {written.message}")
    return project


def start_daphne(log: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = servers.free_port()
    with log.open("wb") as errors:
        process = subprocess.Popen(  # noqa: S603 (our own virtualenv's server)
            [
                *(str(ROOT / ".venv/bin/daphne"), "--ping-interval", "50"),
                *("-b", "127.0.0.1", "-p", str(port)),
                "builtit.asgi:application",
            ],
            cwd=ROOT,
            env={**os.environ},
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline and process.poll() is None:
        try:
            httpx.get(f"http://localhost:{port}/healthz", trust_env=False)
        except httpx.TransportError:
            time.sleep(0.1)
            continue
        return process, port
    process.kill()
    process.wait()
    raise SystemExit(f"daphne did not start:\n{log.read_text(errors='replace')[-3000:]}")


def rgb(colour: str) -> str:
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def measured(
    base: str, project: Project
) -> tuple[list[float], list[float], list[float], list[float]]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        picked(page, base, project)
        shown, server = colours_timed(page)
        written = words_timed(page)
        reloaded = moves_timed(page)
        browser.close()
    return shown, server, written, reloaded


def picked(page: Page, base: str, project: Project) -> None:
    """Signed in, in the workspace, with the heading picked."""
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "bench")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.goto(f"{base}/projects/{project.pk}/")
    preview = page.frame_locator("#preview-frame")
    preview.locator("h1").wait_for()
    page.click("[data-action='pick-element']")
    page.wait_for_timeout(300)  # the bridge has heard "pick"
    preview.locator("h1").click()
    page.locator("#visual-panel").wait_for()


def colours_timed(page: Page) -> tuple[list[float], list[float]]:
    shown: list[float] = []
    server: list[float] = []
    for run in range(ARGS.runs + 2):
        colour = COLOURS[(run + 1) % 2]
        swatch = page.locator(f"[data-for='visual-color'] button[title='{colour}']")
        swatch.wait_for()
        page.evaluate("performance.clearResourceTimings()")
        started = time.perf_counter()
        swatch.click()
        in_preview(
            page, f"getComputedStyle(document.querySelector('h1')).color === '{rgb(colour)}'"
        )
        took = (time.perf_counter() - started) * 1000
        request = page.evaluate(
            "performance.getEntriesByType('resource')"
            ".filter((e) => e.name.endsWith('/preview-edit/'))"
            ".map((e) => e.responseEnd - e.startTime)[0] || 0"
        )
        page.locator("#visual-panel .visual-status").filter(has_text="Saved").wait_for()
        page.wait_for_timeout(150)  # the panel has the heading's styles again
        if run >= 2:
            shown.append(took)
            server.append(float(request))
    return shown, server


def words_timed(page: Page) -> list[float]:
    """Words edited in place: the preview shows them as typed; timed to the
    edit's answer (the file written)."""
    written: list[float] = []
    for run in range(ARGS.runs + 2):
        words = WORDS[run % 2]
        heading = page.frame_locator("#preview-frame").locator("h1")
        heading.dblclick()
        heading.evaluate(f"h => {{ h.firstChild.data = '{words}'; }}")
        status = page.locator("#visual-panel .visual-status")
        status.evaluate("s => { s.textContent = ''; }")
        started = time.perf_counter()
        page.keyboard.press("Enter")
        status.filter(has_text="Saved").wait_for()
        if run >= 2:
            written.append((time.perf_counter() - started) * 1000)
    return written


def moves_timed(page: Page) -> list[float]:
    """A change to the page's HTML the preview shows by loading the page again:
    the first paragraph moved down and back up."""
    reloaded: list[float] = []
    page.click("[data-action='pick-element']")
    page.wait_for_timeout(300)
    page.frame_locator("#preview-frame").locator("p").first.click()
    for run in range(ARGS.runs + 2):
        down = run % 2 == 0
        first = "Second" if down else "First"
        button = "[data-action='visual-move']" + (":not([data-up])" if down else "[data-up]")
        started = time.perf_counter()
        page.click(button)
        shows = (
            "document.readyState === 'complete' && "
            f"document.querySelector('p').textContent === '{first}'"
        )
        in_preview(page, shows)
        took = (time.perf_counter() - started) * 1000
        page.locator("#visual-panel .visual-status").filter(has_text="Saved").wait_for()
        page.wait_for_timeout(200)  # the panel has picked the paragraph again
        if run >= 2:
            reloaded.append(took)
    return reloaded


def in_preview(page: Page, expression: str, *, also: str = "0") -> float:
    """Waits, a check every frame, until `expression` holds in the preview's page
    (through its reloads); then `also` there."""
    while True:
        frame = next(f for f in page.frames if "/preview/" in f.url)
        try:
            frame.wait_for_function(expression, polling="raf", timeout=10_000)
            return float(frame.evaluate(also))
        except PlaywrightError:  # the frame navigated away under the wait: the next one
            pass


def summary(name: str, values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return (
        f"{name:<34} p50 {statistics.median(ordered):6.1f} ms   p90 {p90:6.1f} ms   "
        f"worst {ordered[-1]:6.1f} ms"
    )


def main() -> None:
    call_command("migrate", verbosity=0)
    project = project_made()
    log = Path(tempfile.mkdtemp(prefix="builtit-bench-log-")) / "daphne.log"
    process, port = start_daphne(log)
    try:
        shown, server, written, reloaded = measured(f"http://localhost:{port}", project)
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(f"page {len(page_text().encode()) / 1024:.1f} KB, stylesheet {len(STYLE)} bytes")
    print(f"{ARGS.runs} timed edits (Text colour, two of the site's colours in turn)")
    print(summary("press to shown in the preview", shown))
    print(summary("the edit's request (server part)", server))
    print(f"{ARGS.runs} timed edits of the heading's words in place (shown as typed)")
    print(summary("Enter to the file written", written))
    print(f"{ARGS.runs} timed moves of a paragraph (Move down, Move up: the page loaded again)")
    print(summary("press to the new page showing it", reloaded))


if __name__ == "__main__":
    main()
