"""What the check of a whole site costs: `site_check` with html5lib
and tinycss2 on a normal 20-page site and on hostile files, then the normal
site through `site_check_bounded`, in its spawned process, as the workspace,
`manage.py publish` and the assistant run it.

Not a test: prints figures. Run with `.venv/bin/python bench/site_check.py`
(a minute or two). Time is the process's CPU time for one check, the best of
three where a check takes under a second. With `--large`, the hostile files
again at 512 KB, the most a file may hold, each through `site_check_bounded`
(wall time, with the process's start; a few minutes).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import django

django.setup()

from projects.publish.checking import CHECK_SECONDS, CheckUnfinished, site_check_bounded
from projects.publish.site_check import SiteCheck, site_check

Files = dict[str, str | None]
KB = 1024


def normal_site(pages: int = 20) -> Files:
    """A site as the assistant writes one: pages of 8 to 12 KB sharing a
    navigation, a stylesheet of about 300 rules and a script."""
    names = [f"/page-{n}.html" for n in range(1, pages)]
    nav = "".join(f'<li><a href="{name[1:]}">Page {n}</a></li>' for n, name in enumerate(names))
    files: Files = {"/css/site.css": _stylesheet(300), "/js/site.js": "console.log('hi');\n" * 40}
    for number, path in enumerate(["/index.html", *names]):
        sections = "".join(_section(number, s) for s in range(12))
        files[path] = (
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>Bakery, page {number}</title>\n"
            '<link rel="stylesheet" href="css/site.css">\n</head>\n<body>\n'
            f'<header><nav aria-label="Main"><ul>{nav}</ul></nav></header>\n'
            f"<main>\n{sections}</main>\n"
            "<footer><p>Lisbon Bakery, Rua Augusta 1</p></footer>\n"
            '<script src="js/site.js"></script>\n</body>\n</html>\n'
        )
    files |= {f"/img/{n}.jpg": None for n in range(12)}
    return files


def _section(page: int, number: int) -> str:
    return (
        f'<section id="s{number}" class="card">\n<h2>Bread of the day {number}</h2>\n'
        f'<img src="img/{number}.jpg" alt="A loaf, number {number}" width="640" height="480">\n'
        "<p>Our sourdough rests for a night and bakes at dawn; the crust cracks as it "
        "cools, and the crumb stays soft for days. Come early on Saturdays.</p>\n"
        f'<form action="page-{page % 19 + 1}.html"><label for="q{number}">Ask</label>'
        f'<input id="q{number}" name="q"><button>Send</button></form>\n</section>\n'
    )


def _stylesheet(rules: int) -> str:
    return "".join(
        f".card-{n} > h2:hover, .card-{n} a[href^='#'] {{ color: #{n % 999:03x}; "
        f"margin: {n % 7}px auto; background: url(../img/{n % 12}.jpg) no-repeat; }}\n"
        for n in range(rules)
    )


def hostile(size: int) -> dict[str, Files]:
    attributes = " ".join(f"a{n}" for n in range(size // 6))
    return {
        '"<a " repeated, a page': {"/index.html": ("<a " * size)[: size // 3 * 3]},
        '"url(" repeated, a stylesheet': {"/a.css": "url(" * (size // 4)},
        '"url(" repeated, a page\'s <style>': {"/index.html": "<style>" + "url(" * (size // 4)},
        '"<div>" repeated (nested)': {"/index.html": "<div>" * (size // 5)},
        "one tag, its attributes all named apart": {"/index.html": f"<p {attributes}>"},
        '"{" repeated, a stylesheet': {"/a.css": "{" * size},
        '"<b>" repeated': {"/index.html": "<b>" * (size // 3)},
    }


def timed(check: Callable[[], SiteCheck]) -> tuple[float, SiteCheck]:
    best, result = float("inf"), None
    for _ in range(3):
        started = time.process_time()
        result = check()
        best = min(best, time.process_time() - started)
        if best > 1:
            break
    assert result is not None
    return best, result


def row(case: str, files: Files) -> None:
    size = sum(len(text or "") for text in files.values())
    seconds, result = timed(lambda: site_check(files))
    found = sum(result.counts.values())
    print(f"| {case} | {size:,} | {seconds:.2f} s | {found:,} |", flush=True)


def main() -> None:
    print("| case | characters | CPU | findings |\n| --- | --- | --- | --- |")
    row("normal site: 20 pages, a stylesheet, a script", normal_site())
    for size in [30 * KB, 60 * KB]:
        for case, files in hostile(size).items():
            row(f"{size // KB} KB of {case}", files)
    print(f"\nThrough site_check_bounded (a spawned process, limit {CHECK_SECONDS:g} s):\n")
    print("| case | characters | wall | result |\n| --- | --- | --- | --- |")
    bounded("normal site: 20 pages, a stylesheet, a script", normal_site())
    if "--large" in sys.argv:
        for case, files in hostile(512 * KB).items():
            bounded(f"512 KB of {case}", files)


def bounded(case: str, files: Files) -> None:
    size = sum(len(text or "") for text in files.values())
    started = time.perf_counter()
    result = site_check_bounded(files)
    wall = time.perf_counter() - started
    said = "did not finish" if isinstance(result, CheckUnfinished) else "finished"
    print(f"| {case} | {size:,} | {wall:.2f} s | {said} |", flush=True)


if __name__ == "__main__":
    main()
