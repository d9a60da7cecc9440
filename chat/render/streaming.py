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
small cache: a process draws each part once however many tabs watch.

The words that come between two drawings are added as plain text at the end
of the open part's last block (its "tail"), so each shows as it comes. Words
with nothing Markdown reads inline (no emphasis, code, link, HTML, entity or
new line), added to a line whose kind is decided, look the same drawn, so they
are never drawn again; others are, once the open part has grown by a quarter
of its length or a fifth of a second after its last drawing, so one answer
costs a bounded multiple of its length to draw and to send, never its square.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from chat.render.markdown import fence_after, render_markdown
from common.text import clean_text

# A line that may continue the block above a blank line: indented (a list item's
# second paragraph, indented code), a quote, or a list's next item.
_CONTINUES = re.compile(r"[ \t>]|[-*+][ \t]|\d{1,9}[.)][ \t]")
# The first characters of such lines, and "" (nothing written yet).
_MAY_CONTINUE = {"", " ", "\t", ">", "-", "*", "+", *"0123456789"}
# The open part is drawn again once it has grown by 1/_REDRAW_SHARE of its length
# since it was last drawn (so an answer costs a bounded multiple of its length to
# draw and send), or once REDRAW_AFTER seconds have passed (so words shown as
# plain text meanwhile take their Markdown form soon). Drawing is most of what a
# tab costs the server while an answer streams (bench/ws_fanout.py): the words
# themselves show at once either way.
_REDRAW_SHARE = 4
REDRAW_AFTER = 0.2
# Words whose drawing is themselves, escaped: nothing Markdown reads inline (an
# emphasis, a code span, a link, HTML, an entity, an escape) and no new line.
_PLAIN = re.compile(r"[^\\`*_\[\]!<>&|#~\n\r]*")
# What a drawing may hold unfinished that a plain word could finish: a link or a
# reference ("[a](b" and ")"), an entity ("&amp" and ";"), an escape ("\\" and
# "."), a table row (its cells).
_UNFINISHED = re.compile(r"[\[&\\|]")
# The start of a line whose kind (a paragraph's, a list item's, a quote's) no
# word added after it can change: a character that begins no block, after any
# markers that did.
_DECIDED_LINE = re.compile(r" {0,3}(?:(?:[-+*]|\d{1,9}[.)]|>) +)*[^\s\d\\`*_\[\]!<>&|#=~+-]")
_CLOSING_TAG = re.compile(r"</([a-z][a-z0-9]*)\s*>")
# Elements the renderer draws as blocks (chat.render.markdown): the open part's
# tail goes inside the last of them.
_BLOCKS = frozenset({
    "blockquote", "dd", "div", "dl", "dt", "h1", "h2", "h3", "h4", "h5", "h6",
    "li", "ol", "p", "pre", "table", "tbody", "td", "th", "thead", "tr", "ul",
})  # fmt: skip


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
    settled (to add before the open part), the open part, drawn again (None when
    it need not be), and otherwise the text that came since, as plain text for
    the open part's tail ("" when there is none or no tail to put it in)."""

    settled: str
    open: str | None
    more: str = ""


@dataclass
class LiveAnswer:
    """Where one streaming answer stands on one tab."""

    clock: Callable[[], float] = time.monotonic
    tail_id: str = ""  # the id of the open part's tail ("": drawn without one)
    settled: int = 0  # characters of the text drawn for good
    open_drawn: int = -1  # length of the open part when it was last drawn
    open_seen: int = 0  # length of the open part when it was last drawn or added to
    open_shown: int = 0  # how much of the open part the page shows (more is added after it)
    drawn_at: float = 0.0
    has_tail: bool = False  # whether the open part on the page has a tail
    # Whether the page shows what drawing the open part would: only plain words
    # were added to its tail since it was drawn.
    exact: bool = True
    marked: bool = False  # whether the open part on the page ends with the "…" of a cut answer

    def draw(self, text: str, *, now: bool = False) -> Drawn:
        """What the tab is sent for `text`, the answer so far; `now`: the open part
        drawn again whatever has changed (it is to end with a mark)."""
        point = settle_point(text, self.settled)
        settled = ""
        if point > self.settled:
            settled = drawn_markdown(text[self.settled : point])
            self.settled, self.open_drawn = point, -1
        tail, clock = text[self.settled :], self.clock()
        if not now and self.open_drawn >= 0 and self.has_tail:
            added = tail[self.open_seen :]
            if self.exact and _PLAIN.fullmatch(added) and "\n" not in tail[self.open_shown :]:
                # Drawing it again would show the same: no Markdown in the words.
                self.open_drawn = len(tail)
                return Drawn(settled, None, self._added(tail))
            if not self._due(len(tail), clock):
                self.exact = self.exact and not added
                return Drawn(settled, None, self._added(tail))
        elif not now and not self._due(len(tail), clock):
            return Drawn(settled, None)
        self.open_drawn = self.open_seen = len(tail)
        # A drawing ends at its last words: white space after them comes with the
        # next words added, so they do not run into them.
        self.open_shown = len(tail.rstrip())
        self.drawn_at = clock
        # Plain words added to a line whose kind they could still change ("1" and
        # ". Item", a list) are drawn again.
        line = tail[tail.rfind("\n", 0, self.open_shown) + 1 : self.open_shown]
        self.exact = bool(_DECIDED_LINE.match(line)) and not _UNFINISHED.search(tail)
        self.has_tail = bool(self.tail_id and tail.strip())
        if not tail.strip():
            return Drawn(settled, "")
        drawing = drawn_open(tail, self.tail_id) if self.tail_id else drawn_markdown(tail)
        return Drawn(settled, drawing)

    def _added(self, tail: str) -> str:
        """The words for the tail: what the page does not show yet."""
        more = tail[self.open_shown :] if len(tail) > self.open_seen else ""
        self.open_seen = len(tail)
        self.open_shown += len(more)
        return clean_text(more)

    @property
    def waiting(self) -> bool:
        """Whether words with Markdown in them were added to the tail since the open
        part was drawn (the next drawing is due REDRAW_AFTER after it at the latest)."""
        return self.has_tail and self.open_seen != self.open_drawn

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


@lru_cache(maxsize=64)
def drawn_open(text: str, tail_id: str) -> str:
    """The open part drawn, with an empty tail (`<span id=tail_id>`) just inside its
    last element, where its last words are: a paragraph's, a list item's, a code
    block's. Text added there reads on from them until the next drawing."""
    html = drawn_markdown(text)
    at = _tail_point(html)
    # What follows is closing tags and white space; the space goes, as the words
    # added come with their own (a paragraph's last space, a code block's newline).
    closing = "".join(html[at:].split())
    return f'{html[:at]}<span class="answer-tail" id="{tail_id}"></span>{closing}'


def _tail_point(html: str) -> int:
    """Where the drawn `html`'s last words end: before the closing tags of the
    blocks it ends with (and the white space between them), but inside a last
    inline element's (a `<strong>`), whose look the next words do not share."""
    at, closed = len(html.rstrip()), ""
    while at and html[at - 1] == ">":
        start = html.rfind("<", 0, at)
        tag = _CLOSING_TAG.fullmatch(html, start, at) if start >= 0 else None
        # A code block's text is in <pre><code>: the code's end is the block's.
        if tag is None or (tag[1] not in _BLOCKS and (tag[1], closed) != ("code", "pre")):
            break
        at, closed = start, tag[1]
        while at and html[at - 1].isspace():
            at -= 1
    return at
