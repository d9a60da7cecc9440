"""The pieces behind the chat socket, each on its own: frames as the browser sends
them, text pieces merged for the channel layer, live events drawn as htmx fragments,
stored messages drawn as the same turn, and events through JSON and back."""

from __future__ import annotations

import json
import re
from typing import Any, get_args

import pytest
from django.urls import reverse
from pytest_django.fixtures import Settings as SettingsWrapper

from chat import services
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
    from_json,
    to_json,
)
from chat.live.frames import Frame, FrameRefused, frame_limit, parse_frame
from chat.live.numbering import Numbered, merged, merged_numbered
from chat.models import Conversation, Message
from chat.records.reply import AssistantRecord
from chat.records.tool_result import ToolRecord
from chat.render.fragments import TurnDrawing
from chat.render.transcript import TurnView, stored_turns
from chat.services import message_too_long
from common.jsontypes import JSONObject
from projects.models import Project

# --- frames ---------------------------------------------------------------------------

GOOD_FRAMES = {
    "a message": ('{"message": "Add a contact page"}', Frame("message", "Add a contact page")),
    "with a model": (
        '{"message": "hi", "model": "  openai/gpt-5-mini "}',
        Frame("message", "hi", "openai/gpt-5-mini"),
    ),
    "htmx's form": (
        '{"message": "hi", "model": "", "HEADERS": {"HX-Request": "true"}}',
        Frame("message", "hi", ""),
    ),
    "an explicit action": ('{"action": "message", "message": "hi"}', Frame("message", "hi")),
    "stop": ('{"action": "stop"}', Frame("stop")),
    "stop from the form": ('{"action": "stop", "HEADERS": {}}', Frame("stop")),
    "stop wins over a message": ('{"action": "stop", "message": "hi"}', Frame("stop")),
}


@pytest.mark.parametrize(("text", "frame"), GOOD_FRAMES.values(), ids=GOOD_FRAMES.keys())
def test_parse_frame_reads_what_the_page_sends(text: str, frame: Frame) -> None:
    assert parse_frame(text) == frame


BAD_FRAMES = {
    "binary": (None, "as JSON text"),
    "not JSON": ("make me a site", "it was not JSON"),
    "an array": ('["hi"]', "expected a JSON object"),
    "a string": ('"hi"', "expected a JSON object"),
    "null": ("null", "expected a JSON object"),
    "nested too deep": ("[" * 10_000 + "]" * 10_000, "it was not JSON"),
    "no action and no message": ('{"model": "openai/gpt-5-mini"}', "Unknown request"),
    "an unknown action": ('{"action": "dance"}', "Unknown request"),
    "a message that is a number": ('{"message": 5}', "Write a message first"),
    "a message that is null": ('{"message": null}', "Write a message first"),
    "a model that is a number": ('{"message": "hi", "model": 5}', "must be given as text"),
}


@pytest.mark.parametrize(("text", "says"), BAD_FRAMES.values(), ids=BAD_FRAMES.keys())
def test_parse_frame_explains_what_it_cannot_use(text: str | None, says: str) -> None:
    parsed = parse_frame(text)

    assert isinstance(parsed, FrameRefused)
    assert says in parsed.message


def test_a_frame_past_the_limit_is_refused_before_it_is_parsed(
    settings: SettingsWrapper,
) -> None:
    settings.BUILTIT_MAX_MESSAGE_CHARS = 100
    longest = json.dumps({"message": "\u2603" * 100})  # escaped: 6 characters each
    too_long = json.dumps({"message": "x" * frame_limit()})

    assert parse_frame(longest) == Frame("message", "\u2603" * 100)
    refused = parse_frame(too_long)
    assert isinstance(refused, FrameRefused)
    assert refused.message == message_too_long().message
    assert "at most 100 characters. Nothing was sent" in refused.message


# --- text pieces merged -----------------------------------------------------------------


def test_merged_joins_adjacent_text_of_one_kind_and_keeps_the_rest() -> None:
    executing = ToolExecuting("call_1", "read_file")
    events: list[Event] = [
        ContentText("Hel"),
        ContentText("lo"),
        ReasoningText("th"),
        ReasoningText("ink"),
        ContentText(" world"),
        executing,
        ContentText("!"),
    ]

    assert merged(events) == [
        ContentText("Hello"),
        ReasoningText("think"),
        ContentText(" world"),
        executing,
        ContentText("!"),
    ]
    assert merged([]) == []


def numbered(*events: Event) -> list[Numbered]:
    return [Numbered(n, event) for n, event in enumerate(events, start=1)]


def test_compacted_joins_adjacent_text_and_keeps_the_last_number() -> None:
    started = TurnStarted(3, 7, "openai/gpt-5-mini", "hi")
    executing = ToolExecuting("call_1", "read_file")
    history = numbered(
        started,
        ContentText("Hel"),
        ContentText("lo"),
        ReasoningText("a"),
        ReasoningText("b"),
        ContentText("!"),
        executing,
    )
    before = list(history)

    assert merged_numbered(history) == [
        Numbered(1, started),
        Numbered(3, ContentText("Hello")),
        Numbered(5, ReasoningText("ab")),
        Numbered(6, ContentText("!")),
        Numbered(7, executing),
    ]
    assert history == before  # the turn's own history is left as it was


# --- live events as fragments -------------------------------------------------------------

STARTED = TurnStarted(1, 7, "openai/gpt-5-mini", "Make a <b>bakery</b> site")
PAGE_CALL = AnnouncedCall(
    "call_a", "create_file", '{"path": "/index.html", "content": "<h1>Hi</h1>"}', "/index.html"
)
STYLE_CALL = AnnouncedCall(
    "call_b", "create_file", '{"path": "/styles.css", "content": "body {}"}', "/styles.css"
)


def page_result() -> ToolResultEvent:
    summary = "Created /index.html"
    return ToolResultEvent(
        "call_a", "create_file", True, summary, {"ok": True}, 12.0, "/index.html"
    )


def drawn(*events: Event) -> tuple[TurnDrawing, list[str]]:
    """A live turn fed STARTED and `events`; the fragments each one produced."""
    turn = TurnDrawing(STARTED)
    # As a tab is handed them: one event at a time, the streaming answer drawn after each.
    return turn, [turn.start()] + [turn.show(event) + turn.flush() for event in events]


def card_states(html: str) -> list[tuple[str, str]]:
    return re.findall(r'id="(t7-c\d+)" data-state="(\w+)"', html)


def test_the_turn_starts_with_the_persons_message_escaped_at_the_end_of_the_log() -> None:
    _, (article,) = drawn()

    assert article.startswith(
        '<div hx-swap-oob="beforeend:#chat-log"><article class="turn" id="t7">'
    )
    assert "Make a &lt;b&gt;bakery&lt;/b&gt; site" in article
    assert 'id="t7-steps"' in article
    assert '<footer class="turn-footer running" id="t7-foot">' in article


def test_streamed_text_is_drawn_as_markdown_as_it_arrives_then_as_the_finished_answer() -> None:
    _, (_, opened, added, closed) = drawn(
        ContentText("Fresh "),
        ContentText("**bread** <script>x()</script>"),
        Done("stop", "completed", 1, 9),
    )

    assert opened.startswith('<div hx-swap-oob="beforeend:#t7-steps">')
    assert (
        '<div class="answer streaming" id="t7-b1"><div class="answer-open" id="t7-b1-open">'
        in opened
    )
    assert '<div hx-swap-oob="innerHTML:#t7-b1-open"><p>Fresh' in opened
    # The open block drawn again, as Markdown and sanitised, before it ends.
    assert added.startswith('<div hx-swap-oob="innerHTML:#t7-b1-open">')
    assert "<strong>bread</strong>" in added
    assert "&lt;script&gt;x()&lt;/script&gt;" in added
    assert '<div class="answer" id="t7-b1" hx-swap-oob="true">' in closed
    assert "<strong>bread</strong>" in closed
    assert "<script" not in (opened + added + closed).lower()


def test_reasoning_streams_into_its_own_block_and_stays_plain_text() -> None:
    _, (_, opened, added, answer) = drawn(
        ReasoningText("Plan **the** page"), ReasoningText(" first"), ContentText("Done.")
    )

    assert '<details class="reasoning" id="t7-b1">' in opened
    assert "Plan **the** page" in opened
    assert added.startswith('<div hx-swap-oob="beforeend:#t7-b1-text">')
    assert "<strong>" not in answer  # reasoning is never re-rendered
    assert '<div class="answer streaming" id="t7-b2">' in answer
    assert '<p>Done.<span class="answer-tail" id="t7-b2-tail"></span></p>' in answer


def test_a_later_rounds_reasoning_joins_the_turns_one_reasoning_toggle() -> None:
    turn, fragments = drawn(
        ReasoningText("Look at the page."),
        ToolCallsAnnounced((PAGE_CALL,)),
        page_result(),
        ReasoningText("Now the styles."),
    )

    assert [block.kind for block in turn.view.blocks] == ["reasoning", "tools"]
    assert turn.view.blocks[0].text == "Look at the page.\n\nNow the styles."
    assert fragments[-1].startswith('<div hx-swap-oob="beforeend:#t7-b1-text">')
    assert "<details" not in fragments[-1]


def test_a_reset_takes_back_the_reasoning_its_round_joined() -> None:
    turn, fragments = drawn(
        ReasoningText("Look at the page."),
        ToolCallsAnnounced((PAGE_CALL,)),
        page_result(),
        ReasoningText("Half a thou"),
        StreamReset("asking again"),
    )

    assert turn.view.blocks[0].text == "Look at the page."
    assert '<details class="reasoning" id="t7-b1" hx-swap-oob="true">' in fragments[-1]
    assert "Half a thou" not in fragments[-1]


def test_appended_reasoning_keeps_its_spaces() -> None:
    _, (_, _, added, more) = drawn(
        ReasoningText("Fresh"), ReasoningText(" bread "), ReasoningText("\ndaily")
    )

    assert added.endswith("> bread </div>")
    assert more.endswith(">\ndaily</div>")


def test_an_appended_answer_keeps_its_spaces() -> None:
    _, (*_, first, second, third) = drawn(
        ContentText("Fresh"), ContentText(" bread "), ContentText("daily")
    )

    assert first.endswith(
        '<div hx-swap-oob="innerHTML:#t7-b1-open"><p>Fresh'
        '<span class="answer-tail" id="t7-b1-tail"></span></p></div>'
    )
    # Plain words: drawing them would show the same, so they are added as they are.
    assert second == '<div hx-swap-oob="beforeend:#t7-b1-tail"> bread </div>'
    assert third == '<div hx-swap-oob="beforeend:#t7-b1-tail">daily</div>'


def test_tool_cards_go_queued_running_done_under_stable_ids() -> None:
    turn, fragments = drawn(
        ContentText("Writing."),
        ToolCallsAnnounced((PAGE_CALL,)),
        ToolCallsAnnounced((STYLE_CALL,)),
        ToolExecuting("call_a", "create_file"),
        page_result(),
        ToolExecuting("call_b", "create_file"),
        ToolResultEvent("call_b", "create_file", False, "No space left", {}, 3.0, "/styles.css"),
    )
    _, _, announced, more, running, finished, running_b, failed = fragments

    # The text block is complete once tools begin: shown rendered, then the cards.
    assert '<div class="answer" id="t7-b1" hx-swap-oob="true">' in announced
    assert '<ol class="tool-cards" id="t7-b2"' in announced
    assert card_states(announced) == [("t7-c1", "queued")]
    assert "/index.html" in announced
    # A second announcement joins the same list.
    assert more.startswith('<div hx-swap-oob="beforeend:#t7-b2">')
    assert card_states(more) == [("t7-c2", "queued")]
    assert card_states(running) == [("t7-c1", "running")]
    assert 'id="t7-c1" data-state="running" hx-swap-oob="true"' in running
    assert card_states(finished) == [("t7-c1", "done")]
    assert "Created /index.html" in finished
    assert "12 ms" in finished
    assert card_states(running_b) == [("t7-c2", "running")]
    assert card_states(failed) == [("t7-c2", "failed")]
    assert "No space left" in failed
    assert [block.kind for block in turn.view.blocks] == ["answer", "tools"]


def test_events_for_unknown_or_finished_calls_draw_nothing() -> None:
    _, (*_, late, twice, stranger) = drawn(
        ToolCallsAnnounced((PAGE_CALL,)),
        page_result(),
        ToolExecuting("call_a", "create_file"),
        page_result(),
        ToolExecuting("call_zzz", "read_file"),
    )

    assert (late, twice, stranger) == ("", "", "")


def test_calls_announced_together_get_cards_of_their_own() -> None:
    turn, (_, announced) = drawn(ToolCallsAnnounced((PAGE_CALL, STYLE_CALL)))

    assert card_states(announced) == [("t7-c1", "queued"), ("t7-c2", "queued")]
    assert [card.dom_id for card in turn.view.blocks[0].cards] == ["t7-c1", "t7-c2"]


def test_usage_and_done_fill_the_footer() -> None:
    usage = UsageEvent("openai/gpt-5-mini", 100, 20, 120, "0.00042", 240, "0.00084")
    _, (*_, during, footer) = drawn(
        usage, Done("stop", "completed", 2, 9, ("/index.html",), 240, "0.00084")
    )

    assert '<footer class="turn-footer running" id="t7-foot" hx-swap-oob="true">' in during
    assert "240 tokens · $0.0008" in during
    assert '<footer class="turn-footer completed" id="t7-foot" hx-swap-oob="true">' in footer
    assert "240 tokens · $0.0008" in footer


def test_a_stopped_turn_says_so_in_its_footer() -> None:
    _, (*_, footer) = drawn(ContentText("Half an"), Done("stopped", "stopped", 1, 9))

    assert 'class="turn-footer stopped"' in footer
    assert "Stopped" in footer


def test_a_stream_reset_clears_the_streaming_text() -> None:
    turn, (_, _, reset, again) = drawn(
        ContentText("Here is a dra"), StreamReset("asking again"), ContentText("Here it is.")
    )

    assert 'id="t7-b1"' in reset
    assert "Here is a dra" not in reset + again
    assert "Here it is." in again
    assert [(block.kind, block.text) for block in turn.view.blocks] == [("answer", "Here it is.")]


def test_a_stream_reset_after_tools_clears_only_the_failed_requests_text() -> None:
    turn, fragments = drawn(
        ContentText("Writing."),
        ToolCallsAnnounced((PAGE_CALL,)),
        ToolExecuting("call_a", "create_file"),
        page_result(),
        ReasoningText("Now the summary"),
        ContentText("All do"),
        StreamReset("asking again"),
        ContentText("All done."),
    )
    reset, again = fragments[-2:]

    assert re.findall(r'id="(t7-b\d+)"', reset) == ["t7-b4", "t7-b3"]
    assert "Now the summary" not in reset + again
    assert [(block.kind, block.text) for block in turn.view.blocks] == [
        ("answer", "Writing."),
        ("tools", ""),
        ("answer", "All done."),
    ]
    assert [card.state for card in turn.view.blocks[1].cards] == ["done"]


def test_a_stream_reset_with_nothing_streaming_draws_nothing() -> None:
    _, (_, reset) = drawn(StreamReset("asking again"))

    assert reset == ""


def test_a_retryable_error_offers_to_send_the_turns_text_again() -> None:
    error = ErrorEvent("rate_limited", "The model is rate limited.", retryable=True)
    _, (_, _, shown) = drawn(ContentText("Partial"), error)

    assert '<div class="answer" id="t7-b1" hx-swap-oob="true">' in shown
    assert '<div class="turn-error" id="t7-b2" role="alert">' in shown
    assert "The model is rate limited." in shown
    assert '<form ws-send class="retry-form">' in shown
    assert 'name="message" value="Make a &lt;b&gt;bakery&lt;/b&gt; site"' in shown
    assert "Try again" in shown
    assert reverse("settings") not in shown


def test_an_error_that_retrying_cannot_fix_has_no_retry_form() -> None:
    error = ErrorEvent("context_too_long", "Start a new conversation.", retryable=False)
    _, (_, shown) = drawn(error)

    assert "Start a new conversation." in shown
    assert "retry-form" not in shown


@pytest.mark.parametrize("code", ["no_api_key", "bad_api_key", "no_credits"])
def test_key_and_credit_errors_link_to_settings(code: str) -> None:
    _, (_, shown) = drawn(ErrorEvent(code, "Add a key.", retryable=False))

    assert reverse("settings") == "/settings/"
    assert '<a href="/settings/">' in shown


# --- stored messages drawn as the same turn -------------------------------------------------


def tool_call(call: AnnouncedCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }


def store_turn(conversation: Conversation, start: int, text: str) -> Message:
    return services.message_user_create(
        conversation=conversation, sequence=start, text=text, model="openai/gpt-5-mini"
    )


def store_finished_turn(conversation: Conversation) -> Message:
    """A turn with two calls (their results stored out of order) and a final answer."""
    user = store_turn(conversation, 1, STARTED.text)
    add = services.message_create
    add(
        conversation=conversation,
        sequence=2,
        role=Message.Role.ASSISTANT,
        content="Writing.",
        tool_calls=[tool_call(PAGE_CALL), tool_call(STYLE_CALL)],
    )
    add(
        conversation=conversation,
        sequence=3,
        role=Message.Role.TOOL,
        tool_call_id="call_b",
        content='{"ok": false}',
        record=ToolRecord.from_stored(
            {"name": "create_file", "ok": False, "summary": "No space left", "duration_ms": 3}
        ),
    )
    add(
        conversation=conversation,
        sequence=4,
        role=Message.Role.TOOL,
        tool_call_id="call_a",
        content='{"ok": true}',
        record=ToolRecord.from_stored(
            {"name": "create_file", "ok": True, "summary": "Created /index.html"}
        ),
    )
    turn: JSONObject = {
        "status": "completed",
        "finish_reason": "stop",
        "usage": {"total_tokens": 240},
        "cost": "0.00084",
        "error": None,
    }
    add(
        conversation=conversation,
        sequence=5,
        role=Message.Role.ASSISTANT,
        content="Your page is **ready**.",
        record=AssistantRecord.from_stored({"turn": turn}),
    )
    return user


def shape(view: TurnView) -> list[tuple[Any, ...]]:
    """What a person sees of a turn's blocks and cards."""
    return [
        (
            block.dom_id,
            block.kind,
            block.text,
            [
                (c.dom_id, c.call_id, c.name, c.path, c.arguments, c.state, c.summary)
                for c in block.cards
            ],
        )
        for block in view.blocks
    ]


@pytest.mark.django_db
def test_stored_turns_rebuild_the_blocks_and_cards_the_live_turn_showed(
    project: Project,
) -> None:
    conversation = services.conversation_create(project=project)
    user = store_finished_turn(conversation)
    live = TurnDrawing(TurnStarted(conversation.pk, user.pk, "openai/gpt-5-mini", STARTED.text))
    events: list[Event] = [
        ContentText("Writing."),
        ToolCallsAnnounced((PAGE_CALL,)),
        ToolCallsAnnounced((STYLE_CALL,)),
        ToolExecuting("call_a", "create_file"),
        ToolExecuting("call_b", "create_file"),
        ToolResultEvent("call_b", "create_file", False, "No space left", {}, 3.0, "/styles.css"),
        page_result(),
        FilesChanged(("/index.html",)),
        ContentText("Your page is **ready**."),
        Done("stop", "completed", 2, 99, ("/index.html",), 240, "0.00084"),
    ]
    for event in events:
        live.show(event)

    (stored,) = stored_turns(conversation)

    assert stored.dom_id == live.view.dom_id == f"t{user.pk}"
    assert stored.text == live.view.text
    assert shape(stored) == shape(live.view)
    assert [card.state for card in stored.blocks[1].cards] == ["done", "failed"]
    assert "<strong>ready</strong>" in stored.blocks[2].html
    for footer in (stored.footer, live.view.footer):
        assert (footer.status, footer.finish_reason, footer.tokens, footer.cost) == (
            "completed",
            "stop",
            240,
            "0.00084",
        )


@pytest.mark.django_db
def test_a_stored_turn_cut_short_shows_its_unfinished_calls_as_not_run(
    project: Project,
) -> None:
    conversation = services.conversation_create(project=project)
    store_finished_turn(conversation)
    cut = store_turn(conversation, 6, "Add a contact page")
    services.message_create(
        conversation=conversation,
        sequence=7,
        role=Message.Role.ASSISTANT,
        tool_calls=[tool_call(STYLE_CALL)],
    )

    first, second = stored_turns(conversation)

    assert first.footer.status == "completed"
    assert second.dom_id == f"t{cut.pk}"
    assert second.footer.status == "interrupted"
    (card,) = second.blocks[0].cards
    assert card.call_id == "call_b"  # the same id as the first turn's call: matched per turn
    assert card.state == "failed"
    assert card.summary.startswith("Not run")


@pytest.mark.django_db
def test_a_stored_error_is_shown_as_the_live_one_was(project: Project) -> None:
    conversation = services.conversation_create(project=project)
    user = store_turn(conversation, 1, "hello")
    error = ErrorEvent("no_api_key", "Add a key in Settings.", retryable=True)
    stored_error: JSONObject = {"code": error.code, "message": error.message, "retryable": True}
    services.message_create(
        conversation=conversation,
        sequence=2,
        role=Message.Role.ASSISTANT,
        record=AssistantRecord.from_stored(
            {"turn": {"status": "failed", "finish_reason": "error", "error": stored_error}}
        ),
    )
    live = TurnDrawing(TurnStarted(conversation.pk, user.pk, "openai/gpt-5-mini", "hello"))
    live.show(error)
    live.show(Done("error", "failed", 1, 2))

    (stored,) = stored_turns(conversation)

    assert shape(stored) == shape(live.view)
    assert stored.blocks[0].error == live.view.blocks[0].error
    assert stored.blocks[0].error is not None
    assert stored.blocks[0].error.needs_key
    assert stored.retry_text == live.view.retry_text == "hello"
    assert stored.footer.status == live.view.footer.status == "failed"


def test_a_conversation_too_long_for_the_model_offers_to_compact_it() -> None:
    live = TurnDrawing(TurnStarted(1, 2, "openai/gpt-5-mini", "Add a gallery"))
    too_long = ErrorEvent("context_too_long", "The conversation no longer fits.", False)
    other = TurnDrawing(TurnStarted(1, 3, "openai/gpt-5-mini", "Add a gallery"))

    html = live.show(too_long)

    assert 'data-action="compact">Compact the conversation</button>' in html
    assert "Compact" not in other.show(ErrorEvent("unavailable", "Try again.", True))


@pytest.mark.django_db
def test_a_retried_answer_is_drawn_live_as_it_is_stored(project: Project) -> None:
    conversation = services.conversation_create(project=project)
    user = store_turn(conversation, 1, "Explain the plan")
    services.message_create(
        conversation=conversation,
        sequence=2,
        role=Message.Role.ASSISTANT,
        content="Here it is.",
        reasoning="Second thoughts",
        record=AssistantRecord.from_stored(
            {"turn": {"status": "completed", "finish_reason": "stop"}}
        ),
    )
    live = TurnDrawing(
        TurnStarted(conversation.pk, user.pk, "openai/gpt-5-mini", "Explain the plan")
    )
    events: list[Event] = [
        ReasoningText("First thoughts"),
        ContentText("Here is a dra"),
        StreamReset("asking again"),
        ReasoningText("Second thoughts"),
        ContentText("Here it is."),
        Done("stop", "completed", 1, 2),
    ]
    for event in events:
        live.show(event)

    (stored,) = stored_turns(conversation)

    def seen(view: TurnView) -> list[tuple[str, str]]:
        return [(block.kind, block.text) for block in view.blocks if block.text]

    assert seen(live.view) == seen(stored)


@pytest.mark.django_db
def test_a_stored_turn_of_several_rounds_has_one_reasoning_as_live(project: Project) -> None:
    conversation = services.conversation_create(project=project)
    user = store_turn(conversation, 1, STARTED.text)
    add = services.message_create
    add(
        conversation=conversation,
        sequence=2,
        role=Message.Role.ASSISTANT,
        content="",
        reasoning="Look at the page.",
        tool_calls=[tool_call(PAGE_CALL)],
    )
    add(
        conversation=conversation,
        sequence=3,
        role=Message.Role.TOOL,
        tool_call_id="call_a",
        content='{"ok": true}',
        record=ToolRecord.from_stored({"name": "create_file", "ok": True, "summary": "Created"}),
    )
    add(
        conversation=conversation,
        sequence=4,
        role=Message.Role.ASSISTANT,
        content="Done.",
        reasoning="Now the styles.",
        record=AssistantRecord.from_stored(
            {"turn": {"status": "completed", "finish_reason": "stop"}}
        ),
    )

    (stored,) = stored_turns(conversation)

    assert [block.kind for block in stored.blocks] == ["reasoning", "tools", "answer"]
    assert stored.blocks[0].text == "Look at the page.\n\nNow the styles."
    assert user.pk


# --- events through JSON and back ----------------------------------------------------------

EVERY_EVENT: list[Event] = [
    TurnStarted(3, 7, "openai/gpt-5-mini", "Make a site"),
    ContentText("Hello"),
    ReasoningText("Thinking"),
    StreamReset("The answer was interrupted; asking the model again."),
    ToolCallsAnnounced((PAGE_CALL, AnnouncedCall("call_c", "list_project_files", "{}", None))),
    ToolExecuting("call_a", "create_file"),
    page_result(),
    FilesChanged(("/index.html", "/styles.css")),
    UsageEvent("openai/gpt-5-mini", 100, 20, 120, None, 120, None),
    ContextEvent(2100, 40, 120, 900, 30, 0, 1400, 128_000, True, summarised=12),
    CompactionEvent("done", 12, 9_400, 610),
    ErrorEvent("rate_limited", "Wait a minute.", retryable=True),
    Done("stop", "completed", 2, 9, ("/index.html",), 240, "0.00084"),
]


def test_every_kind_of_event_has_a_sample_here() -> None:
    assert {type(event) for event in EVERY_EVENT} == set(get_args(Event))


@pytest.mark.parametrize("event", EVERY_EVENT, ids=lambda event: event.type)
def test_from_json_gives_back_the_event_to_json_made(event: Event) -> None:
    assert from_json(to_json(event)) == event
    # As it arrives from the channel layer or a socket: tuples are lists by then.
    assert from_json(json.loads(json.dumps(to_json(event)))) == event
