"""The OpenRouter client against a hostile or broken provider, over real sockets.

A second reader's tests: garbage in the stream, wrong types in chunks, odd
HTTP answers, hostile Retry-After values, many concurrent streams,
cancellation at awkward moments. The contract checked throughout: a caller
only ever sees a result, an `LLMError` subclass with a readable message, or
`asyncio.CancelledError`. The bugs this read found are fixed; their tests stand.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from decimal import Decimal
from typing import Any

import pytest

from chat.llm import (
    AssistantMessage,
    BadRequestError,
    ChatMessage,
    ChatRequest,
    ClientConfig,
    ContentDelta,
    InStreamError,
    LLMClient,
    LLMError,
    ModelNotFoundError,
    RateLimitedError,
    ReasoningDelta,
    StalledError,
    StreamCutError,
    UnavailableError,
    Usage,
)
from fakes.handler import Server
from fakes.openrouter import FakeOpenRouter, RecordedRequest
from fakes.script import (
    Chunk,
    Comment,
    Done,
    Event,
    HttpError,
    Json,
    Raw,
    Reply,
    Scripted,
    Stall,
    Stream,
    ToolCallScript,
    text,
)
from tests.fakes.harness import HANG, REQUEST, Harness, contents, make_harness


@pytest.fixture
async def harness(fake_openrouter: FakeOpenRouter):
    harness = make_harness(fake_openrouter)
    yield harness
    await harness.client.aclose()


def delta(delta: dict[str, Any], finish: Any = None, **top: Any) -> Chunk:
    """A chunk with one choice carrying `delta`, plus any top-level keys."""
    return Chunk({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **top})


def data_line(payload: bytes) -> Raw:
    return Raw(b"data: " + payload + b"\n\n")


HELLO_WORLD: list[Event] = [
    delta({"role": "assistant", "content": "Hello"}, id="gen-1", model="m", provider="P"),
    delta({"content": " world"}),
    delta({"content": ""}, "stop"),
    Done(),
]


# --- Garbage in the stream ------------------------------------------------------


async def test_data_that_is_not_a_json_object_is_skipped(harness: Harness) -> None:
    garbage = [
        data_line(b"not json at all"),
        data_line(b"42"),
        data_line(b"[]"),
        data_line(b'"a string"'),
        data_line(b"null"),
        data_line(b"{truncated"),
        data_line(b""),
    ]
    events = [*garbage[:3], HELLO_WORLD[0], *garbage[3:], *HELLO_WORLD[1:]]
    harness.fake.script(Stream(events))

    _, message = await harness.run()

    assert message.content == "Hello world"
    assert message.finish_reason == "stop"
    assert len(harness.fake.requests) == 1


async def test_bytes_that_are_not_utf8_and_nul_bytes_do_not_escape(harness: Harness) -> None:
    events: list[Event] = [
        data_line(b'{"choices":[{"delta":{"content":"\xff\xfe broken"}}]}'),
        HELLO_WORLD[0],
        data_line(b'{"choices":[{"delta":{"content":"a\x00b"}}]}'),  # raw NUL: not JSON
        Raw(b"\x00\x00\x00\n\n"),
        data_line(b'{"choices":[{"delta":{"content":"\\u0000"}}]}'),  # escaped NUL: text
        *HELLO_WORLD[1:],
    ]
    harness.fake.script(Stream(events))

    _, message = await harness.run()

    assert message.content == "Hello\x00 world"


async def test_spec_legal_sse_oddities_are_understood(harness: Harness) -> None:
    first = json.dumps({"choices": [{"index": 0, "delta": {"content": "Hello"}}]}).encode()
    second = b'{"choices": [{"index": 0,\ndata: "delta": {"content": " world"}}]}'
    events: list[Event] = [
        Raw(b":ping\n\n"),  # a comment without a space
        Raw(b"event: message\r\nid: 7\r\nretry: 1000\r\ndata:" + first + b"\r\n\r\n"),
        Raw(b"data: " + second + b"\n\n"),  # one event, data on two lines
        Raw(b"event: ping\n\n"),  # an event with no data
        *[Comment()] * 500,
        delta({"content": ""}, "stop"),
        Raw(b"data:[DONE]\r\n\r\n"),
    ]
    harness.fake.script(Stream(events))

    _, message = await harness.run()

    assert message.content == "Hello world"
    assert message.finish_reason == "stop"


async def test_a_several_megabyte_single_line_arrives_whole(harness: Harness) -> None:
    page = "<p>" + "x" * (3 * 1024 * 1024) + "</p>"
    arguments = json.dumps({"path": "big.html", "content": page})
    harness.fake.script(
        Reply(
            content=page,
            content_pieces=1,
            tool_calls=[ToolCallScript("create_file", arguments)],
            argument_pieces=1,
        )
    )

    _, message = await harness.run()

    assert message.content == page
    assert json.loads(message.tool_calls[0].arguments)["content"] == page


async def test_wrong_types_in_chunks_are_ignored_not_raised(harness: Harness) -> None:
    events: list[Event] = [
        Chunk({"id": 5, "model": ["m"], "provider": {}, "choices": "oops"}),
        Chunk({"choices": {"0": {"delta": {"content": "lost"}}}}),
        Chunk({"choices": ["a string"]}),
        Chunk({"choices": [{"delta": "text"}]}),
        Chunk({"choices": [None]}),
        delta({"content": 42}),
        delta({"content": None, "reasoning": 7, "reasoning_details": {"type": "x"}}),
        delta({"tool_calls": {"index": 0, "function": {"name": "create_file"}}}),
        delta({"tool_calls": [{"index": "zero", "function": "create_file"}]}),
        delta({"content": "Hello"}, finish=5),
        delta({"content": " world"}, finish=["stop"]),
        delta({}, finish="stop", usage="lots"),
        Done(),
    ]
    harness.fake.script(Stream(events))

    _, message = await harness.run()

    assert message.content == "Hello world"
    assert message.reasoning == ""
    assert message.tool_calls == ()
    assert message.finish_reason == "stop"
    assert message.usage is None
    assert (message.model, message.provider, message.generation_id) == (None, None, None)


async def test_hostile_usage_numbers_are_tamed(harness: Harness) -> None:
    usage = {
        "prompt_tokens": "12",
        "completion_tokens": -5,
        "total_tokens": 10**30,
        "cost": "0.001",
        "completion_tokens_details": "none",
        "prompt_tokens_details": {"cached_tokens": 3.0},
    }
    harness.fake.script(text("ok", usage=usage))

    _, message = await harness.run()

    assert message.usage == Usage(
        prompt_tokens=0,
        completion_tokens=0,
        total_tokens=10**12,  # clamped: nothing real is that large
        reasoning_tokens=0,
        cached_tokens=3,
        cost=Decimal("0.001"),
    )


@pytest.mark.parametrize("cost", ["abc", "NaN", "Infinity", True, [1], {"usd": 1}])
async def test_a_cost_that_is_not_a_number_is_no_cost(harness: Harness, cost: object) -> None:
    harness.fake.script(text("ok", usage={"prompt_tokens": 1, "cost": cost}))

    _, message = await harness.run()

    assert message.usage is not None
    assert message.usage.cost is None
    assert message.usage.prompt_tokens == 1


async def test_an_absurd_cost_does_not_break_summing_a_turn(harness: Harness) -> None:
    harness.fake.script(text("ok", usage={"prompt_tokens": 1, "cost": "1e999999999"}))

    _, message = await harness.run()
    assert message.usage is not None

    total = Usage() + message.usage  # what a turn does with each request's usage
    assert total.prompt_tokens == 1


async def test_a_negative_cost_is_not_credited(harness: Harness) -> None:
    harness.fake.script(text("ok", usage={"prompt_tokens": 1, "cost": -5}))

    _, message = await harness.run()

    assert message.usage is not None
    assert message.usage.cost is None or message.usage.cost >= 0


async def test_deeply_nested_json_in_the_stream_is_skipped_like_other_garbage(
    harness: Harness,
) -> None:
    harness.fake.script(Stream([data_line(b"[" * 100_000), *HELLO_WORLD]))

    _, message = await harness.run()

    assert message.content == "Hello world"


async def test_a_deeply_nested_error_body_is_still_a_typed_error(harness: Harness) -> None:
    harness.fake.script(HttpError(400, body="[" * 60_000))

    with pytest.raises(BadRequestError):
        await harness.run()


async def test_a_deeply_nested_one_piece_answer_is_a_typed_error(
    harness: Harness,
) -> None:
    harness.fake.script(*[Json("[" * 100_000)] * 3)

    with pytest.raises(UnavailableError):
        await asyncio.wait_for(harness.run(), HANG)


async def test_a_stream_with_a_corrupt_content_encoding_is_a_typed_error(
    harness: Harness,
) -> None:
    corrupt = Stream(HELLO_WORLD, headers={"Content-Encoding": "gzip"})
    harness.fake.script(corrupt, corrupt, corrupt)

    with pytest.raises(UnavailableError):
        await harness.run()


async def test_a_one_piece_answer_with_a_corrupt_content_encoding_is_a_typed_error(
    harness: Harness,
) -> None:
    corrupt = Json("not gzip at all", headers={"Content-Encoding": "gzip"})
    harness.fake.script(corrupt, corrupt, corrupt)

    with pytest.raises(UnavailableError):
        await asyncio.wait_for(harness.run(), HANG)


async def test_an_error_page_with_a_corrupt_content_encoding_is_still_the_error(
    harness: Harness,
) -> None:
    corrupt = HttpError(502, body="Bad Gateway", headers={"Content-Encoding": "gzip"})
    harness.fake.script(corrupt, corrupt, corrupt)

    with pytest.raises(UnavailableError) as caught:
        await harness.run()

    assert caught.value.status == 502


async def test_a_byte_order_mark_does_not_cost_the_first_chunk(harness: Harness) -> None:
    harness.fake.script(Stream([Raw(b"\xef\xbb\xbf"), *HELLO_WORLD]))

    _, message = await harness.run()

    assert message.content == "Hello world"


async def test_bare_cr_line_endings_are_a_typed_error_not_garbage(harness: Harness) -> None:
    # DESIGN §4 promises LF and CRLF only; CR alone must at least fail cleanly.
    stream = b"".join(
        b"data: " + json.dumps(chunk.data).encode() + b"\r\r"
        for chunk in HELLO_WORLD
        if isinstance(chunk, Chunk)
    )
    harness.fake.script(*[Stream([Raw(stream + b"data: [DONE]\r\r")])] * 3)

    with pytest.raises(StreamCutError) as caught:
        await harness.run()

    assert "stopped before it was complete" in str(caught.value)


async def test_an_emoji_split_into_surrogate_halves_is_whole_again(harness: Harness) -> None:
    events: list[Event] = [
        data_line(b'{"choices":[{"delta":{"content":"Hi \\ud83d"}}]}'),
        data_line(b'{"choices":[{"delta":{"content":"\\ude00"}}]}'),
        delta({}, "stop"),
        Done(),
    ]
    harness.fake.script(Stream(events))

    _, message = await harness.run()

    assert message.content == "Hi \U0001f600"


async def test_a_message_with_a_lone_surrogate_is_not_blamed_on_a_parameter(
    harness: Harness,
) -> None:
    harness.fake.script(text("ok"))
    request = ChatRequest(model="openai/gpt-4o-mini", messages=[ChatMessage.user("hi \ud83d")])

    # Sent as it is (escaped or replaced), or refused with a message that says why.
    outcome: object
    try:
        _, outcome = await harness.run(request)
    except BadRequestError as error:
        outcome = error
    assert "finite number" not in str(outcome)


# --- Errors a provider reports ------------------------------------------------


async def test_an_error_given_as_a_plain_string_keeps_its_words(harness: Harness) -> None:
    harness.fake.script(Json({"error": "The model 'qwen-9000' does not exist"}, status=400))

    with pytest.raises(ModelNotFoundError) as caught:
        await harness.run()

    assert "qwen-9000" in str(caught.value)


async def test_an_in_stream_error_given_as_a_string_keeps_its_words(harness: Harness) -> None:
    events = [HELLO_WORLD[0], Chunk({"error": "upstream model crashed"})]
    harness.fake.script(Stream(events))

    with pytest.raises(InStreamError) as caught:
        await harness.run()

    assert "upstream model crashed" in str(caught.value)


async def test_an_enormous_error_page_becomes_a_short_message(harness: Harness) -> None:
    page = "<html><body><h1>Service Unavailable</h1>" + "<p>filler</p>" * 400_000
    harness.fake.script(*[HttpError(503, body=page)] * 3)

    with pytest.raises(UnavailableError) as caught:
        await harness.run()

    message = str(caught.value)
    assert "Service Unavailable" in message
    assert len(message) < 1000
    assert len(harness.fake.requests) == 3


async def test_an_enormous_json_error_message_becomes_a_short_message(harness: Harness) -> None:
    words = "The provider is overloaded. " * 2000
    harness.fake.script(Json({"error": {"code": 400, "message": words}}, status=400))

    with pytest.raises(BadRequestError) as caught:
        await harness.run()

    assert "overloaded" in str(caught.value)
    assert len(str(caught.value)) < 1000


async def test_a_hostile_error_page_is_read_only_at_its_start(
    fake_openrouter: FakeOpenRouter,
) -> None:
    # Error pages are read on the event loop: only their start is looked at,
    # so a huge or pathological page ("<" * 64 KB) cannot hold up other streams.
    harness = make_harness(fake_openrouter, max_retries=0)
    page = "<" * 65536 + "<p>Words far beyond the start</p>"
    fake_openrouter.script(HttpError(502, body=page))

    with pytest.raises(UnavailableError) as caught:
        await asyncio.wait_for(harness.run(), HANG)
    await harness.client.aclose()

    assert caught.value.status == 502
    assert "Words far beyond" not in str(caught.value)
    assert len(caught.value.upstream_message) <= 300


# --- Odd HTTP answers ------------------------------------------------------------


async def test_an_html_page_with_200_for_a_stream_is_a_typed_error(harness: Harness) -> None:
    page = "<html><body><h1>Sign in to the hotel Wi-Fi</h1></body></html>"
    harness.fake.script(*[HttpError(200, body=page)] * 3)

    with pytest.raises(BadRequestError) as caught:
        await harness.run()

    assert "OPENROUTER_BASE_URL" in str(caught.value)
    assert "Sign in to the hotel Wi-Fi" in str(caught.value)
    assert len(harness.fake.requests) == 1  # a misconfiguration: retrying will not help


async def test_an_empty_200_stream_is_a_cut_stream(harness: Harness) -> None:
    harness.fake.script(*[Stream([])] * 3)

    with pytest.raises(StreamCutError):
        await harness.run()

    assert len(harness.fake.requests) == 3


async def test_204_no_content_is_a_typed_error(harness: Harness) -> None:
    harness.fake.script(*[HttpError(204, body="")] * 3)

    with pytest.raises(LLMError):
        await asyncio.wait_for(harness.run(), HANG)


async def test_a_one_piece_answer_that_is_not_an_object_is_a_typed_error(
    harness: Harness,
) -> None:
    harness.fake.script(*[Json("[1, 2, 3]")] * 3)

    with pytest.raises(UnavailableError):
        await asyncio.wait_for(harness.run(), HANG)


async def test_headers_then_silence_is_a_stall(fake_openrouter: FakeOpenRouter) -> None:
    harness = make_harness(fake_openrouter, read_timeout=0.3, max_retries=0)
    fake_openrouter.script(Stream([Stall()]))

    with pytest.raises(StalledError) as caught:
        await harness.run()
    await harness.client.aclose()

    assert not caught.value.output_started
    assert "stopped sending" in str(caught.value)


async def test_a_server_that_holds_the_connection_after_done_does_not_hang(
    fake_openrouter: FakeOpenRouter,
) -> None:
    harness = make_harness(fake_openrouter, read_timeout=60.0)
    fake_openrouter.script(Stream([*HELLO_WORLD, Stall()]))

    _, message = await harness.run()
    await harness.client.aclose()

    assert message.content == "Hello world"


# --- Retry-After --------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "-5"}, 0.0),
        ({"Retry-After": "Mon, 01 Jan 2001 00:00:00 GMT"}, 0.0),
        ({"Retry-After": "2.5"}, 2.5),
        ({"retry-after-ms": "1500", "Retry-After": "9"}, 1.5),
        ({"retry-after-ms": "abc", "Retry-After": "3"}, 3.0),
    ],
)
async def test_retry_after_values_are_honoured_sensibly(
    harness: Harness, headers: dict[str, str], expected: float
) -> None:
    harness.fake.script(HttpError(429, headers=headers), text("ok"))

    _, message = await harness.run()

    assert message.content == "ok"
    assert harness.sleeps == [expected]


@pytest.mark.parametrize("value", ["abc", "inf", "nan", "", "Mon, 99 Foo 2001 nonsense"])
async def test_a_meaningless_retry_after_falls_back_to_backoff(
    harness: Harness, value: str
) -> None:
    harness.fake.script(HttpError(429, headers={"Retry-After": value}), text("ok"))

    _, message = await harness.run()

    assert message.content == "ok"
    assert len(harness.sleeps) == 1
    assert 0.0 < harness.sleeps[0] <= harness.client.config.backoff_max


@pytest.mark.parametrize("value", ["1e9", "Fri, 31 Dec 9999 23:59:59 GMT"])
async def test_a_retry_after_beyond_the_cap_is_reported_not_waited_for(
    harness: Harness, value: str
) -> None:
    harness.fake.script(HttpError(429, headers={"Retry-After": value}), text("unused"))

    with pytest.raises(RateLimitedError) as caught:
        await harness.run()

    assert harness.sleeps == []
    assert caught.value.retry_after is not None
    assert caught.value.retry_after > harness.client.config.retry_max_wait
    assert harness.fake.pending == 1


# --- Many streams, leaving, closing, cancelling -----------------------------------------


def echo(request: RecordedRequest) -> Scripted:
    said = request.json["messages"][0]["content"]
    return text(f"You said {said}", content_pieces=4)


async def test_fifty_concurrent_streams_each_get_their_own_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The fake's listen backlog is socketserver's default of 5: fifty connections
    # at once overflow it and some are reset (the client then retries them).
    # A deeper backlog here, so every stream must succeed at its first attempt.
    monkeypatch.setattr(Server, "request_queue_size", 128)
    with FakeOpenRouter(responder=echo) as fake:
        harness = make_harness(fake)

        def ask(n: int) -> ChatRequest:
            return ChatRequest(model="openai/gpt-4o-mini", messages=[ChatMessage.user(f"#{n}")])

        results = await asyncio.wait_for(
            asyncio.gather(*(harness.run(ask(n)) for n in range(50))), 30
        )
        await harness.client.aclose()

    assert [message.content for _, message in results] == [f"You said #{n}" for n in range(50)]
    assert sorted(request.json["messages"][0]["content"] for request in fake.requests) == sorted(
        f"#{n}" for n in range(50)
    )
    assert harness.sleeps == []


async def test_fifty_concurrent_streams_survive_connection_resets(harness: Harness) -> None:
    # With the fake's default backlog some of these connections are reset
    # before a request is read: retried, each still gets its own answer.
    harness.fake.responder = echo

    def ask(n: int) -> ChatRequest:
        return ChatRequest(model="openai/gpt-4o-mini", messages=[ChatMessage.user(f"#{n}")])

    results = await asyncio.wait_for(asyncio.gather(*(harness.run(ask(n)) for n in range(50))), 30)

    assert [message.content for _, message in results] == [f"You said #{n}" for n in range(50)]
    assert len(harness.fake.requests) == 50


async def test_concurrent_streams_retry_independently(harness: Harness) -> None:
    failed: set[str] = set()
    lock = threading.Lock()

    def flaky(request: RecordedRequest) -> Scripted:
        said = request.json["messages"][0]["content"]
        with lock:
            first = said not in failed
            failed.add(said)
        if first and int(said) % 2:
            return HttpError(503)
        return echo(request)

    harness.fake.responder = flaky
    requests = [
        ChatRequest(model="openai/gpt-4o-mini", messages=[ChatMessage.user(str(n))])
        for n in range(20)
    ]

    results = await asyncio.wait_for(asyncio.gather(*(harness.run(r) for r in requests)), 30)

    assert [message.content for _, message in results] == [f"You said {n}" for n in range(20)]
    assert len(harness.fake.requests) == 30
    assert len(harness.sleeps) == 10


async def test_closing_a_stream_that_was_never_read_sends_nothing(harness: Harness) -> None:
    harness.fake.script(text("unused"))

    stream = harness.client.stream(REQUEST)
    await stream.aclose()
    after_close = [piece async for piece in stream]

    assert after_close == []
    assert harness.fake.requests == []
    assert harness.fake.pending == 1


async def test_leaving_one_stream_early_then_starting_another_works(harness: Harness) -> None:
    first = text("One two three", content_pieces=3).to_stream().events
    harness.fake.script(Stream([*first[:3], Stall()]), text("Second answer"))

    async with harness.client.stream(REQUEST) as pieces:
        async for piece in pieces:
            if isinstance(piece, ContentDelta):
                break
    _, message = await harness.run()

    assert message.content == "Second answer"
    assert len(harness.fake.requests) == 2
    assert await asyncio.to_thread(harness.fake.wait_for_disconnect, 5.0)


async def test_cancelling_during_a_retry_sleep_ends_at_once(
    fake_openrouter: FakeOpenRouter,
) -> None:
    sleeping = asyncio.Event()

    async def real_sleep(seconds: float) -> None:
        sleeping.set()
        await asyncio.sleep(seconds)

    config = ClientConfig(base_url=fake_openrouter.base_url, api_key="sk-test", max_retries=3)
    client = LLMClient(config, sleep=real_sleep)
    fake_openrouter.script(HttpError(429, headers={"Retry-After": "50"}), text("too late"))

    async def consume() -> None:
        async with client.stream(REQUEST) as pieces:
            async for _ in pieces:
                pass

    task = asyncio.create_task(consume())
    await asyncio.wait_for(sleeping.wait(), HANG)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, HANG)
    await client.aclose()

    assert len(fake_openrouter.requests) == 1
    assert fake_openrouter.pending == 1


@pytest.mark.parametrize("moment", ["connecting", "awaiting headers"])
async def test_cancelling_before_the_provider_answers_ends_at_once(
    fake_openrouter: FakeOpenRouter, moment: str
) -> None:
    received = threading.Event()
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]

        def read_and_ignore() -> None:
            connection, _ = silent.accept()
            with connection:
                while connection.recv(65536):  # until the client hangs up
                    received.set()

        reader = threading.Thread(target=read_and_ignore, daemon=True)
        reader.start()
        harness = make_harness(
            fake_openrouter, base_url=f"http://127.0.0.1:{port}/api/v1", read_timeout=60.0
        )
        task = asyncio.create_task(harness.run())
        if moment == "connecting":
            await asyncio.sleep(0)
        else:
            assert await asyncio.to_thread(received.wait, HANG)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, HANG)
        await harness.client.aclose()
        if moment == "awaiting headers":
            reader.join(HANG)
            assert not reader.is_alive()  # the client hung up

    assert harness.sleeps == []


# --- Unusual but honest answers ---------------------------------------------------


async def test_an_answer_that_is_only_reasoning(harness: Harness) -> None:
    harness.fake.script(Reply(reasoning="Let me think about the layout.", content=None))

    events, message = await harness.run()

    assert contents(events) == []
    assert any(isinstance(event, ReasoningDelta) for event in events)
    assert message.content == ""
    assert message.reasoning == "Let me think about the layout."
    assert message.tool_calls == ()
    assert message.finish_reason == "stop"
    assert message.to_chat_message().content == ""


async def test_a_truncated_answer_keeps_its_partial_call_and_says_length(
    harness: Harness,
) -> None:
    head = {"index": 0, "id": "call_1", "type": "function"}
    events: list[Event] = [
        delta({"content": "Writing the page."}),
        delta({"tool_calls": [head | {"function": {"name": "create_file", "arguments": ""}}]}),
        delta({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "a.html", '}}]}),
        delta({"tool_calls": [{"index": 0, "function": {"arguments": '"content": "<h1>Hel'}}]}),
        delta({}, "length"),
        Done(),
    ]
    harness.fake.script(Stream(events))

    _, message = await harness.run()

    assert message.finish_reason == "length"
    assert message.content == "Writing the page."
    [call] = message.tool_calls
    assert (call.id, call.name) == ("call_1", "create_file")
    assert call.arguments == '{"path": "a.html", "content": "<h1>Hel'


async def test_an_answer_with_nothing_but_a_finish_reason(harness: Harness) -> None:
    harness.fake.script(Reply(content=None, finish_reason="stop"))

    events, message = await harness.run()

    assert contents(events) == []
    assert message == AssistantMessage(
        finish_reason="stop",
        usage=message.usage,
        model="openai/gpt-4o-mini",
        provider="OpenAI",
        generation_id=message.generation_id,
    )
    assert message.usage is not None
    assert len(harness.fake.requests) == 1


async def test_an_error_chunk_right_after_an_unfinished_call_reports_output_started(
    harness: Harness,
) -> None:
    head = {"index": 0, "id": "call_1", "type": "function"}
    events: list[Event] = [
        delta({"tool_calls": [head | {"function": {"name": "create_file", "arguments": "{"}}]}),
        Chunk({"error": {"code": 502, "message": "Upstream went away"}}),
    ]
    harness.fake.script(Stream(events), text("unused"))

    with pytest.raises(InStreamError) as caught:
        await harness.run()

    assert caught.value.output_started
    assert caught.value.retryable
    assert "Upstream went away" in str(caught.value)
    assert harness.fake.pending == 1


async def test_every_failure_here_is_an_llm_error_or_a_result(harness: Harness) -> None:
    """A sweep of hostile streams, one after the other on one client: each ends
    in a message or an LLMError, never anything else, and the client stays usable."""
    hostile = [
        Stream([Raw(b"data: \xff\n\n"), delta({}, "stop"), Done()]),
        Stream([Raw(b"\n\n\n\n"), *HELLO_WORLD]),
        Stream([Raw(b"data: {}\n\n" * 1000), *HELLO_WORLD]),
        Stream([delta({"content": "half"}), Raw(b'data: {"choi')]),
        Stream([Chunk({"error": {}}), Done()]),
        Stream([Chunk({"error": {"code": True, "message": ["x"]}})]),
        Stream([delta({"content": "x"}, "error")]),
        Stream([Raw(b"data: [DONE]\n\n"), delta({"content": "after done"}, "stop")]),
    ]
    outcomes: list[str] = []
    for stream in hostile:
        harness.fake.responder = lambda request, stream=stream: stream  # every retry too
        try:
            _, message = await harness.run()
        except LLMError as error:
            outcomes.append(type(error).__name__ if str(error) else "LLMError without words")
        else:
            outcomes.append(repr(message.content))

    assert outcomes == [
        "''",
        "'Hello world'",
        "'Hello world'",
        "StreamCutError",
        "InStreamError",
        "InStreamError",
        "InStreamError",
        "''",
    ]
