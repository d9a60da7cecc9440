"""How fast a diff renders: a 5,000-line HTML file compared with an
edited version, computed (projects.history.diffs) and rendered to the table the page
shows (projects.web.diff_html), inline and side by side.

Not a test: prints figures. Run with `.venv/bin/python bench/diff_render.py`.

Cases: 30 scattered edits (what a model's edit_file calls do), one line
changed (the common case), every line changed (a rewrite: the worst case for
difflib), and a file past the bound (refused at once). Each figure is the best
of 5 rounds after an untimed warm-up, wall time in one thread.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")
os.environ.setdefault("BUILTIT_HTTPS", "0")

import django

django.setup()

from projects.history.diffs import MAX_LINES, diff
from projects.web.diff_html import diff_table

LINES = 5_000
ROUNDS = 5
WORDS = ["bread", "pastry", "oven", "flour", "crumb", "butter", "morning", "bakery", "rye"]


def page(lines: int, rng: random.Random, *, words: int = 8) -> list[str]:
    out = []
    for number in range(lines):
        text = " ".join(rng.choice(WORDS) for _ in range(words))
        out.append(f'    <p class="item-{number % 17}" data-n="{number}">{text}</p>\n')
    return out


def best(work: Callable[[], object]) -> float:
    work()
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def measure(name: str, before: str, after: str) -> None:
    def computed() -> object:
        return diff(before, after, path="/index.html")

    found = diff(before, after, path="/index.html")
    inline = best(lambda: diff_table(diff(before, after, path="/index.html"), layout="inline"))
    split = best(lambda: diff_table(diff(before, after, path="/index.html"), layout="split"))
    size = len(diff_table(found, layout="inline").encode()) // 1024
    counts = f"+{found.counts.added} -{found.counts.removed}" if found.counts else "not compared"
    print(
        f"| {name} | {counts} | {best(computed):.0f} ms | {inline:.0f} ms | {split:.0f} ms "
        f"| {size} KiB |"
    )


def main() -> None:
    rng = random.Random(15)
    lines = page(LINES, rng)
    text = "".join(lines)
    scattered = list(lines)
    for index in rng.sample(range(LINES), 30):
        scattered[index] = scattered[index].replace("<p", '<p data-edited="yes"')
    one = list(lines)
    one[LINES // 2] = "    <p>Changed</p>\n"
    rewritten = [line.replace("<p", "<div").replace("</p>", "</div>") for line in lines]
    huge = "".join(page(MAX_LINES + 1, rng))
    short = page(LINES, rng, words=1)  # under MAX_COLOURED_CHARS: coloured by Pygments
    short_edited = list(short)
    for index in rng.sample(range(LINES), 30):
        short_edited[index] = short_edited[index].replace("<p", '<p data-edited="yes"')
    print(f"A {LINES:,}-line HTML file ({len(text.encode()) // 1024} KiB), best of {ROUNDS}:\n")
    print("| change | lines | diff | diff + inline table | diff + side by side | inline HTML |")
    print("| --- | --- | --- | --- | --- | --- |")
    size = len("".join(short).encode()) // 1024
    measure(f"30 scattered edits, coloured ({size} KiB)", "".join(short), "".join(short_edited))
    measure("30 scattered edits", text, "".join(scattered))
    measure("one line", text, "".join(one))
    measure("every line (rewrite)", text, "".join(rewritten))
    measure(f"{MAX_LINES + 1:,} lines (past the bound)", huge, huge + "<p>x</p>\n")


if __name__ == "__main__":
    main()
