"""Live turn events as HTML fragments for htmx's ws extension (DESIGN §7).

Each fragment is an out-of-band swap aimed at a stable id: the turn's article
is added to `#chat-log`, text is appended to its block as it streams, a tool
card is replaced as it goes queued → running → done/failed, and the footer
shows usage and the outcome. A quiet call's card goes into the group of quiet
calls before it (chat.render.cards), whose line is redrawn as it grows and as
its cards finish; only the line, so a group someone opened stays open.

A `TurnDrawing` keeps the turn's shape (its blocks and cards), so every tab
that saw the same events, live or replayed, has the same page.

An answer is drawn as Markdown while it streams (chat.render.streaming): its
settled blocks are added once, its open part drawn again as it grows, at most
once for each batch of events a tab is handed (`flush`). When the block is
complete (the model moved on to tools, or the turn ended) it is replaced by
the finished answer's rendering, which looks the same. Reasoning streams as
escaped text and stays plain.
"""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.html import escape

from chat.agent.events import (
    AnnouncedCall,
    CompactionEvent,
    ContentText,
    ContextEvent,
    Done,
    ErrorEvent,
    Event,
    FilesChanged,
    ReasoningText,
    StreamReset,
    ToolCallsAnnounced,
    ToolExecuting,
    ToolResultEvent,
    TurnStarted,
    UsageEvent,
    chip_labels,
)
from chat.next_steps import shown_while_streaming, split_next
from chat.render.card_text import shown_result
from chat.render.cards import CardGroup, ToolCard, group_of
from chat.render.events import draw
from chat.render.gauge import ContextGauge, compaction_line
from chat.render.streaming import LiveAnswer
from chat.render.transcript import (
    REASONING_JOIN,
    SHOWN_TEXT_CHARS,
    Block,
    ErrorNote,
    Footer,
    TurnView,
    is_plan,
    picture_ids,
    turn_dom_id,
)

# Streamed text goes out in pieces of at most this many characters, each its own
# swap, so chat.live.framing can spread a big burst over several frames.
_PIECE_CHARS = 8_000


def oob(target: str, html: str, *, how: str = "beforeend") -> str:
    """`html` put into `target` (`#id`) by htmx, `how` being a swap style.

    "outerHTML" replaces the element with the same id as `html`'s own element,
    so the attribute goes on that element (a wrapper would stay in the page).
    """
    if how == "outerHTML":
        html = html.strip()
        end = html.index(">") if html.startswith("<") else -1
        if end < 0:
            raise ValueError("an outerHTML swap needs an element")
        tag_end = end - 1 if html[end - 1] == "/" else end
        return f'{html[:tag_end]} hx-swap-oob="true"{html[tag_end:]}'
    # Not stripped: a streamed piece's spaces are part of the text.
    return f'<div hx-swap-oob="{how}:{target}">{html}</div>'


def render(template: str, context: dict[str, object]) -> str:
    return render_to_string(f"chat/partials/{template}", context)


class TurnDrawing:
    """One turn as one tab shows it, updated event by event."""

    def __init__(self, started: TurnStarted) -> None:
        dom_id = turn_dom_id(started.message_id)
        self.turn_id = started.message_id
        self.view = TurnView(dom_id, started.text, Footer(f"{dom_id}-foot", model=started.model))
        self.view.chips = chip_labels(started.attachments)
        self.view.images = picture_ids(started.images)
        self.view.plan = started.plan
        self.view.asked_by = started.asked_by
        self.view.asked_by_id = started.asked_by_id
        self.current: Block | None = None
        # The reasoning block the round being streamed added to, and its text
        # and count before: what a reset takes away again.
        self.joined: tuple[Block, int, int] | None = None
        # How far this tab has drawn the answer streaming now (self.current).
        self.live = LiveAnswer()
        self.finished = False

    def start(self) -> str:
        return oob("#chat-log", render("turn.html", {"turn": self.view}))

    def show(self, event: Event) -> str:
        return draw(self, event)

    @property
    def waiting(self) -> bool:
        """Whether the streaming answer shows words not yet drawn as Markdown."""
        return self._streaming_answer() is not None and self.live.waiting

    def _streaming_answer(self) -> Block | None:
        block = self.current
        return block if block is not None and block.kind == "answer" and block.streaming else None

    def flush(self) -> str:
        """The streaming answer as it now stands, when it grew since last drawn;
        called once a batch of events has been shown."""
        block = self._streaming_answer()
        if block is None:
            return ""
        # Past what a page shows, the drawing ends with a mark, once.
        marking = block.trimmed and not self.live.marked
        drawn = self.live.draw(shown_while_streaming(block.text), now=marking)
        html = (
            oob(f"#{block.dom_id}-open", drawn.settled, how="beforebegin") if drawn.settled else ""
        )
        if drawn.open is not None:
            more = '<p class="answer-more">…</p>' if block.trimmed else ""
            self.live.marked = block.trimmed
            html += oob(f"#{block.dom_id}-open", drawn.open + more, how="innerHTML")
        elif drawn.more:
            html += oob(f"#{self.live.tail_id}", escape(drawn.more))
        return html

    # --- one method per event (chat.render.events.EventRenderer) ------------------

    def turn_started(self, event: TurnStarted) -> str:
        return ""  # drawn by start(), which the tab calls when it begins to follow

    def content(self, event: ContentText) -> str:
        return self._text("answer", event.text)

    def reasoning(self, event: ReasoningText) -> str:
        return self._text("reasoning", event.text)

    def stream_reset(self, event: StreamReset) -> str:
        return self._reset()

    def tool_calls(self, event: ToolCallsAnnounced) -> str:
        return self._cards(event.calls)

    def files_changed(self, event: FilesChanged) -> str:
        return ""  # the tab redraws the file tree (chat.live.consumers)

    def tool_executing(self, event: ToolExecuting) -> str:
        card = self._card(event.id, {"queued"})
        if card is None:
            return ""
        card.state = "running"
        return self._card_html(card) + self._group_line_html(card)

    def tool_result(self, event: ToolResultEvent) -> str:
        card = self._card(event.id, {"queued", "running"})
        if card is None:
            return ""
        card.state = "done" if event.ok else "failed"
        card.summary = event.summary
        card.duration_ms = event.duration_ms
        card.result = shown_result(event.result)
        return self._card_html(card) + self._group_line_html(card)

    def usage(self, event: UsageEvent) -> str:
        footer = self.view.footer
        footer.tokens = event.turn_tokens
        footer.cost = event.turn_cost
        footer.model = event.model or footer.model
        return self._footer_html()

    def context(self, event: ContextEvent) -> str:
        """The gauge by the message box (chat.render.panel.composer_gauge_html)."""
        html = render("composer_gauge.html", {"gauge": ContextGauge.of(event.record)})
        return oob("#composer-gauge", html, how="outerHTML")

    def compaction(self, event: CompactionEvent) -> str:
        """One line in the steps, "running" then what came of it."""
        block = next((b for b in self.view.blocks if b.kind == "compaction"), None)
        fresh = block is None
        if block is None:
            block = self.view.new_block("compaction")
        block.text = compaction_line(event)
        block.streaming = event.state == "running"
        block.failed = event.state == "failed"
        return self._append_block(block) if fresh else self._block_html(block, how="outerHTML")

    def error(self, event: ErrorEvent) -> str:
        html = self._close_text()
        block = self.view.new_block("error")
        block.error = ErrorNote(event.code, event.message, event.retryable)
        if event.retryable:
            self.view.retry_text = self.view.text
        self.current = block
        return html + self._append_block(block)

    def done(self, event: Done) -> str:
        block = self.current
        if block is not None and block.kind == "answer" and block.streaming:
            # As the loop stored it: the "Next:" line streamed in becomes the chips
            # (and no longer counts in the text's length).
            kept = split_next(block.text)[0]
            block.full_chars -= len(block.text) - len(kept)
            block.text = kept
        html = self._plan(event) + self._close_text()
        footer = self.view.footer
        footer.status = event.status
        footer.finish_reason = event.finish_reason
        footer.tokens = event.total_tokens or footer.tokens
        footer.cost = event.cost if event.cost is not None else footer.cost
        footer.check = event.check
        footer.suggestions = event.suggestions
        self.finished = True
        return html + self._footer_html()

    def _plan(self, done: Done) -> str:
        """A plan turn's answer (its last block) becomes its plan, with "Build
        this plan"; drawn here unless it is still streaming (then as it closes)."""
        last = self.view.blocks[-1] if self.view.blocks else None
        if last is None or last.kind != "answer" or not is_plan(self.view, status=done.status):
            return ""
        last.plan = True
        return "" if last.streaming else self._block_html(last, how="outerHTML")

    # --- text blocks -------------------------------------------------------------

    def _text(self, kind: str, text: str) -> str:
        block = self.current
        if block is not None and block.kind == kind and block.streaming:
            return self._stream(block, text)
        html = self._close_text()
        earlier = self.view.reasoning if kind == "reasoning" else None
        if earlier is not None:  # a later round's reasoning joins the first (TurnView.reasoning)
            self.joined = (earlier, len(earlier.text), earlier.full_chars)
            earlier.streaming = True
            self.current = earlier
            return html + self._stream(earlier, REASONING_JOIN + text)
        if kind == "answer":
            block = self.current = self.view.new_block("answer")
            block.streaming = True
            self.live = LiveAnswer(tail_id=f"{block.dom_id}-tail")
            return html + self._append_block(block) + self._stream(block, text)
        block = self.current = self.view.new_block("reasoning")
        block.text, block.streaming = text[:_PIECE_CHARS], True
        html += self._append_block(block)
        rest = text[_PIECE_CHARS:]
        return html + (self._stream(block, rest) if rest else "")

    def _stream(self, block: Block, text: str) -> str:
        """More text for a streaming block; past what a page shows (SHOWN_TEXT_CHARS)
        only counted, so no frame grows with it. An answer's is drawn by `flush`;
        reasoning's is sent as it comes, in pieces of a bounded size."""
        was_trimmed = block.trimmed
        shown = text[: max(SHOWN_TEXT_CHARS - len(block.text), 0)]
        block.full_chars = max(block.full_chars, len(block.text)) + len(text)
        block.text += shown
        if block.kind == "answer":
            return ""
        target = f"#{block.dom_id}-text"
        pieces = [shown[i : i + _PIECE_CHARS] for i in range(0, len(shown), _PIECE_CHARS)]
        if block.trimmed and not was_trimmed:
            pieces.append("\n…")
        return "".join(oob(target, escape(piece)) for piece in pieces)

    def _reset(self) -> str:
        """The answer being streamed is asked for again: its text and reasoning so
        far go, as they are not stored either."""
        html = []
        blocks = self.view.blocks
        if self.joined is not None:
            block, length, full = self.joined
            block.text, block.full_chars, block.streaming = block.text[:length], full, False
            html.append(self._block_html(block, how="outerHTML"))
        self.joined = None
        # The text blocks since the last cards are the failed request's.
        while blocks and blocks[-1].kind in {"answer", "reasoning"}:
            gone = blocks.pop()
            html.append(f'<div id="{gone.dom_id}" hx-swap-oob="delete"></div>')
        self.current = blocks[-1] if blocks else None
        return "".join(html)

    def _close_text(self) -> str:
        """The streaming block (if any) is complete: show it rendered."""
        block = self.current
        if block is None or not block.streaming:
            return ""
        block.streaming = False
        if block.kind != "answer":
            return ""  # reasoning stays plain text
        return self._block_html(block, how="outerHTML")

    def _cards(self, calls: tuple[AnnouncedCall, ...]) -> str:
        """Queued cards: into the current list of cards, or a new one."""
        html = self._close_text()
        self.joined = None  # the round's text is complete: a reset no longer takes it
        block = self.current
        fresh = block is None or block.kind != "tools"
        if fresh:
            block = self.current = self.view.new_block("tools")
        assert block is not None
        placed = []
        # One at a time: a card's number counts those already placed, and a group
        # drawn for its first card must not already hold the next.
        for call in calls:
            block.cards.append(self.view.new_card(call))
            if not fresh:
                placed.append(self._placed(block, block.cards[-1]))
        return html + (self._append_block(block) if fresh else "".join(placed))

    def _placed(self, block: Block, card: ToolCard) -> str:
        """The swap that shows `card`, just added to the end of `block`: on its own,
        as a new group of quiet calls, or into the group before it."""
        group = group_of(block.cards, card)
        if group is None:
            return oob(f"#{block.dom_id}", render("tool_card.html", {"card": card}))
        if group.cards[0] is card:
            return oob(f"#{block.dom_id}", render("tool_group.html", {"group": group}))
        shown_card = oob(f"#{group.dom_id}-cards", render("tool_card.html", {"card": card}))
        return shown_card + self._line_html(group)

    # --- pieces as html ----------------------------------------------------------

    def _append_block(self, block: Block) -> str:
        return oob(
            f"#{self.view.dom_id}-steps", render("block.html", {"block": block, "turn": self.view})
        )

    def _block_html(self, block: Block, *, how: str) -> str:
        html = render("block.html", {"block": block, "turn": self.view})
        return oob(f"#{block.dom_id}", html, how=how)

    def _card(self, call_id: str, states: set[str]) -> ToolCard | None:
        for block in self.view.blocks:
            for card in block.cards:
                if card.call_id == call_id and card.state in states:
                    return card
        return None

    def _card_html(self, card: ToolCard) -> str:
        return oob(f"#{card.dom_id}", render("tool_card.html", {"card": card}), how="outerHTML")

    def _group_line_html(self, card: ToolCard) -> str:
        """The line of the group `card` is in, if it is in one: its count or state changed."""
        for block in self.view.blocks:
            if any(member is card for member in block.cards):
                group = group_of(block.cards, card)
                return "" if group is None else self._line_html(group)
        return ""

    def _line_html(self, group: CardGroup) -> str:
        html = render("tool_group_line.html", {"group": group})
        return oob(f"#{group.dom_id}-line", html, how="outerHTML")

    def _footer_html(self) -> str:
        html = render("turn_footer.html", {"turn": self.view})
        return oob(f"#{self.view.footer.dom_id}", html, how="outerHTML")
