"""The typed errors of DESIGN §4: an HTTP error response or a transport failure in,
the right LLMError out, with the provider's own words kept."""

from __future__ import annotations

import email.utils
import json
from types import SimpleNamespace

import httpx
import pytest

from chat.llm import errors
from chat.llm.errors import (
    AuthenticationError,
    BadRequestError,
    ContextTooLongError,
    InStreamError,
    InsufficientCreditsError,
    LLMError,
    ModelNotFoundError,
    ModerationError,
    RateLimitedError,
    StalledError,
    StreamCutError,
    UnavailableError,
    error_from_response,
    error_from_transport,
    retry_after_seconds,
)
from common.jsontypes import JSONObject

NOW = 1_750_000_000.0
REQUEST = httpx.Request("POST", "https://openrouter.ai/api/v1/chat/completions")


def openrouter_body(code: int | str, message: str, **metadata: object) -> bytes:
    error: JSONObject = {"code": code, "message": message}
    if metadata:
        error["metadata"] = metadata  # type: ignore[assignment]
    return json.dumps({"error": error}).encode()


def error_for(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> LLMError:
    response = httpx.Response(status, headers=headers or {}, content=body, request=REQUEST)
    return error_from_response(response, body)


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(errors, "time", SimpleNamespace(time=lambda: NOW))


# --- by status ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (400, "Invalid value for 'temperature'", BadRequestError),
        (401, "No auth credentials found", AuthenticationError),
        (402, "Insufficient credits. Add more at https://openrouter.ai", InsufficientCreditsError),
        (403, "Input was flagged", ModerationError),
        (408, "Request timed out", UnavailableError),
        (413, "Request entity too large", BadRequestError),
        (422, "Unprocessable entity", BadRequestError),
        (429, "Rate limit exceeded", RateLimitedError),
        (500, "Internal server error", UnavailableError),
        (502, "Provider returned error", UnavailableError),
        (503, "No available providers", UnavailableError),
        (504, "Gateway timeout", UnavailableError),
    ],
)  # fmt: skip
def test_each_status_is_its_own_error(status: int, message: str, kind: type[LLMError]) -> None:
    error = error_for(status, openrouter_body(status, message))

    assert type(error) is kind
    assert error.status == status
    assert error.code == status
    assert error.upstream_message == message
    assert message in error.message
    assert error.output_started is False


@pytest.mark.parametrize(
    ("kind", "retryable"),
    [
        (AuthenticationError, False),
        (InsufficientCreditsError, False),
        (ModerationError, False),
        (BadRequestError, False),
        (ContextTooLongError, False),
        (ModelNotFoundError, False),
        (RateLimitedError, True),
        (UnavailableError, True),
        (StalledError, True),
        (StreamCutError, True),
    ],
)
def test_retryable_per_class(kind: type[LLMError], retryable: bool) -> None:
    assert kind("x").retryable is retryable


@pytest.mark.parametrize("retryable", [True, False])
def test_in_stream_error_is_retryable_as_told(retryable: bool) -> None:
    assert InStreamError("x", retryable=retryable).retryable is retryable


def test_the_tree_is_rooted_as_documented() -> None:
    assert issubclass(ContextTooLongError, BadRequestError)
    assert issubclass(ModelNotFoundError, BadRequestError)
    assert issubclass(StalledError, UnavailableError)
    assert issubclass(StreamCutError, UnavailableError)
    assert issubclass(InStreamError, LLMError)


@pytest.mark.parametrize(
    "message",
    [
        "This endpoint's maximum context length is 128000 tokens. However, you requested "
        "about 131072 tokens. Please reduce the length of either one.",
        "prompt is too long: 210000 tokens > 200000 maximum",
        "Input is too long for requested model.",
        "The input token count exceeds the context window",
    ],
)
def test_a_400_about_context_length_is_context_too_long(message: str) -> None:
    error = error_for(400, openrouter_body(400, message))

    assert type(error) is ContextTooLongError
    assert error.upstream_message == message
    assert error.retryable is False


def test_context_length_exceeded_code_is_context_too_long() -> None:
    error = error_for(400, openrouter_body("context_length_exceeded", "Too big."))

    assert type(error) is ContextTooLongError


@pytest.mark.parametrize(
    "message",
    [
        "x-ai/grok-99 is not a valid model ID",
        "No endpoints found for acme/imaginary-model.",
        "The model `gpt-5-turbo` does not exist",
    ],
)
def test_a_400_naming_a_bad_model_is_model_not_found(message: str) -> None:
    assert type(error_for(400, openrouter_body(400, message))) is ModelNotFoundError


def test_a_404_is_model_not_found() -> None:
    error = error_for(404, openrouter_body(404, "Not Found"))

    assert type(error) is ModelNotFoundError
    assert error.retryable is False


def test_a_404_with_an_empty_body_is_model_not_found() -> None:
    error = error_for(404)

    assert type(error) is ModelNotFoundError
    assert error.upstream_message == ""
    assert error.message


def test_moderation_message_names_the_flagged_reasons() -> None:
    body = openrouter_body(
        403,
        "openai/gpt-4o requires moderation on OpenAI. Your input was flagged.",
        reasons=["violence", "harassment/threatening"],
        flagged_input="...",
        provider_name="OpenAI",
        model_slug="openai/gpt-4o",
    )

    error = error_for(403, body)

    assert type(error) is ModerationError
    assert "violence" in error.message
    assert "harassment/threatening" in error.message
    assert "Your input was flagged" in error.upstream_message
    assert error.provider == "OpenAI"
    assert error.retryable is False


def test_openrouter_body_with_raw_and_provider_name_keeps_both() -> None:
    raw = '{"error":{"type":"overloaded_error","message":"Overloaded"}}'
    body = openrouter_body(502, "Provider returned error", raw=raw, provider_name="Anthropic")

    error = error_for(502, body)

    assert type(error) is UnavailableError
    assert error.provider == "Anthropic"
    assert error.upstream_message.startswith("Provider returned error")
    assert "Overloaded" in error.upstream_message
    assert error.code == 502


def test_raw_that_repeats_the_message_is_not_added_twice() -> None:
    body = openrouter_body(400, "Bad things", raw="Bad things")

    assert error_for(400, body).upstream_message == "Bad things"


def test_raw_alone_is_the_message() -> None:
    body = json.dumps({"error": {"code": 400, "metadata": {"raw": "only raw"}}}).encode()

    assert error_for(400, body).upstream_message == "only raw"


def test_an_openai_style_string_code_is_kept() -> None:
    body = json.dumps(
        {"error": {"message": "Incorrect API key provided", "type": "x", "code": "invalid_api_key"}}
    ).encode()

    error = error_for(401, body)

    assert type(error) is AuthenticationError
    assert error.code == "invalid_api_key"
    assert error.upstream_message == "Incorrect API key provided"


def test_an_error_given_as_plain_text_is_used() -> None:
    # LM Studio and some proxies answer {"error": "..."}.
    assert error_for(400, b'{"error": "flat string"}').upstream_message == "flat string"


def test_a_top_level_message_without_error_object_is_used() -> None:
    assert error_for(400, b'{"message": "bad input"}').upstream_message == "bad input"


@pytest.mark.parametrize("body", [b"[]", b'"oops"', b"null"])
def test_json_bodies_of_other_shapes_give_the_summary_only(body: bytes) -> None:
    error = error_for(400, body)

    assert type(error) is BadRequestError
    assert error.upstream_message == ""
    assert error.message == "The request was refused (HTTP 400)"


CLOUDFLARE_PAGE = (
    b"<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n"
    b"<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>cloudflare</center>\n"
    + b"<!-- padding -->\n" * 200
    + b"</body>\n</html>\n"
)


def test_an_html_error_page_becomes_short_plain_text() -> None:
    error = error_for(502, CLOUDFLARE_PAGE, {"content-type": "text/html"})

    assert type(error) is UnavailableError
    assert error.upstream_message.startswith("502 Bad Gateway 502 Bad Gateway cloudflare")
    assert "<" not in error.message
    assert ">" not in error.message
    assert "\n" not in error.upstream_message
    assert len(error.upstream_message) <= 300


def test_a_long_plain_text_body_is_cut_short() -> None:
    error = error_for(500, b"upstream exploded " * 100)

    assert error.upstream_message.startswith("upstream exploded upstream exploded")
    assert len(error.upstream_message) <= 300


def test_a_body_that_is_not_utf8_does_not_raise() -> None:
    error = error_for(500, b"\xff\xfe\x00bad bytes")

    assert type(error) is UnavailableError
    assert "bad bytes" in error.upstream_message


# --- Retry-After ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"Retry-After": " 2.5 "}, 2.5),
        ({"Retry-After": "0"}, 0.0),
        ({"Retry-After": "-5"}, 0.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "1500", "Retry-After": "30"}, 1.5),
        ({"retry-after-ms": "soon", "Retry-After": "30"}, 30.0),
        ({"Retry-After": "nan"}, None),
        ({"Retry-After": "inf"}, None),
        ({"Retry-After": "whenever"}, None),
        ({}, None),
    ],
)
def test_retry_after_seconds_from_headers(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after_seconds(httpx.Headers(headers)) == seconds


@pytest.mark.usefixtures("frozen_clock")
def test_retry_after_as_an_http_date_is_seconds_from_now() -> None:
    when = email.utils.formatdate(NOW + 120, usegmt=True)

    assert retry_after_seconds(httpx.Headers({"Retry-After": when})) == pytest.approx(120.0)


@pytest.mark.usefixtures("frozen_clock")
def test_retry_after_as_a_date_in_the_past_is_zero() -> None:
    when = email.utils.formatdate(NOW - 3600, usegmt=True)

    assert retry_after_seconds(httpx.Headers({"Retry-After": when})) == 0.0


@pytest.mark.usefixtures("frozen_clock")
@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "20"}, 20.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After": email.utils.formatdate(NOW + 45, usegmt=True)}, 45.0),
        ({}, None),
    ],
)
def test_a_429_honours_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    error = error_for(
        429, openrouter_body(429, "Rate limit exceeded: free-models-per-min"), headers
    )

    assert type(error) is RateLimitedError
    assert error.retryable is True
    assert error.retry_after == pytest.approx(seconds)


def test_a_503_with_retry_after_keeps_it() -> None:
    error = error_for(503, openrouter_body(503, "Overloaded"), {"Retry-After": "12"})

    assert type(error) is UnavailableError
    assert error.retry_after == 12.0


@pytest.mark.parametrize("status", [400, 401, 402, 403])
def test_errors_that_are_not_retried_carry_no_retry_after(status: int) -> None:
    assert error_for(status, b"{}", {"Retry-After": "12"}).retry_after is None


# --- transport failures ----------------------------------------------------------------


@pytest.mark.parametrize("mid_stream", [False, True])
def test_connect_error_is_unavailable(mid_stream: bool) -> None:
    error = error_from_transport(
        httpx.ConnectError("[Errno 111] Connection refused", request=REQUEST),
        mid_stream=mid_stream,
    )

    assert type(error) is UnavailableError
    assert "Connection refused" in error.message
    assert error.retryable is True


def test_a_connect_error_without_text_still_says_why() -> None:
    error = error_from_transport(httpx.ConnectError(""), mid_stream=False)

    assert error.message == "Could not connect to the provider: refused"


@pytest.mark.parametrize("mid_stream", [False, True])
def test_read_timeout_is_a_stall(mid_stream: bool) -> None:
    error = error_from_transport(httpx.ReadTimeout("timed out"), mid_stream=mid_stream)

    assert type(error) is StalledError
    assert error.retryable is True


@pytest.mark.parametrize("timeout", [httpx.ConnectTimeout, httpx.WriteTimeout, httpx.PoolTimeout])
def test_other_timeouts_are_unavailable(timeout: type[httpx.TimeoutException]) -> None:
    error = error_from_transport(timeout("timed out"), mid_stream=False)

    assert type(error) is UnavailableError
    assert timeout.__name__ in error.message


@pytest.mark.parametrize("failure", [httpx.RemoteProtocolError, httpx.ReadError])
def test_a_connection_lost_mid_stream_is_a_cut_stream(failure: type[httpx.TransportError]) -> None:
    error = error_from_transport(
        failure("peer closed connection without sending complete message body"),
        mid_stream=True,
    )

    assert type(error) is StreamCutError
    assert "peer closed connection" in error.message
    assert error.retryable is True


@pytest.mark.parametrize("failure", [httpx.RemoteProtocolError, httpx.ReadError])
def test_a_connection_lost_before_the_stream_is_unavailable(
    failure: type[httpx.TransportError],
) -> None:
    error = error_from_transport(failure("Server disconnected"), mid_stream=False)

    assert type(error) is UnavailableError
    assert "Server disconnected" in error.message


def test_a_transport_error_without_text_names_its_type() -> None:
    error = error_from_transport(httpx.RemoteProtocolError(""), mid_stream=True)

    assert "RemoteProtocolError" in error.message


def test_html_error_page_drops_scripts_and_styles_and_decodes_entities() -> None:
    page = (
        "<html><head><style>body { color: red }</style><script>var x = 1;</script></head>"
        "<body><h1>Bad Gateway &amp; more</h1></body></html>"
    )
    error = error_from_response(httpx.Response(502, content=page.encode()), page.encode())

    assert error.upstream_message == "Bad Gateway & more"


def test_raw_provider_error_as_an_object_is_kept_as_text() -> None:
    body = (
        b'{"error": {"code": 400, "message": "Provider returned error", '
        b'"metadata": {"provider_name": "Anthropic", "raw": {"type": "invalid_request_error"}}}}'
    )
    error = error_from_response(httpx.Response(400, content=body), body)

    assert "invalid_request_error" in error.upstream_message
    assert error.provider == "Anthropic"
