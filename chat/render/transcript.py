"""A conversation as the chat panel shows it: turns made of blocks (reasoning,
answer text, tool cards, errors) and a footer with the outcome and usage.

The same shapes come from two places: stored messages (`stored_turns`, for a
page load or a tab catching up) and live events (chat.render.fragments). Both render
through the same templates, so a turn looks the same whichever way it arrived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from django.urls import reverse
from django.utils.safestring import SafeString

from chat.agent.events import AnnouncedCall, chip_labels
from chat.changes import TurnChanges, turns_changes
from chat.models import Compaction, Conversation, Message
from chat.money import dollars
from chat.next_steps import split_next
from chat.records.reply import AssistantRecord
from chat.records.site_check import SiteCheckRecord
from chat.records.tool_calls import CallRecord
from chat.records.tool_result import ToolRecord
from chat.records.turn import TurnRecord
from chat.records.user_message import UserRecord
from chat.render.card_text import is_cut, shown, shown_arguments
from chat.render.cards import CardGroup, ToolCard, card_runs
from chat.render.markdown import render_markdown
from chat.selectors.askers import turn_askers
from chat.selectors.conversations import compactions_of
from chat.selectors.turns import shown_messages, turn_groups, turn_page_start

BlockKind = Literal["answer", "reasoning", "tools", "error", "compaction"]

# Why a turn ended, when it is worth saying.
FINISH_NOTES = {
    "length": "The answer was cut off at the model's output limit.",
    "max_iterations": "Stopped after the maximum number of tool rounds.",
    "cost_limit": "Stopped at the spending limit.",
    "failures": "Stopped after repeated failing tool calls.",
    "stuck": "The model kept repeating the same step, so its tools were switched off.",
    "empty": "The model gave no answer.",
    "stopped": "Stopped.",
}
# What "Build this plan" sends: a normal turn, given the plan to follow.
BUILD_PLAN = "Build this plan:\n"
# Errors a person can fix in Settings.
KEY_ERRORS = {"no_api_key", "bad_api_key", "no_credits"}
# Of one block of answer or reasoning text. With a card's cut (chat.render.card_text),
# this keeps every piece of a turn well under a websocket frame (chat.live.framing);
# the rest is a link away (chat.views.workspace.message_text).
SHOWN_TEXT_CHARS = 32_000
# Between the reasoning of one round and the next, in the turn's one reasoning block.
REASONING_JOIN = "\n\n"
# A bound on a stored or relayed list of a message's pictures as drawn; how
# many a message may carry is BUILTIT_MAX_CHAT_IMAGES, checked when it is sent.
_MAX_PICTURES_DRAWN = 10


@dataclass
class ErrorNote:
    code: str
    message: str
    retryable: bool

    @property
    def needs_key(self) -> bool:
        return self.code in KEY_ERRORS

    @property
    def offers_compact(self) -> bool:
        """A conversation too long for the model: compacting it is one way on."""
        return self.code == "context_too_long"


@dataclass
class Block:
    dom_id: str
    kind: BlockKind
    text: str = ""
    cards: list[ToolCard] = field(default_factory=list)
    error: ErrorNote | None = None
    streaming: bool = False
    full_chars: int = 0  # of the whole text, when only its beginning is kept
    full_url: str = ""
    plan: bool = False  # the answer of a plan turn: shown as a plan, to build
    failed: bool = False  # a compaction that did not come about

    @property
    def build_message(self) -> str:
        """What "Build this plan" sends: the plan, without a "Next:" line still
        on its text (the follow-ups are the person's to pick, not the build's)."""
        return BUILD_PLAN + split_next(self.text)[0]

    @property
    def runs(self) -> list[ToolCard | CardGroup]:
        return card_runs(self.cards)

    @property
    def trimmed(self) -> bool:
        return self.full_chars > len(self.text)

    @property
    def html(self) -> SafeString:
        return render_markdown(self.text)

    def keep(self, text: str, *, url: str = "") -> None:
        """The block's text, cut to what a page shows."""
        self.text = text[:SHOWN_TEXT_CHARS]
        self.full_chars = len(text)
        self.full_url = url if self.trimmed else ""


@dataclass
class Footer:
    dom_id: str
    status: str = "running"  # running, completed, failed, stopped
    finish_reason: str = ""
    tokens: int = 0
    cost: str | None = None
    model: str = ""
    check: SiteCheckRecord | None = None  # the site checked after the turn
    suggestions: tuple[str, ...] = ()  # what the person could ask next (chat.next_steps)

    @property
    def note(self) -> str:
        return FINISH_NOTES.get(self.finish_reason, "")

    @property
    def fix_prompt(self) -> str:
        """What "Fix with the assistant" puts in the message box."""
        if self.check is None:
            return ""
        lines = [
            f"- {f.path}{f':{f.line}' if f.line else ''}: {f.text}" for f in self.check.findings
        ]
        more = self.check.total - len(self.check.findings)
        if more > 0:
            lines.append(f"- and {more} more: run check_site to see them")
        return "Fix what the site check found:\n" + "\n".join(lines)

    @property
    def cost_text(self) -> str:
        return dollars(self.cost)


@dataclass
class TurnView:
    dom_id: str
    text: str
    footer: Footer
    blocks: list[Block] = field(default_factory=list)
    retry_text: str | None = None  # the request again, when retrying makes sense
    sequence: int = 0  # of the user message that began it
    changes: TurnChanges | None = None  # the files it changed, once read
    chips: list[str] = field(default_factory=list)  # what the preview gave the message
    images: list[int] = field(default_factory=list)  # pictures sent with it (chat.images)
    plan: bool = False  # asked for a plan only: nothing is changed
    asked_by: str = ""  # who sent it, named once the project is shared (chat.selectors.askers)
    asked_by_id: int = 0  # and their id, when named (workspace/presence.js marks them)
    # The model reads a summary instead of the turns before this one (chat.agent.compaction).
    summary_before: SummaryMarker | None = None

    @property
    def built_plan(self) -> str:
        """The plan this turn's message carries, when "Build this plan" sent it
        (its bubble then says so, the plan folded under it); "" otherwise."""
        return self.text[len(BUILD_PLAN) :] if self.text.startswith(BUILD_PLAN) else ""

    @property
    def built_plan_html(self) -> SafeString:
        return render_markdown(self.built_plan)

    @property
    def reasoning(self) -> Block | None:
        """The turn's one reasoning block: each round's reasoning joins the first,
        so a turn of several steps has one "Reasoning" to open, not one per step."""
        return next((block for block in self.blocks if block.kind == "reasoning"), None)

    def new_block(self, kind: BlockKind) -> Block:
        block = Block(f"{self.dom_id}-b{len(self.blocks) + 1}", kind)
        self.blocks.append(block)
        return block

    def new_card(self, call: AnnouncedCall) -> ToolCard:
        count = sum(len(block.cards) for block in self.blocks)
        card_id = f"{self.dom_id}-c{count + 1}"
        return ToolCard(
            card_id,
            call.id,
            call.name,
            call.path,
            shown_arguments(call.arguments),
            call.label or call.name,
            call.category,
            call.visibility,
        )


def turn_dom_id(user_message_id: int) -> str:
    return f"t{user_message_id}"


def full_text_url(message_id: int, part: str) -> str:
    return reverse("message_text", kwargs={"message_id": message_id, "part": part})


@dataclass(frozen=True)
class TurnPage:
    turns: list[TurnView]
    earlier: int | None  # turns exist before this sequence number


def turn_page(conversation: Conversation, *, before: int | None, limit: int) -> TurnPage:
    """The last `limit` turns that began before `before` (all, when None)."""
    first, more = turn_page_start(conversation=conversation, before=before, limit=limit)
    if first is None:
        return TurnPage([], None)
    turns = stored_turns(conversation, start=first, before=before)
    return TurnPage(turns, first if more else None)


def stored_turns(
    conversation: Conversation, *, start: int | None = None, before: int | None = None
) -> list[TurnView]:
    """The conversation's turns, from its stored messages (those whose sequence
    numbers lie in [start, before) when given)."""
    groups = turn_groups(shown_messages(conversation=conversation, start=start, before=before))
    changes = turns_changes([request for request, _ in groups])
    askers = turn_askers(
        project_id=conversation.project_id,
        sender_ids=[request.sender_id for request, _ in groups if request.sender_id],
    )
    turns: list[TurnView] = []
    for request, rest in groups:
        turn = _user_turn(request)
        turn.asked_by = askers.get(request.sender_id or 0, "")
        turn.asked_by_id = (request.sender_id or 0) if turn.asked_by else 0
        for message in rest:
            _add_stored(turn, message)
        _unanswered_calls(turn)
        turn.changes = changes[request.pk]
        turns.append(turn)
    _mark_summaries(turns, compactions_of(conversation=conversation), whole=start is None)
    return turns


@dataclass(frozen=True)
class SummaryMarker:
    """Where a summary's turns end: what it says, and of how much."""

    turns: int
    tokens_before: int
    tokens_after: int
    summary: str
    by_hand: bool
    created_at: datetime
    current: bool = True  # the one the model reads (a later summary includes the others)

    @property
    def html(self) -> SafeString:
        return render_markdown(self.summary)


def _mark_summaries(turns: list[TurnView], compactions: list[Compaction], *, whole: bool) -> None:
    """Each summary marked above the first turn it does not cover (the latest
    wins where two end at the same turn). On a page of the conversation (not
    `whole`), its first turn is marked only by a summary that ends just there:
    one that ends before it may end on an earlier page."""
    latest = compactions[-1] if compactions else None
    for compaction in compactions:
        first = next((t for t in turns if t.sequence >= compaction.before_sequence), None)
        if first is None or (
            first is turns[0] and not whole and first.sequence != compaction.before_sequence
        ):
            continue
        first.summary_before = SummaryMarker(
            compaction.turns,
            compaction.tokens_before,
            compaction.tokens_after,
            compaction.summary,
            compaction.by_hand,
            compaction.created_at,
            current=compaction is latest,
        )


def _user_turn(message: Message) -> TurnView:
    dom_id = turn_dom_id(message.pk)
    record = UserRecord.from_stored(message.metadata)
    # A turn without its closing message was cut short (e.g. the server stopped).
    footer = Footer(f"{dom_id}-foot", status="interrupted", model=record.model)
    view = TurnView(dom_id, message.content, footer, sequence=message.sequence)
    view.chips = chip_labels(record.attachments)
    view.images = picture_ids(record.images)
    view.plan = record.plan
    return view


def _add_reasoning(turn: TurnView, text: str, url: str) -> None:
    block = turn.reasoning
    if block is None:
        turn.new_block("reasoning").keep(text, url=url)
    elif block.trimmed:  # only counted, as live (chat.render.fragments)
        block.full_chars += len(REASONING_JOIN + text)
    else:
        block.keep(block.text + REASONING_JOIN + text, url=block.full_url or url)


def picture_ids(stored: object) -> list[int]:
    if not isinstance(stored, list | tuple):
        return []
    ids = [item for item in stored if isinstance(item, int) and not isinstance(item, bool)]
    return ids[:_MAX_PICTURES_DRAWN]


def _add_stored(turn: TurnView, message: Message) -> None:
    if message.role == Message.Role.TOOL:
        _stored_result(turn, message, ToolRecord.from_stored(message.metadata))
        return
    if message.reasoning.strip():
        url = full_text_url(message.pk, "reasoning")
        _add_reasoning(turn, message.reasoning, url)
    answer = None
    if message.content.strip():
        answer = turn.new_block("answer")
        answer.keep(message.content, url=full_text_url(message.pk, "content"))
    calls = CallRecord.all_from(message.tool_calls)
    if calls:
        # Into the steps just before, as live: rounds of calls with no text
        # between them are one list, and quiet calls fold across them.
        last = turn.blocks[-1] if turn.blocks else None
        block = last if last is not None and last.kind == "tools" else turn.new_block("tools")
        for call in calls:
            card = _stored_card(turn, call)
            if is_cut(card.arguments):
                card.arguments_url = full_text_url(message.pk, f"call-{card.call_id}")
            block.cards.append(card)
    record = AssistantRecord.from_stored(message.metadata)
    if record.model:
        turn.footer.model = record.model  # the model that answered, as shown live
    if record.turn is not None:
        _stored_outcome(turn, record.turn)
        if answer is not None:
            answer.plan = is_plan(turn, status=record.turn.status)


def is_plan(turn: TurnView, *, status: str) -> bool:
    """Whether the answer that closes `turn` is a plan to build: the answer of
    a plan turn that finished (a stopped or failed one's is not a whole plan)."""
    return turn.plan and status == "completed"


def _stored_card(turn: TurnView, call: CallRecord) -> ToolCard:
    """A stored call's card, queued until its result message is found."""
    return turn.new_card(AnnouncedCall.of(call.id, call.name, call.arguments))


def _stored_result(turn: TurnView, message: Message, record: ToolRecord) -> None:
    for block in reversed(turn.blocks):
        for card in block.cards:
            if card.call_id == message.tool_call_id and card.state == "queued":
                card.state = "done" if record.ok else "failed"
                card.summary = record.summary
                card.duration_ms = record.duration_ms
                card.result = shown(message.content)
                if is_cut(card.result):
                    card.result_url = full_text_url(message.pk, "content")
                return


def _unanswered_calls(turn: TurnView) -> None:
    """A stored call without a result never ran: its turn was cut short."""
    for block in turn.blocks:
        for card in block.cards:
            if card.state == "queued":
                card.state = "failed"
                card.summary = "Not run: the turn ended before this step."


def _stored_outcome(turn: TurnView, outcome: TurnRecord) -> None:
    footer = turn.footer
    footer.status = outcome.status
    footer.finish_reason = outcome.finish_reason
    footer.tokens = outcome.usage.total_tokens
    footer.cost = outcome.cost
    footer.check = outcome.check
    footer.suggestions = outcome.suggestions
    error = outcome.error
    if error is not None:
        note = ErrorNote(error.code, error.message, error.retryable)
        turn.new_block("error").error = note
        if note.retryable:
            turn.retry_text = turn.text
