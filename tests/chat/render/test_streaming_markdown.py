"""An answer drawn as Markdown while it streams: what the tab shows as each piece
arrives, and that the finished answer replaces it without a visible change."""

from __future__ import annotations

import re
from html import escape, unescape

import pytest

from chat.agent.events import ContentText, Done, TurnStarted
from chat.render.fragments import TurnDrawing
from chat.render.markdown import render_markdown
from chat.render.streaming import REDRAW_AFTER, Drawn, LiveAnswer, settle_point
from chat.render.transcript import SHOWN_TEXT_CHARS

ANSWERS = {
    "paragraphs": "I built your bakery site.\n\nIt has a **menu** and a contact form.\n\nEnjoy!",
    "a list after a line": "Done:\n- a menu page\n- a green header\n\nAsk for more.",
    "a loose list": "Steps:\n\n1. Open the page\n\n2. Click *Publish*\n\n3. Share it\n\nThe end.",
    "nested list": "- one\n  - one a\n\n  more of one\n- two\n\nEnd.",
    "code with blank lines": (
        "Add this:\n\n```css\nh1 {\n  color: teal;\n}\n\n\np { margin: 0; }\n```\n\nDone."
    ),
    "a fence never closed": "Here:\n\n```html\n<h1>Hi</h1>\n\n<p>cut off",
    "quotes": "> a quote\n\n> that goes on\n\nAnd a line.",
    "a table": "| Page | Size |\n|---|---:|\n| index | 2 KB |\n\nNext: more",
    "headings": "# Title\n\nSome text\n\n## Part\n\n---\n\nLast.",
    "indented code": "Run:\n\n    make run\n\n    make test\n\nThen open it.",
    "hostile": (
        'Look <script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n'
        "[click](javascript:alert(3)) and [file](/about.html)\n\n```\n</pre><script>x</script>\n```"
    ),
}


def shown(live: LiveAnswer, text: str, pieces: list[str]) -> tuple[str, str]:
    """The page's answer block after each piece of `text` was drawn: settled + open."""
    settled, open_part = "", ""
    for end in _ends(text, pieces):
        drawn = live.draw(text[:end])
        settled += drawn.settled
        open_part = drawn.open if drawn.open is not None else open_part
    return settled, open_part


def _ends(text: str, pieces: list[str]) -> list[int]:
    ends, at = [], 0
    for piece in pieces:
        at += len(piece)
        ends.append(at)
    assert at == len(text)
    return ends


def chunked(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def same_look(html: str) -> str:
    """Markup as a browser lays it out: whitespace between tags makes no box."""
    return re.sub(r">\s+<", "><", html.strip())


@pytest.mark.parametrize("name", ANSWERS)
@pytest.mark.parametrize("size", [1, 3, 17, 10_000])
def test_the_streamed_drawing_is_the_finished_answer(name: str, size: int) -> None:
    text, ticks = ANSWERS[name], iter(range(1_000_000))
    # A slow model: every piece is drawn (a fast one's last pieces wait for the end).
    settled, open_part = shown(LiveAnswer(clock=lambda: next(ticks)), text, chunked(text, size))

    assert same_look(settled + open_part) == same_look(render_markdown(text))


def page(live: LiveAnswer, text: str, pieces: list[str]) -> tuple[str, int]:
    """The page's answer block after each piece was handed to a tab that draws with a
    tail (settled + open part + the words added to its tail), and how often the open
    part was drawn."""
    settled, open_part, tail, drawings = "", "", "", 0
    for end in _ends(text, pieces):
        drawn = live.draw(text[:end])
        settled += drawn.settled
        if drawn.open is not None:
            open_part, tail, drawings = drawn.open, "", drawings + 1
        tail += escape(drawn.more)
    return settled + open_part.replace(TAIL, f"{TAIL[:-7]}{tail}</span>"), drawings


TAIL = '<span class="answer-tail" id="T"></span>'


def looks(html: str) -> str:
    """What a person reads: the markup without the tail's span, spaces as a browser
    lays them out (none at a block's end), characters as shown."""
    html = html.replace(TAIL[:-7], "").replace("</span>", "")
    return re.sub(r" </", "</", " ".join(unescape(same_look(html)).split()))


@pytest.mark.parametrize("name", ANSWERS)
@pytest.mark.parametrize("size", [1, 3, 17])
def test_with_words_added_at_the_tail_the_page_reads_as_the_finished_answer(
    name: str, size: int
) -> None:
    text, ticks = ANSWERS[name], iter(range(1_000_000))
    shown, _ = page(LiveAnswer(clock=lambda: next(ticks), tail_id="T"), text, chunked(text, size))

    assert looks(shown) == looks(render_markdown(text))


def test_plain_words_are_added_as_they_come_and_never_drawn_again() -> None:
    text = "Fresh bread and cakes every morning, baked by hand. " * 60
    shown, drawings = page(LiveAnswer(clock=lambda: 0.0, tail_id="T"), text, chunked(text, 5))

    assert drawings == 1  # the first word
    assert looks(shown) == looks(render_markdown(text))


@pytest.mark.parametrize(
    ("first", "then", "drawn"),
    [
        ("Here is the plan, step by step:\n", "- open the page", "<li>open the page"),
        ("Fresh bread and cakes every morning\n", "===", "<h3>"),
        ("1", ". Open the page", "<ol>"),
        ("   ", " make run", "<code>make run"),
    ],
)
def test_plain_words_that_may_change_what_a_line_is_are_drawn_again(
    first: str, then: str, drawn: str
) -> None:
    now = [0.0]
    live = LiveAnswer(clock=lambda: now[0], tail_id="T")
    pieces = [first, *then]  # a fast model, a character at a time
    shown, _ = page(live, first + then, pieces)
    if live.waiting:  # shown as plain text for now: drawn once its time has come
        now[0] += REDRAW_AFTER
        shown, _ = page(live, first + then, [first + then])
    assert not live.waiting
    assert drawn in shown.replace(TAIL[:-7], "").replace("</span>", "")


@pytest.mark.parametrize(
    "pieces",
    [
        ["See the ", "[docs]", "(https://example.com/a", ")", " for more", " info."],
        ["This is ", "~~old~~", " new text"],
        ["Tom &amp", ";", " Jerry"],
        ["Say hi\\", ".", " Then go"],
        ["Title", "\r===", ""],
        ["| a | b |\n|---|---|\n| c", " more words here"],
    ],
)
def test_plain_words_that_finish_markdown_begun_before_are_drawn_again(
    pieces: list[str],
) -> None:
    now = [0.0]
    live = LiveAnswer(clock=lambda: now[0], tail_id="T")
    text = "".join(pieces)
    shown, _ = page(live, text, pieces)
    if live.waiting:
        now[0] += REDRAW_AFTER
        shown, _ = page(live, text, [text])

    assert looks(shown) == looks(render_markdown(text))


def test_words_with_markdown_wait_for_the_next_drawing() -> None:
    now = [0.0]
    live = LiveAnswer(clock=lambda: now[0], tail_id="T")
    text = "Fresh bread and cakes every morning. " * 20
    live.draw(text)
    assert live.draw(text + "Our ").more == " Our "
    assert not live.waiting  # plain: the page is as drawn
    assert live.draw(text + "Our **rye**").more == "**rye**"
    assert live.waiting
    now[0] += REDRAW_AFTER
    drawn = live.draw(text + "Our **rye**")
    assert drawn.open is not None
    assert "Our <strong>rye</strong>" in drawn.open
    assert not live.waiting


# What the finished answer may hold (chat.render.markdown), and the Copy button's div.
TAGS = {"p", "br", "hr", "h3", "h4", "h5", "h6", "strong", "em", "del", "code", "pre"}
TAGS |= {"blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td"}
TAGS |= {"div", "button"}


@pytest.mark.parametrize("name", ANSWERS)
def test_every_drawing_on_the_way_is_sanitised_as_the_finished_answer(name: str) -> None:
    live, text = LiveAnswer(clock=lambda: 0.0), ANSWERS[name]
    for end in range(1, len(text) + 1):
        drawn = live.draw(text[:end])
        for html in (drawn.settled, drawn.open or ""):
            assert set(re.findall(r"<(\w+)", html)) <= TAGS
            assert not re.search(r"<[^>]*\son\w+=", html)
            assert not re.search(r'href="(?!https?:|mailto:)', html)


@pytest.mark.parametrize(
    ("text", "settled"),
    [
        ("One.\n\nTwo", "One.\n\n"),
        ("One.\n\nT", "One.\n\n"),  # a line still being written that begins a block...
        ("One.\n\n1", ""),  # ...not one that may yet be the list's next item ("1.")
        ("One.\n\n", ""),  # nor before anything says what comes
        ("One.\nTwo.\n\nThree.\n", "One.\nTwo.\n\n"),
        ("- a\n\n- b\n", ""),  # a loose list stays one list
        ("1. a\n\n2. b\n\nAfter\n", "1. a\n\n2. b\n\n"),
        ("- a\n\n  more of a\n", ""),  # the item's second paragraph
        ("> a\n\n> b\n", ""),
        ("```\ncode\n\nmore code\n", ""),  # a blank line inside a fence settles nothing
        ("```\ncode\n\n```\n\nAfter\n", "```\ncode\n\n```\n\n"),
        ("Text\n\n    code\n", ""),
    ],
)
def test_text_settles_only_where_a_block_of_its_own_begins(text: str, settled: str) -> None:
    assert text[: settle_point(text)] == settled


def test_a_long_paragraph_is_drawn_a_bounded_number_of_times() -> None:
    paragraph = "Fresh bread and cakes every morning. " * 1_000  # 37,000 characters
    # A fast model: no time passes between its pieces.
    live, draws, sent = LiveAnswer(clock=lambda: 0.0), 0, 0
    for end in _ends(paragraph, chunked(paragraph, 4)):
        drawn = live.draw(paragraph[:end])
        if drawn.open is not None:
            draws += 1
            sent += len(drawn.open)

    # Drawn again each time it grew by a quarter: what is sent is a bounded multiple
    # of the paragraph (drawn at every piece, it would be its square: 4,600 times).
    assert draws < 40
    assert sent < 5 * len(paragraph)


def test_a_slow_models_words_are_drawn_as_they_come() -> None:
    now = [0.0]
    live = LiveAnswer(clock=lambda: now[0])
    text = "Fresh bread and cakes every morning. " * 100
    live.draw(text)
    assert live.draw(text + "Rye").open is None  # a fast model's next piece waits...
    now[0] += 0.5
    assert live.draw(text + "Rye").open is not None  # ...a slow one's does not


def test_between_drawings_each_piece_shows_at_once_as_plain_text_after_the_last_words() -> None:
    live = LiveAnswer(clock=lambda: 0.0, tail_id="T")
    text = "Fresh bread and cakes every morning. " * 100
    drawn = live.draw(text)
    assert drawn.open is not None
    assert drawn.open.endswith('morning.<span class="answer-tail" id="T"></span></p>')

    # A fast model's next pieces wait for the next drawing, but are not held back:
    # each comes as text for the tail, the space the drawing left out first.
    assert live.draw(text + "Rye") == Drawn("", None, " Rye")
    assert live.draw(text + "Rye and *spelt*") == Drawn("", None, " and *spelt*")
    assert live.draw(text + "Rye and *spelt*") == Drawn("", None, "")  # nothing new
    # Once drawn again, the tail's text is in its Markdown form.
    redrawn = live.draw(text + "Rye and *spelt*" + " loaves." * 200).open
    assert redrawn is not None
    assert "Rye and <em>spelt</em> loaves." in redrawn


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("A paragraph", "<p>A paragraph<tail></p>"),
        ("- one\n- two", "<li>two<tail></li></ul>"),
        ("> a quote\n> on", "<p>a quote\non<tail></p></blockquote>"),
        ("# A heading", "<h3>A heading<tail></h3>"),
        ("```py\nx = 1\n", "x = 1<tail></code></pre></div>"),
        ("---", "<hr><tail>"),
        ("Some **bold**", "<p>Some <strong>bold</strong><tail></p>"),
        ("A page: `/about.html`", "<code>/about.html</code><tail></p>"),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "<td>2<tail></td></tr></tbody></table>"),
    ],
)
def test_the_tail_is_where_the_open_parts_last_words_are(text: str, ends: str) -> None:
    drawn = LiveAnswer(tail_id="T").draw(text).open
    assert drawn is not None
    assert drawn.replace('<span class="answer-tail" id="T"></span>', "<tail>").endswith(ends)


def test_text_for_the_tail_is_escaped() -> None:
    turn = TurnDrawing(STARTED)
    turn.start()
    turn.show(ContentText("Fresh bread and cakes every morning. " * 100))
    turn.flush()
    turn.show(ContentText('<img src=x onerror="alert(1)"> & <script>alert(2)</script>'))

    assert turn.flush() == (
        '<div hx-swap-oob="beforeend:#t7-b1-tail">'
        " &lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp;"
        " &lt;script&gt;alert(2)&lt;/script&gt;"
        "</div>"
    )


def test_the_open_part_is_not_drawn_again_when_nothing_changed() -> None:
    live = LiveAnswer()
    assert live.draw("Fresh bread").open == "<p>Fresh bread</p>"
    assert live.draw("Fresh bread").open is None


STARTED = TurnStarted(1, 7, "openai/gpt-5-mini", "Write a lot")


def test_an_answer_past_what_a_page_shows_ends_its_drawing_with_a_mark() -> None:
    turn = TurnDrawing(STARTED)
    turn.start()
    turn.show(ContentText("word " * (SHOWN_TEXT_CHARS // 5 + 100)))
    drawn = turn.flush()

    assert drawn.endswith('<p class="answer-more">…</p></div>')
    ended = turn.show(Done("stop", "completed", 1, 9))
    assert "Showing the first" in ended


def test_plain_words_that_reach_what_a_page_shows_end_the_drawing_with_a_mark() -> None:
    turn = TurnDrawing(STARTED)
    turn.start()
    turn.show(ContentText("word "))
    assert "answer-more" not in turn.flush()
    # Plain words, a piece at a time: added at the tail, until the page is full.
    fragments = ""
    for _ in range(SHOWN_TEXT_CHARS // 5 + 10):
        turn.show(ContentText("word "))
        fragments += turn.flush()

    assert fragments.count('<p class="answer-more">…</p>') == 1
    assert turn.flush() == ""


def test_a_batch_of_pieces_is_drawn_once() -> None:
    turn = TurnDrawing(STARTED)
    turn.start()
    shown_now = "".join(turn.show(ContentText(word)) for word in ("Fresh ", "**bread**", " daily"))

    assert "hx-swap-oob" in shown_now  # the block, still empty
    assert "bread" not in shown_now
    drawn = turn.flush()
    assert drawn == (
        '<div hx-swap-oob="innerHTML:#t7-b1-open"><p>Fresh <strong>bread</strong> daily'
        '<span class="answer-tail" id="t7-b1-tail"></span></p></div>'
    )
    assert turn.flush() == ""


def composed(fragments: str, block: str = "t7-b1") -> str:
    """What a tab's answer block reads after these fragments: the settled blocks,
    the open part as last drawn, the words added to its tail since."""
    settled, open_part, tail = "", "", ""
    for swap in re.findall(
        r'<div hx-swap-oob="([^"]+)">(.*?)</div>(?=<div hx-swap-oob|\Z)', fragments, re.S
    ):
        how, html = swap
        if how == f"beforebegin:#{block}-open":
            settled += html
        elif how == f"innerHTML:#{block}-open":
            open_part, tail = html, ""
        elif how == f"beforeend:#{block}-tail":
            tail += html
    return looks(settled + open_part.replace(TAIL.replace('"T"', f'"{block}-tail"'), tail))


def test_the_closing_next_line_never_shows_while_the_answer_streams() -> None:
    turn = TurnDrawing(STARTED)
    turn.start()
    answer = "Done: the site is built.\nNext: Add a contact form | Make the header green"
    shown = ""
    for piece in chunked(answer, 3):
        turn.show(ContentText(piece))
        shown += turn.flush()
    # It would vanish when the answer ends, into the suggestions under the turn.
    assert composed(shown) == "<p>Done: the site is built.</p>"
    assert "Next" not in shown


def test_a_line_that_only_began_like_the_next_line_shows_once_the_next_one_begins() -> None:
    turn = TurnDrawing(STARTED)
    turn.start()
    shown = ""
    for piece in chunked("Here it is.\nNext, open the page.\nNew pages follow", 4):
        turn.show(ContentText(piece))
        shown += turn.flush()
    assert composed(shown) == "<p>Here it is. Next, open the page. New pages follow</p>"
