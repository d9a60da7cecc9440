"""An answer drawn as Markdown while it streams (DESIGN §7).

A streaming answer is two parts. Its settled blocks are those no later text
can change: each is drawn once and added before the open part. The open part
is the block still being written (a paragraph, a list, a code block), drawn
again as it grows. Both are drawn by `render_markdown`, the finished answer's
one renderer and sanitiser, so nothing reaches the page that the finished
answer would not let through.

The text is split only where Markdown itself starts afresh: after a blank line
outside a code block, before a line that cannot belong to the block above (not
indented, not a list item, not a quote). The settled blocks followed by the
open part are then the finished answer's own blocks, and the swap to the
finished answer when the block ends changes nothing a person sees.

Every tab following a turn draws the same parts, so drawings are kept in a
small cache: a process draws each part once however many tabs watch. The open
part is drawn again as it grows by a share of its length, or after a tenth of
a second, so one answer costs a bounded multiple of its length to draw and to
send, never its square, and a slow model's words still show as they come.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from chat.render.markdown import fence_after, render_markdown

# A line that may continue the block above a blank line: indented (a list item's
# second paragraph, indented code), a quote, or a list's next item.
_CONTINUES = re.compile(r"[ \t>]|[-*+][ \t]|\d{1,9}[.)][ \t]")
# The first characters of such lines, and "" (nothing written yet).
_MAY_CONTINUE = {"", " ", "\t", ">", "-", "*", "+", *"0123456789"}
# The open part is drawn again once it has grown by 1/_REDRAW_SHARE of its length
# since it was last drawn (so an answer costs a bounded multiple of its length to
# draw and send), or once REDRAW_AFTER seconds have passed (so a slow model's words
# show as they come).
_REDRAW_SHARE = 16
REDRAW_AFTER = 0.1


def settle_point(text: str, start: int = 0) -> int:
    """How far `text` is settled, searching from `start` (a point already settled):
    the start of the last line that begins a block of its own."""
    point, fence, after_blank = start, "", False
    position = start
    while (end := text.find("\n", position)) >= 0:
        line, line_start, position = text[position:end], position, end + 1
        if not fence and not line.strip():
            after_blank = True
            continue
        if not fence and after_blank and not _CONTINUES.match(line):
            point = line_start
        fence = fence_after(line, fence)
        after_blank = False
    # The line being written settles what came before once its first character
    # shows it cannot belong to the block above ("T", not "1" that may become "1.").
    if after_blank and not fence and text[position : position + 1] not in _MAY_CONTINUE:
        point = position
    return point


@dataclass
class Drawn:
    """What a tab is sent for the answer since it was last drawn: the blocks that
    settled (to add before the open part) and the open part, drawn again (None
    when it need not be)."""

    settled: str
    open: str | None


@dataclass
class LiveAnswer:
    """Where one streaming answer stands on one tab."""

    clock: Callable[[], float] = time.monotonic
    settled: int = 0  # characters of the text drawn for good
    open_drawn: int = -1  # length of the open part when it was last drawn
    drawn_at: float = 0.0

    def draw(self, text: str) -> Drawn:
        point = settle_point(text, self.settled)
        settled = ""
        if point > self.settled:
            settled = drawn_markdown(text[self.settled : point])
            self.settled, self.open_drawn = point, -1
        tail = text[self.settled :]
        now = self.clock()
        if not self._due(len(tail), now):
            return Drawn(settled, None)
        self.open_drawn, self.drawn_at = len(tail), now
        return Drawn(settled, drawn_markdown(tail) if tail.strip() else "")

    def _due(self, length: int, now: float) -> bool:
        if length == self.open_drawn:
            return False
        if self.open_drawn < 0 or now - self.drawn_at >= REDRAW_AFTER:
            return True
        return length - self.open_drawn >= max(length // _REDRAW_SHARE, 1)


@lru_cache(maxsize=64)
def drawn_markdown(text: str) -> str:
    """`render_markdown`, once per process for the same text (the tabs of a turn)."""
    return str(render_markdown(text))
