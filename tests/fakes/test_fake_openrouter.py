"""The fake OpenRouter itself, over real sockets with a plain httpx client."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from demo.answering import demo_step
from fakes.demo import NEVER_STOPS, demo_responder
from fakes.openrouter import NO_SCRIPT, FakeOpenRouter, RecordedRequest
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
    Scripted,
    Stall,
    Stream,
    ToolCallScript,
    in_stream_error,
    text,
    tool_calls,
)

STREAM = {"model": "openai/gpt-4o-mini", "messages": [], "stream": True}


@pytest.fixture
def client(fake_openrouter: FakeOpenRouter) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=fake_openrouter.base_url, timeout=5) as http:
        yield http


def _post_stream(client: httpx.Client, body: dict[str, Any] = STREAM) -> bytes:
    with client.stream("POST", "/chat/completions", json=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/event-stream"
        return response.read()


def _lines(body: bytes) -> list[str]:
    return [line for line in body.decode().splitlines() if line]


def _chunks(body: bytes) -> list[dict[str, Any]]:
    data = [line.removeprefix("data: ") for line in _lines(body) if line.startswith("data: ")]
    return [json.loads(item) for item in data if item != "[DONE]"]


def _calls(chunks: list[dict[str, Any]]) -> dict[int, dict[str, str]]:
    """Tool-call fragments gathered by index, the way a client must."""
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for fragment in chunk["choices"][0]["delta"].get("tool_calls") or []:
            call = calls.setdefault(fragment["index"], {"id": "", "name": "", "arguments": ""})
            call["id"] += fragment.get("id", "")
            call["name"] += fragment.get("function", {}).get("name", "")
            call["arguments"] += fragment.get("function", {}).get("arguments", "")
    return calls


def test_streamed_reply_has_openrouter_quirks(
    fake_openrouter: FakeOpenRouter, client: httpx.Client
) -> None:
    fake_openrouter.script(
        Reply(
            content="Let me write it.",
            reasoning="The user wants a page.",
            tool_calls=[ToolCallScript("create_file", {"path": "index.html", "content": "<p>"})],
        )
    )
    body = _post_stream(client)
    lines = _lines(body)
    assert lines[0] == ": OPENROUTER PROCESSING"
    assert lines[-1] == "data: [DONE]"
    chunks = _chunks(body)
    assert {c["id"] for c in chunks} == {chunks[0]["id"]}
    assert all(c["choices"][0]["delta"]["role"] == "assistant" for c in chunks)
    assert "".join(c["choices"][0]["delta"].get("reasoning", "") for c in chunks) == (
        "The user wants a page."
    )
    content = [c["choices"][0]["delta"]["content"] for c in chunks]
    assert "".join(piece for piece in content if piece) == "Let me write it."
    tool_chunks = [c for c in chunks if "tool_calls" in c["choices"][0]["delta"]]
    assert len(tool_chunks) == 4  # a head fragment, then three argument pieces
    assert all(c["choices"][0]["delta"]["content"] is None for c in tool_chunks)
    [call] = _calls(chunks).values()
    assert call["name"] == "create_file"
    assert call["id"].startswith("call_")
    assert json.loads(call["arguments"]) == {"path": "index.html", "content": "<p>"}
    finish, usage = chunks[-2], chunks[-1]
    assert finish["choices"][0]["finish_reason"] == "tool_calls"
    assert usage["choices"][0]["finish_reason"] == "tool_calls"
    assert usage["usage"]["cost"] == 0.00042


def test_reply_options_shape_the_stream(
    fake_openrouter: FakeOpenRouter, client: httpx.Client
) -> None:
    fake_openrouter.script(
        tool_calls(
            ToolCallScript("list_project_files", id=None),
            ToolCallScript("read_file", '{"path": "a', id="dup"),  # invalid JSON on purpose
            ToolCallScript("read_file", {"path": "b"}, id="dup"),
            argument_pieces=1,
            tool_call_indexes=[0, 0, 0],
            finish_reason="stop",
            usage_repeats_finish=False,
            keepalive=False,
            done=False,
        )
    )
    body = _post_stream(client)
    assert not body.startswith(b":")
    assert b"[DONE]" not in body
    chunks = _chunks(body)
    fragments = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks[:3]]
    assert fragments[0] == {
        "index": 0,
        "type": "function",
        "function": {"name": "list_project_files"},
    }
    assert fragments[1]["id"] == fragments[2]["id"] == "dup"
    assert fragments[1]["function"]["arguments"] == '{"path": "a'
    assert [f["index"] for f in fragments] == [0, 0, 0]
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"][0]["finish_reason"] is None
    assert "usage" in chunks[-1]


def test_no_finish_reason_and_no_usage(
    fake_openrouter: FakeOpenRouter, client: httpx.Client
) -> None:
    fake_openrouter.script(text("cut short", finish_reason=None, usage=None, done=False))
    chunks = _chunks(_post_stream(client))
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks)
    assert all("usage" not in c for c in chunks)


def test_crlf_line_endings(fake_openrouter: FakeOpenRouter, client: httpx.Client) -> None:
    fake_openrouter.script(text("Hello", line_ending="\r\n"))
    body = _post_stream(client)
    assert body.startswith(b": OPENROUTER PROCESSING\r\n\r\ndata: {")
    assert body.endswith(b"data: [DONE]\r\n\r\n")
    assert body.count(b"\n") == body.count(b"\r\n")


def test_piece_size_splits_writes_but_not_the_bytes(
    fake_openrouter: FakeOpenRouter, client: httpx.Client
) -> None:
    stream = text("Grüße, 世界! ✨", content_pieces=2).to_stream()
    fake_openrouter.script(stream, dataclasses.replace(stream, piece_size=5))
    whole = _post_stream(client)
    with client.stream("POST", "/chat/completions", json=STREAM) as response:
        pieces = list(response.iter_raw())
    assert b"".join(pieces) == whole
    # Chunked framing is never merged by the client, so each write arrives on its own.
    assert max(len(piece) for piece in pieces) <= 5
    assert len(pieces) >= len(whole) // 5
    assert any(not _is_utf8(piece) for piece in pieces)  # some cut a character in two


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def test_non_streaming_request_gets_a_completion(
    fake_openrouter: FakeOpenRouter, client: httpx.Client
) -> None:
    call = ToolCallScript("create_file", {"path": "a.html"}, id="toolu_01")
    fake_openrouter.script(Reply(content="Done.", reasoning="hm", tool_calls=[call]))
    response = client.post("/chat/completions", json={"model": "x", "messages": []})
    assert response.headers["content-type"] == "application/json"
    completion = response.json()
    assert completion["object"] == "chat.completion"
    choice = completion["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] == "Done."
    assert choice["message"]["reasoning"] == "hm"
    assert choice["message"]["tool_calls"] == [
        {
            "index": 0,
            "id": "toolu_01",
            "type": "function",
            "function": {"name": "create_file", "arguments": '{"path": "a.html"}'},
        }
    ]
    assert completion["usage"]["total_tokens"] == 120


def test_http_errors(fake_openrouter: FakeOpenRouter, client: httpx.Client) -> None:
    fake_openrouter.script(
        HttpError(429, headers={"Retry-After": "2"}),
        HttpError(403, code="moderation", metadata={"reasons": ["violence"]}),
        HttpError(502, body="<html><body>Bad gateway</body></html>"),
        Json({"id": "gen-1", "choices": []}, status=201),
    )
    limited = client.post("/chat/completions", json=STREAM)
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "2"
    assert limited.json() == {"error": {"code": 429, "message": "Rate limit exceeded"}}
    flagged = client.post("/chat/completions", json=STREAM).json()
    assert flagged["error"]["code"] == "moderation"
    assert flagged["error"]["metadata"] == {"reasons": ["violence"]}
    gateway = client.post("/chat/completions", json=STREAM)
    assert gateway.status_code == 502
    assert gateway.headers["content-type"].startswith("text/html")
    assert gateway.text == "<html><body>Bad gateway</body></html>"
    verbatim = client.post("/chat/completions", json=STREAM)
    assert (verbatim.status_code, verbatim.json()) == (201, {"id": "gen-1", "choices": []})


def test_in_stream_error_arrives_with_status_200(
    fake_openrouter: FakeOpenRouter, client: httpx.Client
) -> None:
    before = Chunk({"choices": [{"index": 0, "delta": {"content": "Hel"}}]})
    fake_openrouter.script(in_stream_error("server_error", "Provider disconnected", after=[before]))
    body = _post_stream(client)
    assert b"[DONE]" not in body
    first, error = _chunks(body)
    assert first["choices"][0]["delta"]["content"] == "Hel"
    assert error["error"] == {"code": "server_error", "message": "Provider disconnected"}
    assert error["choices"][0]["finish_reason"] == "error"


def test_low_level_events_are_written_verbatim(
    fake_openrouter: FakeOpenRouter, client: httpx.Client
) -> None:
    fake_openrouter.script(
        Stream(
            [Comment("hi"), Raw(b"data: {not json\n\n"), Pause(0.01), Done()], headers={"X-A": "1"}
        )
    )
    with client.stream("POST", "/chat/completions", json=STREAM) as response:
        assert response.headers["x-a"] == "1"
        assert response.read() == b": hi\n\ndata: {not json\n\ndata: [DONE]\n\n"


def test_drop_cuts_the_stream(fake_openrouter: FakeOpenRouter, client: httpx.Client) -> None:
    fake_openrouter.script(Stream([Chunk({"choices": []}), Drop()]), text("again"))
    with (
        pytest.raises(httpx.RemoteProtocolError),
        client.stream("POST", "/chat/completions", json=STREAM) as response,
    ):
        response.read()
    assert _chunks(_post_stream(client))  # the next request gets a fresh connection
    assert fake_openrouter.disconnects == 0


@pytest.mark.parametrize("holding", [Stall(), Pause(60)])
def test_client_leaving_mid_stream_is_counted(
    fake_openrouter: FakeOpenRouter, client: httpx.Client, holding: Stall | Pause
) -> None:
    fake_openrouter.script(Stream([Comment(), holding, Done()]))
    with client.stream("POST", "/chat/completions", json=STREAM) as response:
        assert next(response.iter_lines()) == ": OPENROUTER PROCESSING"
    assert fake_openrouter.wait_for_disconnect()
    assert fake_openrouter.disconnects == 1


def test_requests_are_recorded(fake_openrouter: FakeOpenRouter, client: httpx.Client) -> None:
    fake_openrouter.script(text("hi"))
    headers = {"Authorization": "Bearer sk-or-test", "X-Title": "Built-It"}
    client.post("/chat/completions", json={**STREAM, "messages": ["m"]}, headers=headers)
    client.get("/models")
    client.get("/elsewhere")
    assert fake_openrouter.wait_for_requests(2)
    post, get = fake_openrouter.requests
    (listed,) = fake_openrouter.model_lists  # kept apart: what the model was asked stays first
    assert (listed.method, listed.path) == ("GET", "/api/v1/models")
    assert isinstance(post, RecordedRequest)
    assert (post.method, post.path) == ("POST", "/api/v1/chat/completions")
    assert post.headers["authorization"] == "Bearer sk-or-test"
    assert post.headers["x-title"] == "Built-It"
    assert post.json == {**STREAM, "messages": ["m"]}
    assert json.loads(post.body) == post.json
    assert (get.method, get.path, get.body, get.json) == ("GET", "/api/v1/elsewhere", b"", None)
    assert not fake_openrouter.wait_for_requests(3, timeout=0.01)


def test_models_and_routes(fake_openrouter: FakeOpenRouter, client: httpx.Client) -> None:
    models = client.get("/models").json()["data"]
    assert len(models) == 5
    assert all(isinstance(m["pricing"]["prompt"], str) for m in models)
    assert all("text" in m["architecture"]["input_modalities"] for m in models)
    assert all(m["id"] and m["name"] and m["context_length"] for m in models)
    fake_openrouter.script(text("no prefix"))
    root = f"http://127.0.0.1:{fake_openrouter.port}"
    assert client.post(f"{root}/chat/completions", json={}).json()["choices"]
    missing = client.get("/nothing")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == 404


def test_missing_script_fails_loudly(client: httpx.Client) -> None:
    response = client.post("/chat/completions", json=STREAM)
    assert response.status_code == 400
    assert (
        response.json()["error"]["message"]
        == NO_SCRIPT
        == "fake OpenRouter: no scripted reply left"
    )


def test_keep_alive_connection_is_reused(
    fake_openrouter: FakeOpenRouter, client: httpx.Client
) -> None:
    fake_openrouter.script(text("one"), text("two"))
    addresses = []
    for _ in range(2):
        with client.stream("POST", "/chat/completions", json=STREAM) as response:
            response.read()
            addresses.append(response.extensions["network_stream"].get_extra_info("client_addr"))
    assert addresses[0] == addresses[1]
    assert fake_openrouter.pending == 0


def test_responder_answers_when_the_queue_is_empty() -> None:
    seen: list[str] = []

    def respond(request: RecordedRequest) -> Scripted:
        seen.append(request.json["model"])
        return text(f"answer for {request.json['model']}")

    with FakeOpenRouter(responder=respond) as fake, httpx.Client(base_url=fake.base_url) as http:
        fake.script(text("scripted first"))
        first = http.post("/chat/completions", json={"model": "a"}).json()
        second = http.post("/chat/completions", json={"model": "b"}).json()
    assert first["choices"][0]["message"]["content"] == "scripted first"
    assert second["choices"][0]["message"]["content"] == "answer for b"
    assert seen == ["b"]


def test_a_failing_responder_is_reported_to_the_client(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def respond(request: RecordedRequest) -> Scripted:
        raise LookupError("no such model")

    with FakeOpenRouter(responder=respond) as fake, httpx.Client(base_url=fake.base_url) as http:
        response = http.post("/chat/completions", json={})
    assert response.status_code == 500
    assert "LookupError('no such model')" in response.json()["error"]["message"]
    assert "Traceback" in capsys.readouterr().err


def test_stop_returns_while_a_handler_is_stalled() -> None:
    fake = FakeOpenRouter().start()
    fake.script(Stream([Comment(), Stall()]))
    streaming = threading.Event()
    errors: list[Exception] = []

    def listen() -> None:
        try:
            with (
                httpx.Client(base_url=fake.base_url, timeout=30) as http,
                http.stream("POST", "/chat/completions", json=STREAM) as response,
            ):
                lines = response.iter_lines()
                next(lines)
                streaming.set()
                list(lines)
        except httpx.HTTPError as exc:
            errors.append(exc)

    listener = threading.Thread(target=listen)
    listener.start()
    try:
        assert streaming.wait(5)
        stopper = threading.Thread(target=fake.stop)
        stopper.start()
        stopper.join(timeout=10)
        listener.join(timeout=10)
    finally:
        fake.stop()
    assert not stopper.is_alive()
    assert not listener.is_alive()
    assert errors  # the client saw its stream end without the chunked terminator
    assert fake.disconnects == 0  # stopping is not a client leaving


def test_stopped_fake_serves_no_pooled_connection(fake_openrouter: FakeOpenRouter) -> None:
    with httpx.Client(base_url=fake_openrouter.base_url, timeout=5) as http:
        assert http.get("/models").status_code == 200  # leaves a keep-alive connection
        fake_openrouter.stop()
        with pytest.raises(httpx.TransportError):
            http.get("/models")
    assert len(fake_openrouter.model_lists) == 1


WISH = "A bakery called Crumb, with our opening hours and a contact form"
# The tools a turn offers, as the agent names them (chat.tools).
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {}}}
    for name in ("list_files", "read_file", "create_file", "update_file", "edit_file")
]


@pytest.fixture
def demo() -> Iterator[httpx.Client]:
    with (
        FakeOpenRouter(responder=demo_responder) as fake,
        httpx.Client(base_url=fake.base_url, timeout=10) as http,
    ):
        yield http


def _demo_turn(http: httpx.Client, messages: list[dict[str, Any]], **extra: Any) -> list[Any]:
    return _chunks(_post_stream(http, {**STREAM, "messages": messages, **extra}))


def _content(chunks: list[dict[str, Any]]) -> str:
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)


def _reasoning(chunks: list[dict[str, Any]]) -> str:
    return "".join(c["choices"][0]["delta"].get("reasoning") or "" for c in chunks)


def test_the_fake_answers_with_the_products_own_demo(demo: httpx.Client) -> None:
    """One offline demo: over HTTP the fake says and calls what `builtit/demo` would."""
    body = {**STREAM, "messages": [{"role": "user", "content": WISH}], "tools": TOOLS}
    step = demo_step(body)

    chunks = _chunks(_post_stream(demo, body))

    calls = [(c["name"], json.loads(c["arguments"])) for c in _calls(chunks).values()]
    assert calls == [(name, arguments) for name, arguments in step.calls]
    assert calls, "a description with tools offered starts work"
    assert _content(chunks) == step.content
    assert _reasoning(chunks) == step.reasoning
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["model"] == "openai/gpt-4o-mini"
    assert 0 < chunks[-1]["usage"]["cost"] < 0.01, "priced like the model it names"


def test_demo_has_a_model_that_never_stops_until_the_client_leaves(
    demo: httpx.Client,
) -> None:
    body = {**STREAM, "model": NEVER_STOPS, "messages": [{"role": "user", "content": "hi"}]}
    with demo.stream("POST", "/chat/completions", json=body) as response:
        lines = response.iter_lines()
        deltas = [next(lines) for _ in range(2000)]
    written = "".join(
        json.loads(line[6:])["choices"][0]["delta"]["content"]
        for line in deltas
        if line.startswith("data: ")
    )
    assert len(written) > 50_000, "a thousand chunks, and no end in sight"


def test_a_greeting_gets_the_demos_help_and_no_calls(demo: httpx.Client) -> None:
    messages = [{"role": "user", "content": "hi"}]
    chunks = _demo_turn(demo, messages, tools=TOOLS)
    assert _content(chunks) == demo_step({"messages": messages, "tools": TOOLS}).content
    assert "site" in _content(chunks)
    assert not _calls(chunks)
