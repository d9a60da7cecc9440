"""The OpenRouter client against the fake server, over real sockets.

Each test scripts what the provider sends, in the shapes and with the quirks
of DESIGN §4, and checks what the caller gets and what the provider received.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from decimal import Decimal

import pytest

from chat.llm import (
    AuthenticationError,
    BadRequestError,
    ChatMessage,
    ChatRequest,
    ContentDelta,
    ContextTooLongError,
    ForcedTool,
    InStreamError,
    InsufficientCreditsError,
    LLMError,
    ModelNotFoundError,
    ModelParameters,
    ModerationError,
    RateLimitedError,
    StalledError,
    StreamCutError,
    UnavailableError,
)
from fakes.openrouter import FakeOpenRouter
from fakes.script import (
    Chunk,
    Comment,
    Done,
    Drop,
    HttpError,
    Json,
    Pause,
    Raw,
    Reply,
    Stall,
    Stream,
    ToolCallScript,
    in_stream_error,
    text,
    tool_calls,
)
from tests.fakes.harness import REQUEST, WRITE, Harness, contents, make_harness


@pytest.fixture
async def harness(fake_openrouter: FakeOpenRouter):
    harness = make_harness(fake_openrouter)
    yield harness
    await harness.client.aclose()


# --- The stream's shape ------------------------------------------------------


async def test_text_answer_streams_in_pieces_and_assembles(harness: Harness) -> None:
    harness.fake.script(text("Hello, this is your site.", content_pieces=4))

    events, message = await harness.run()

    assert len(contents(events)) == 4
    assert message.content == "Hello, this is your site."
    assert message.tool_calls == ()
    assert message.finish_reason == "stop"
    assert message.model == "openai/gpt-4o-mini"
    assert message.provider == "OpenAI"
    assert message.generation_id
    assert message.generation_id.startswith("gen-")


async def test_role_repeated_on_every_chunk_adds_nothing(harness: Harness) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}
    finish = {"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": "stop"}]}
    word = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}}]}
    harness.fake.script(Stream([Chunk(chunk), Chunk(word), Chunk(chunk), Chunk(finish), Done()]))

    events, message = await harness.run()

    assert contents(events) == ["Hi"]
    assert message.content == "Hi"


async def test_keepalive_comments_and_crlf_are_understood(harness: Harness) -> None:
    reply = text("Still here", line_ending="\r\n")
    events = [Comment(), Comment(), *reply.to_stream().events]
    harness.fake.script(Stream(events, line_ending="\r\n"))

    _, message = await harness.run()

    assert message.content == "Still here"
    assert message.finish_reason == "stop"


@pytest.mark.parametrize("piece_size", [1, 2, 7, 64])
async def test_lines_split_across_network_reads(harness: Harness, piece_size: int) -> None:
    reply = Reply(
        content="Grüße, 世界 — ok",
        tool_calls=[ToolCallScript("create_file", {"path": "ü.html", "content": "<h1>é</h1>"})],
        piece_size=piece_size,
    )
    harness.fake.script(reply)

    _, message = await harness.run()

    assert message.content == "Grüße, 世界 — ok"
    assert json.loads(message.tool_calls[0].arguments) == {
        "path": "ü.html",
        "content": "<h1>é</h1>",
    }


def _word(text: str) -> Chunk:
    return Chunk({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def _together(*events: Chunk | Done) -> Raw:
    """Several events in one write, as a busy provider (or a proxy) sends them."""
    return Raw(b"".join(event.encode("\n") for event in events))


_FINISH = Chunk({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})


async def test_text_that_arrives_together_is_handed_on_as_one_piece(harness: Harness) -> None:
    reasoning = Chunk({"choices": [{"index": 0, "delta": {"reasoning": "Think."}}]})
    first = _together(_word("Fresh "), _word("bread "), reasoning, _word("daily"), _word("."))
    harness.fake.script(Stream([first, _word(" Open"), _together(_word(" now"), _FINISH), Done()]))

    events, message = await harness.run()

    assert contents(events) == ["Fresh bread ", "daily.", " Open", " now"]
    assert message.content == "Fresh bread daily. Open now"
    assert message.reasoning == "Think."
    assert message.finish_reason == "stop"


async def test_an_error_arriving_with_text_comes_after_that_text(harness: Harness) -> None:
    error = in_stream_error(502, "Provider disconnected").events[-1]
    assert isinstance(error, Chunk)
    harness.fake.script(Stream([_word("Half "), _together(_word("an "), _word("answer"), error)]))
    seen: list[str] = []

    async def read() -> None:
        async with harness.client.stream(REQUEST) as pieces:
            async for piece in pieces:
                if isinstance(piece, ContentDelta):
                    seen.append(piece.text)

    with pytest.raises(InStreamError) as caught:
        await read()

    assert seen == ["Half ", "an answer"]
    assert caught.value.output_started


async def test_done_arriving_with_text_ends_the_answer_after_it(harness: Harness) -> None:
    late = _word("never shown")
    harness.fake.script(Stream([_together(_word("All "), _word("done"), _FINISH, Done(), late)]))

    events, message = await harness.run()

    assert contents(events) == ["All done"]
    assert message.finish_reason == "stop"


async def test_content_null_on_tool_call_chunks(harness: Harness) -> None:
    harness.fake.script(tool_calls(ToolCallScript("create_file", {"path": "index.html"})))

    events, message = await harness.run()

    assert contents(events) == []
    assert message.content == ""
    assert message.to_chat_message().content is None
    assert [call.name for call in message.tool_calls] == ["create_file"]


# --- Tool calls ----------------------------------------------------------------


@pytest.mark.parametrize("pieces", [1, 2, 17])
async def test_tool_call_arguments_in_any_number_of_pieces(harness: Harness, pieces: int) -> None:
    arguments = {"path": "index.html", "content": "<h1>Hello</h1>\n" * 20}
    harness.fake.script(
        tool_calls(ToolCallScript("create_file", arguments), argument_pieces=pieces)
    )

    _, message = await harness.run()

    (call,) = message.tool_calls
    assert json.loads(call.arguments) == arguments


async def test_missing_arguments_mean_an_empty_object(harness: Harness) -> None:
    harness.fake.script(tool_calls(ToolCallScript("list_project_files", None)))

    _, message = await harness.run()

    assert message.tool_calls[0].arguments == "{}"


async def test_empty_and_duplicate_ids_become_unique(harness: Harness) -> None:
    harness.fake.script(
        tool_calls(
            ToolCallScript("read_file", {"path": "a.html"}, id=""),
            ToolCallScript("read_file", {"path": "b.html"}, id="call_same"),
            ToolCallScript("read_file", {"path": "c.html"}, id="call_same"),
            ToolCallScript("read_file", {"path": "d.html"}, id=None),
        )
    )

    _, message = await harness.run()

    ids = [call.id for call in message.tool_calls]
    assert len(ids) == 4
    assert all(ids)
    assert len(set(ids)) == 4
    assert ids[1] == "call_same"
    paths = [json.loads(call.arguments)["path"] for call in message.tool_calls]
    assert paths == ["a.html", "b.html", "c.html", "d.html"]


async def test_provider_ids_are_kept_as_given(harness: Harness) -> None:
    harness.fake.script(
        tool_calls(
            ToolCallScript("read_file", {"path": "a.html"}, id="toolu_01A09q90qw90lq917835lq9"),
            ToolCallScript("read_file", {"path": "b.html"}, id="Ab3dE6gH9"),
        )
    )

    _, message = await harness.run()

    assert [call.id for call in message.tool_calls] == [
        "toolu_01A09q90qw90lq917835lq9",
        "Ab3dE6gH9",
    ]


async def test_several_calls_to_one_function_are_all_kept(harness: Harness) -> None:
    files = ["index.html", "styles.css", "script.js"]
    harness.fake.script(
        tool_calls(*(ToolCallScript("create_file", {"path": path}) for path in files))
    )

    _, message = await harness.run()

    assert [json.loads(call.arguments)["path"] for call in message.tool_calls] == files
    assert {call.name for call in message.tool_calls} == {"create_file"}


async def test_calls_all_numbered_zero_with_their_own_ids_stay_apart(harness: Harness) -> None:
    harness.fake.script(
        tool_calls(
            ToolCallScript("create_file", {"path": "a.html"}),
            ToolCallScript("create_file", {"path": "b.html"}),
            tool_call_indexes=[0, 0],
        )
    )

    _, message = await harness.run()

    assert [json.loads(call.arguments)["path"] for call in message.tool_calls] == [
        "a.html",
        "b.html",
    ]


async def test_tool_calls_with_finish_reason_stop_are_still_calls(harness: Harness) -> None:
    harness.fake.script(
        tool_calls(ToolCallScript("create_file", {"path": "a.html"}), finish_reason="stop")
    )

    _, message = await harness.run()

    assert message.finish_reason == "stop"
    assert len(message.tool_calls) == 1


# --- Finish, usage, [DONE] -------------------------------------------------------


async def test_usage_chunk_repeating_the_finish_reason_finishes_once(harness: Harness) -> None:
    usage = {
        "prompt_tokens": 1200,
        "completion_tokens": 80,
        "total_tokens": 1280,
        "cost": 0.000615,
        "completion_tokens_details": {"reasoning_tokens": 30},
        "prompt_tokens_details": {"cached_tokens": 1024},
    }
    harness.fake.script(text("Done.", usage=usage, usage_repeats_finish=True))

    events, message = await harness.run()

    finishes = [event for event in events if type(event).__name__ == "Finish"]
    assert len(finishes) == 2  # the provider said it twice ...
    assert message.finish_reason == "stop"  # ... and it counts once
    assert message.usage is not None
    assert message.usage.prompt_tokens == 1200
    assert message.usage.reasoning_tokens == 30
    assert message.usage.cached_tokens == 1024
    assert message.usage.cost == Decimal("0.000615")


async def test_missing_done_after_a_finish_reason_is_complete(harness: Harness) -> None:
    harness.fake.script(text("All good", done=False))

    _, message = await harness.run()

    assert message.content == "All good"
    assert message.finish_reason == "stop"


async def test_stream_ending_without_a_finish_reason_was_cut(harness: Harness) -> None:
    harness.fake.script(text("Half an ans", finish_reason=None, usage=None, done=False))

    with pytest.raises(StreamCutError) as caught:
        await harness.run()

    assert caught.value.output_started
    assert caught.value.retryable
    assert len(harness.fake.requests) == 1  # not retried: part of it was shown


async def test_connection_dropped_mid_stream_is_a_cut(harness: Harness) -> None:
    events = text("This answer will be cut off", content_pieces=5).to_stream().events
    harness.fake.script(Stream([*events[:4], Drop()]))

    with pytest.raises(StreamCutError) as caught:
        await harness.run()

    assert caught.value.output_started
    assert len(harness.fake.requests) == 1


# --- Reasoning -------------------------------------------------------------------


async def test_reasoning_and_details_are_kept_and_sent_back_unchanged(harness: Harness) -> None:
    details = [
        {"type": "reasoning.text", "text": "Plan the page", "signature": "sig-1", "index": 0},
        {"type": "reasoning.encrypted", "data": "gAAAAB...", "index": 1},
    ]
    harness.fake.script(
        Reply(
            reasoning="Let me plan the page.",
            reasoning_details=details,
            tool_calls=[ToolCallScript("create_file", {"path": "index.html"})],
        ),
        text("Built it."),
    )

    events, message = await harness.run()

    assert message.reasoning == "Let me plan the page."
    assert list(message.reasoning_details) == details
    assert [type(event).__name__ for event in events].count("ReasoningDelta") >= 1
    follow_up = ChatRequest(
        model=REQUEST.model,
        messages=[
            *REQUEST.messages,
            message.to_chat_message(),
            ChatMessage.tool(message.tool_calls[0].id, '{"success": true}'),
        ],
        tools=[WRITE],
    )
    await harness.run(follow_up)
    sent = harness.bodies()[1]["messages"][1]
    assert sent["role"] == "assistant"
    assert sent["reasoning_details"] == details
    assert sent["tool_calls"][0]["id"] == message.tool_calls[0].id
    assert harness.bodies()[1]["messages"][2]["tool_call_id"] == message.tool_calls[0].id


# --- In-stream errors ------------------------------------------------------------


@pytest.mark.parametrize("code", [502, "server_error"])
async def test_in_stream_error_before_any_output_is_retried(harness: Harness, code) -> None:
    harness.fake.script(in_stream_error(code, "Provider disconnected"), text("Recovered"))

    _, message = await harness.run()

    assert message.content == "Recovered"
    assert len(harness.fake.requests) == 2


@pytest.mark.parametrize(("code", "retryable"), [(502, True), ("server_error", True), (400, False)])
async def test_in_stream_error_after_output_is_raised_with_the_upstream_message(
    harness: Harness, code: int | str, retryable: bool
) -> None:
    shown = text("Partial answer", usage=None, done=False, finish_reason=None).to_stream()
    harness.fake.script(in_stream_error(code, "Provider disconnected", after=shown.events))

    with pytest.raises(InStreamError) as caught:
        await harness.run()

    assert caught.value.upstream_message == "Provider disconnected"
    assert caught.value.code == code
    assert caught.value.retryable is retryable
    assert caught.value.output_started
    assert len(harness.fake.requests) == 1


async def test_in_stream_error_that_is_not_retryable_is_not_retried(harness: Harness) -> None:
    harness.fake.script(in_stream_error("invalid_request", "Bad tool schema"), text("never"))

    with pytest.raises(InStreamError) as caught:
        await harness.run()

    assert not caught.value.output_started
    assert len(harness.fake.requests) == 1


# --- HTTP errors and retries ---------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (400, "Invalid parameter: temperature", BadRequestError),
        (400, "This endpoint's maximum context length is 8192 tokens", ContextTooLongError),
        (400, "foo/bar is not a valid model ID", ModelNotFoundError),
        (401, "No auth credentials found", AuthenticationError),
        (402, "Insufficient credits", InsufficientCreditsError),
        (403, "Input was flagged", ModerationError),
        (404, "No endpoints found for foo/bar", ModelNotFoundError),
    ],
)
async def test_errors_that_retrying_cannot_fix_are_raised_at_once(
    harness: Harness, status: int, message: str, kind: type[LLMError]
) -> None:
    harness.fake.script(HttpError(status, message), text("never sent"))

    with pytest.raises(kind) as caught:
        await harness.run()

    assert type(caught.value) is kind
    assert caught.value.status == status
    assert caught.value.upstream_message == message
    assert not caught.value.retryable
    assert len(harness.fake.requests) == 1
    assert harness.sleeps == []


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
async def test_retryable_statuses_are_retried_then_succeed(harness: Harness, status: int) -> None:
    harness.fake.script(HttpError(status), HttpError(status), text("Third time lucky"))

    _, message = await harness.run()

    assert message.content == "Third time lucky"
    assert len(harness.fake.requests) == 3
    assert len(harness.sleeps) == 2


async def test_retries_are_bounded(harness: Harness) -> None:
    harness.fake.script(*[HttpError(503, "No available provider")] * 5)

    with pytest.raises(UnavailableError) as caught:
        await harness.run()

    assert caught.value.status == 503
    assert "No available provider" in str(caught.value)
    assert len(harness.fake.requests) == 3  # the first try and max_retries=2
    assert harness.fake.pending == 2


async def test_backoff_grows_between_retries(fake_openrouter: FakeOpenRouter) -> None:
    harness = make_harness(fake_openrouter, max_retries=4, backoff_initial=1.0, backoff_max=60.0)
    fake_openrouter.script(*[HttpError(502)] * 4, text("ok"))

    await harness.run()
    await harness.client.aclose()

    assert len(harness.sleeps) == 4
    # Exponential with at most one second of jitter: 1, 2, 4, 8 (+ jitter).
    for attempt, slept in enumerate(harness.sleeps):
        assert 2**attempt <= slept <= 2**attempt + 1.0


async def test_retry_after_is_honoured(harness: Harness) -> None:
    harness.fake.script(HttpError(429, headers={"Retry-After": "7"}), text("ok"))

    await harness.run()

    assert harness.sleeps == [7.0]


async def test_retry_after_longer_than_the_cap_is_reported_at_once(harness: Harness) -> None:
    harness.fake.script(HttpError(429, headers={"Retry-After": "3600"}), text("never"))

    with pytest.raises(RateLimitedError) as caught:
        await harness.run()

    assert caught.value.retry_after == 3600.0
    assert harness.sleeps == []
    assert len(harness.fake.requests) == 1


async def test_no_retry_once_output_was_handed_on(harness: Harness) -> None:
    events = text("You saw this much", content_pieces=3).to_stream().events
    harness.fake.script(Stream([*events[:3], Drop()]), text("A second answer"))

    seen: list[str] = []

    async def watch() -> None:
        async with harness.client.stream(REQUEST) as pieces:
            async for piece in pieces:
                if isinstance(piece, ContentDelta):
                    seen.append(piece.text)

    with pytest.raises(StreamCutError):
        await watch()

    assert seen  # the person saw part of the first answer ...
    assert len(harness.fake.requests) == 1  # ... so it was not silently replaced
    assert harness.fake.pending == 1


async def test_connection_refused_is_unavailable_after_retries(fake_openrouter) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free, and nothing listens once closed
    harness = make_harness(fake_openrouter, base_url=f"http://127.0.0.1:{port}/api/v1")

    with pytest.raises(UnavailableError) as caught:
        await harness.run()
    await harness.client.aclose()

    assert "connect" in str(caught.value).lower()
    assert len(harness.sleeps) == 2


async def test_a_stall_before_any_output_is_retried(fake_openrouter: FakeOpenRouter) -> None:
    harness = make_harness(fake_openrouter, read_timeout=0.3, max_retries=1)
    fake_openrouter.script(Stream([Comment(), Stall()]), text("Back again"))

    _, message = await harness.run()
    await harness.client.aclose()

    assert message.content == "Back again"
    assert len(fake_openrouter.requests) == 2


async def test_a_stall_after_output_is_a_stalled_error(fake_openrouter: FakeOpenRouter) -> None:
    harness = make_harness(fake_openrouter, read_timeout=0.3)
    events = text("Thinking very hard", content_pieces=3).to_stream().events
    fake_openrouter.script(Stream([*events[:3], Stall()]))

    with pytest.raises(StalledError) as caught:
        await harness.run()
    await harness.client.aclose()

    assert caught.value.output_started
    assert len(fake_openrouter.requests) == 1


async def test_an_html_error_page_becomes_a_short_message(harness: Harness) -> None:
    page = "<html><head><title>502</title></head><body><h1>Bad Gateway</h1></body></html>"
    harness.fake.script(*[HttpError(502, body=page)] * 3)

    with pytest.raises(UnavailableError) as caught:
        await harness.run()

    assert "Bad Gateway" in str(caught.value)
    assert "<" not in str(caught.value)


# --- Cancellation ----------------------------------------------------------------------


async def test_leaving_a_stream_early_closes_the_upstream_connection(harness: Harness) -> None:
    events = text("One two three", content_pieces=3).to_stream().events
    harness.fake.script(Stream([*events[:3], Stall()]))

    async with harness.client.stream(REQUEST) as pieces:
        async for piece in pieces:
            if isinstance(piece, ContentDelta):
                break

    assert await asyncio.to_thread(harness.fake.wait_for_disconnect, 5.0)


async def test_cancelling_the_task_closes_the_upstream_connection(harness: Harness) -> None:
    events = text("Slow answer", content_pieces=2).to_stream().events
    harness.fake.script(Stream([*events[:3], Pause(30)]))
    first_piece = asyncio.Event()

    async def consume() -> None:
        async with harness.client.stream(REQUEST) as pieces:
            async for piece in pieces:
                if isinstance(piece, ContentDelta):
                    first_piece.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_piece.wait(), 5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task

    assert task.cancelled()
    assert await asyncio.to_thread(harness.fake.wait_for_disconnect, 5.0)


async def test_the_connection_is_reused_after_a_complete_stream(harness: Harness) -> None:
    harness.fake.script(text("one"), text("two"))

    await harness.run()
    await harness.run()

    assert harness.fake.disconnects == 0
    assert len(harness.fake.requests) == 2


# --- What the provider receives ----------------------------------------------------------


async def test_attribution_and_key_headers_are_sent(harness: Harness) -> None:
    harness.fake.script(text("hi"))

    await harness.run()

    headers = harness.fake.requests[0].headers
    assert headers["authorization"] == "Bearer sk-or-v1-test"
    assert headers["http-referer"] == "https://builder.example.com"
    assert headers["x-title"] == "Built-It"
    assert headers["x-openrouter-title"] == "Built-It"
    assert harness.fake.requests[0].path == "/api/v1/chat/completions"


async def test_a_person_s_own_key_overrides_the_server_key(harness: Harness) -> None:
    harness.fake.script(text("hi"))

    async with harness.client.stream(REQUEST, api_key="sk-or-v1-personal") as pieces:
        async for _ in pieces:
            pass

    assert harness.fake.requests[0].headers["authorization"] == "Bearer sk-or-v1-personal"


async def test_no_key_sends_no_authorization_header(fake_openrouter: FakeOpenRouter) -> None:
    harness = make_harness(fake_openrouter, api_key="")
    fake_openrouter.script(text("local servers need no key"))

    await harness.run()
    await harness.client.aclose()

    assert "authorization" not in fake_openrouter.requests[0].headers


async def test_a_key_with_impossible_characters_is_refused_before_sending(
    harness: Harness,
) -> None:
    with pytest.raises(AuthenticationError):
        harness.client.stream(REQUEST, api_key="sk-or-v1-\u00e9t\u00e9")

    assert harness.fake.requests == []


async def test_the_body_carries_the_request_and_asks_for_usage(harness: Harness) -> None:
    harness.fake.script(text("hi"))
    request = ChatRequest(
        model="anthropic/claude-sonnet-4",
        messages=[ChatMessage.system("Be brief."), ChatMessage.user("Hi")],
        tools=[WRITE],
        tool_choice="auto",
        parameters=ModelParameters(temperature=0.2, max_tokens=2000, seed=7),
    )

    await harness.run(request)

    body = harness.bodies()[0]
    assert body["model"] == "anthropic/claude-sonnet-4"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert body["tools"][0]["function"]["name"] == "create_file"
    assert body["tool_choice"] == "auto"
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.2, 2000, 7)
    assert "top_p" not in body


async def test_guardrails_adjust_what_xai_receives(harness: Harness) -> None:
    harness.fake.script(text("hi"), text("hi"))
    forced = ChatRequest(
        model="x-ai/grok-4",
        messages=[ChatMessage.user("Hi")],
        tools=[WRITE],
        tool_choice=ForcedTool("create_file"),
        parallel_tool_calls=True,
        parameters=ModelParameters(response_format={"type": "json_object"}),
    )

    await harness.run(forced)
    await harness.run(
        ChatRequest(
            model="openai/gpt-4o",
            messages=forced.messages,
            tools=[WRITE],
            tool_choice=ForcedTool("create_file"),
            parallel_tool_calls=True,
            parameters=forced.parameters,
        )
    )

    grok, gpt = harness.bodies()
    assert grok["tool_choice"] == "auto"
    assert grok["parallel_tool_calls"] is False
    assert "response_format" not in grok
    assert gpt["tool_choice"] == {"type": "function", "function": {"name": "create_file"}}
    assert gpt["parallel_tool_calls"] is True
    assert gpt["response_format"] == {"type": "json_object"}


# --- Non-streaming and the model list ------------------------------------------------------


async def test_an_error_object_in_a_one_piece_200_answer(harness: Harness) -> None:
    harness.fake.script(Json({"error": {"code": 400, "message": "Tool schema rejected"}}))

    with pytest.raises(InStreamError) as caught:
        await harness.run()

    assert caught.value.upstream_message == "Tool schema rejected"
    assert len(harness.fake.requests) == 1


async def test_a_server_that_ignores_stream_true_still_gives_the_answer(harness: Harness) -> None:
    whole = Reply(
        content="One piece",
        tool_calls=[ToolCallScript("create_file", {"path": "a.html"})],
    ).to_json()
    harness.fake.script(Json(whole))

    events, message = await harness.run()

    assert contents(events) == ["One piece"]
    assert message.content == "One piece"
    assert [call.name for call in message.tool_calls] == ["create_file"]
    assert message.finish_reason == "tool_calls"


async def test_a_redirect_points_at_the_base_url_setting(harness: Harness) -> None:
    harness.fake.script(HttpError(301, headers={"Location": "https://elsewhere.example/"}))

    with pytest.raises(BadRequestError) as caught:
        await harness.run()

    assert "OPENROUTER_BASE_URL" in str(caught.value)
    assert len(harness.fake.requests) == 1


async def test_a_parameter_that_is_not_a_finite_number_is_refused_before_sending(
    harness: Harness,
) -> None:
    request = ChatRequest(
        model="openai/gpt-4o",
        messages=[ChatMessage.user("hi")],
        parameters=ModelParameters(temperature=float("nan")),
    )

    with pytest.raises(BadRequestError):
        harness.client.stream(request)

    assert harness.fake.requests == []


async def test_the_body_is_utf8_json(harness: Harness) -> None:
    harness.fake.script(text("ok"))

    await harness.run(ChatRequest(model="openai/gpt-4o", messages=[ChatMessage.user("Grüße 世界")]))

    recorded = harness.fake.requests[0]
    assert recorded.headers["content-type"] == "application/json"
    assert "Grüße 世界".encode() in recorded.body
    assert recorded.json["messages"][0]["content"] == "Grüße 世界"
