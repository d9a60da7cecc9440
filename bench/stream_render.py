"""What drawing a streaming answer costs the server: CPU per streamed piece and
bytes sent per tab, for one tab and for fifty following the same turn.

A realistic answer (about 3,500 characters: paragraphs, a list, a table, a code
block) cut into 4-character pieces, as models stream tokens. Each piece is its
own batch (the worst case: a tab handed pieces together draws them once).
"Fast" is a model whose pieces come with no time between them; "slow" one whose
every piece is drawn (chat.render.streaming.REDRAW_AFTER passed).

Runs on any checkout: one whose TurnDrawing has no `flush` sends escaped text.
Run from the repository root: `.venv/bin/python bench/stream_render.py`.
"""

from __future__ import annotations

import itertools
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

from chat.agent.events import ContentText, Done, TurnStarted
from chat.render import fragments

PARAGRAPH = (
    "I built the **Crumb** bakery site with a menu, an about section and a contact "
    "form. The header is a warm brown, the buttons are *rounded*, and every page "
    "links back to the menu so visitors always find the prices. "
)
ANSWER = "\n\n".join(
    [
        PARAGRAPH * 3,
        "Here is what changed:\n- `index.html`: the menu and contact sections\n"
        "- `styles.css`: colours and spacing\n- `script.js`: the form's checks",
        "| Page | What it holds |\n|---|---|\n| index | menu, contact |\n| about | the story |",
        "```css\n"
        + "".join(f".item-{n} {{ color: #7a4b2a; margin: {n}px; }}\n" for n in range(40))
        + "```",
        PARAGRAPH * 4,
        "Next: Add a gallery | Make the header darker",
    ]
)
PIECE = 4
STARTED = TurnStarted(1, 7, "openai/gpt-5-mini", "A bakery called Crumb")


def run(tabs: int, *, slow: bool) -> tuple[float, int]:
    """CPU seconds to draw the answer on `tabs` tabs, and bytes one tab is sent."""
    ticks = itertools.count()
    drawings = [fragments.TurnDrawing(STARTED) for _ in range(tabs)]
    _clear_drawings()
    for drawing in drawings:
        drawing.start()
    clock = (lambda: float(next(ticks))) if slow else (lambda: 0.0)
    sent = 0
    start = time.thread_time()
    for at in range(0, len(ANSWER), PIECE):
        event = ContentText(ANSWER[at : at + PIECE])
        for index, drawing in enumerate(drawings):
            html = drawing.show(event)
            live = getattr(drawing, "live", None)
            if live is not None:
                live.clock = clock
            html += drawing.flush() if hasattr(drawing, "flush") else ""
            if index == 0:
                sent += len(html.encode())
    for index, drawing in enumerate(drawings):
        html = drawing.show(Done("stop", "completed", 1, 9))
        if index == 0:
            sent += len(html.encode())
    return time.thread_time() - start, sent


def _clear_drawings() -> None:
    """Each run starts with no drawing cached, as a process's first turn does."""
    try:
        from chat.render.streaming import drawn_markdown  # noqa: PLC0415
    except ImportError:
        return  # a checkout from before answers were drawn as they stream
    drawn_markdown.cache_clear()


def main() -> None:
    pieces = -(-len(ANSWER) // PIECE)
    print(f"answer: {len(ANSWER)} characters in {pieces} pieces of {PIECE}")
    print("| model | tabs | CPU per piece (all tabs) | CPU per piece per tab | bytes to one tab |")
    print("| --- | --- | --- | --- | --- |")
    for slow in (False, True):
        for tabs in (1, 50):
            best = min(run(tabs, slow=slow) for _ in range(3))
            cpu, sent = best
            print(
                f"| {'slow' if slow else 'fast'} | {tabs} | {cpu / pieces * 1e6:.0f} µs "
                f"| {cpu / pieces / tabs * 1e6:.1f} µs | {sent:,} |"
            )


if __name__ == "__main__":
    main()
