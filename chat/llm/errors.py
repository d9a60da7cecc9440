"""Everything that can go wrong talking to the model provider, as one small tree.

    LLMError                        retryable
     ├── AuthenticationError          no    401: the key is missing, wrong or revoked
     ├── InsufficientCreditsError     no    402: the account is out of credits
     ├── ModerationError              no    403: the input was flagged
     ├── BadRequestError              no    400, 404, 413, 422: the request is wrong
     │    ├── ContextTooLongError     no    the conversation no longer fits the model
     │    └── ModelNotFoundError      no    no such model, or no provider serves it
     ├── RateLimitedError             yes   429, honouring Retry-After
     ├── UnavailableError             yes   408, 5xx, connection refused or reset
     │    ├── StalledError            yes   no data within the read timeout
     │    └── StreamCutError          yes   the stream ended without a finish reason
     ├── InStreamError                by code: an error chunk inside an HTTP 200 stream
     └── LimitError                   no    one of our own bounds on an answer was reached
          ├── AnswerTooLargeError     no    more text, reasoning or arguments than allowed
          ├── AnswerTooSlowError      no    the request (with its retries) took too long
          └── CostCapError            no    a spending cap leaves nothing for more of it

Each carries the provider's own words (`upstream_message`), the HTTP status and
error code when there was one, and `output_started`: whether part of the answer
had already been handed on when it happened (then the client does not retry and
the caller decides what to do with the partial output).
"""

from __future__ import annotations

import email.utils
import html
import json
import math
import re
import time

import httpx

from common.jsontypes import NOT_JSON, JSONObject, JSONValue, as_list, as_object, as_str, decoded

_CONTEXT_TOO_LONG = re.compile(
    r"context.{0,12}(length|window|limit)|maximum context|too many tokens|"
    r"prompt is too long|reduce the length|input is too long",
    re.IGNORECASE,
)
_MODEL_NOT_FOUND = re.compile(
    r"not a valid model|no endpoints found|model.{0,40}(not found|does not exist)|unknown model",
    re.IGNORECASE,
)
_RETRYABLE_CODES = re.compile(
    r"rate.?limit|server.?error|timeout|timed.?out|overload|unavailable|internal|"
    r"bad.?gateway|disconnect",
    re.IGNORECASE,
)
# Enough of an error to say something, not enough to flood a log or a page.
_MAX_BODY_CHARS = 300
# Of an error page, only the start is read for words.
_MAX_PAGE_BYTES = 8 * 1024
_TAG = re.compile(r"<[^<>]*>")


class LLMError(Exception):
    retryable = False

    def __init__(
        self,
        message: str,
        *,
        upstream_message: str = "",
        status: int | None = None,
        code: int | str | None = None,
        provider: str | None = None,
        retry_after: float | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message)
        if retryable is not None:  # when the class alone cannot say (InStreamError)
            self.retryable = retryable
        self.message = message
        self.upstream_message = upstream_message
        self.status = status
        self.code = code
        self.provider = provider
        self.retry_after = retry_after
        self.output_started = False


class AuthenticationError(LLMError):
    pass


class InsufficientCreditsError(LLMError):
    pass


class ModerationError(LLMError):
    pass


class BadRequestError(LLMError):
    pass


class ContextTooLongError(BadRequestError):
    pass


class ModelNotFoundError(BadRequestError):
    pass


class RateLimitedError(LLMError):
    retryable = True


class UnavailableError(LLMError):
    retryable = True


class StalledError(UnavailableError):
    pass


class StreamCutError(UnavailableError):
    pass


class InStreamError(LLMError):
    """Retryable or not by its code; `error_from_chunk` decides."""


class LimitError(LLMError):
    """A bound of ours, not the provider's failure: a broken or hostile server
    must not take the memory or the time of the whole machine."""


class AnswerTooLargeError(LimitError):
    pass


class AnswerTooSlowError(LimitError):
    pass


class CostCapError(LimitError):
    """Its message is the cap's own words, whole, for the person."""


_BY_STATUS: dict[int, tuple[type[LLMError], str]] = {
    401: (AuthenticationError, "The API key was refused"),
    402: (InsufficientCreditsError, "The account has no credits left"),
    403: (ModerationError, "The request was refused by moderation"),
    429: (RateLimitedError, "Rate limited"),
}


def error_from_response(response: httpx.Response, body: bytes) -> LLMError:
    """The typed error for an HTTP response whose status is not 2xx."""
    status = response.status_code
    upstream, code, provider = _error_fields(body)
    kind, summary = _classify(status, upstream, code)
    return kind(
        f"{summary}: {upstream}" if upstream else summary,
        upstream_message=upstream,
        status=status,
        code=code,
        provider=provider,
        retry_after=retry_after_seconds(response.headers) if kind.retryable else None,
    )


def _classify(status: int, upstream: str, code: int | str | None) -> tuple[type[LLMError], str]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if 300 <= status < 400:
        return (
            BadRequestError,
            f"The provider redirected the request (HTTP {status}); check OPENROUTER_BASE_URL",
        )
    if status == 408 or status >= 500:
        return UnavailableError, f"The provider is unavailable (HTTP {status})"
    if _CONTEXT_TOO_LONG.search(upstream) or code == "context_length_exceeded":
        return ContextTooLongError, "The conversation is too long for this model"
    if status == 404 or _MODEL_NOT_FOUND.search(upstream):
        return ModelNotFoundError, "The model is not available"
    return BadRequestError, f"The request was refused (HTTP {status})"


def error_from_web_page(status: int, page: bytes) -> BadRequestError:
    """A web page where a model's answer belongs: the base URL points at a website."""
    words = _page_text(page)
    return BadRequestError(
        "The provider answered with a web page, not a model's answer; check "
        f"OPENROUTER_BASE_URL ({words or 'an empty page'})",
        upstream_message=words,
        status=status,
    )


def error_from_chunk(chunk: JSONObject) -> InStreamError:
    """The error carried by a chunk with a top-level `error` object (sent with HTTP 200)."""
    raw_error = chunk.get("error")
    error = as_object(raw_error)
    said = raw_error if isinstance(raw_error, str) else as_str(error.get("message"))
    upstream = _brief(said or "the provider reported an error mid-stream")
    code = _code(error.get("code"))
    provider = as_str(as_object(error.get("metadata")).get("provider_name"))
    provider = provider or as_str(chunk.get("provider"))
    return InStreamError(
        f"The provider failed mid-answer: {upstream}",
        retryable=_code_is_retryable(code),
        upstream_message=upstream,
        code=code,
        provider=provider,
    )


def error_from_transport(error: httpx.RequestError, *, mid_stream: bool) -> UnavailableError:
    """The typed error for a failure below HTTP: refused, reset, cut, silent or garbled."""
    if isinstance(error, httpx.ReadTimeout):
        return StalledError("The provider stopped sending data (read timeout)")
    if isinstance(error, httpx.TimeoutException):
        return UnavailableError(f"Timed out reaching the provider ({type(error).__name__})")
    if isinstance(error, httpx.ConnectError):
        return UnavailableError(f"Could not connect to the provider: {str(error) or 'refused'}")
    reason = str(error) or type(error).__name__
    if mid_stream:
        return StreamCutError(f"The connection was cut mid-answer: {reason}")
    return UnavailableError(f"The connection to the provider failed: {reason}")


def retry_after_seconds(headers: httpx.Headers) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date)."""
    milliseconds = _float(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return max(milliseconds / 1000, 0.0)
    raw = headers.get("retry-after")
    if raw is None:
        return None
    seconds = _float(raw)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _error_fields(body: bytes) -> tuple[str, int | str | None, str | None]:
    """(message, code, provider) from an OpenRouter or OpenAI error body, or its text."""
    parsed = decoded(body)
    if parsed is NOT_JSON:
        return _page_text(body), None, None
    raw_error = as_object(parsed).get("error")
    error = as_object(raw_error)
    said = raw_error if isinstance(raw_error, str) else as_str(error.get("message"))
    message = _brief(said or as_str(as_object(parsed).get("message")) or "")
    metadata = as_object(error.get("metadata"))
    raw_value = metadata.get("raw")
    # The provider's own error: usually text, sometimes its whole JSON error.
    raw = raw_value if isinstance(raw_value, str) else None
    if isinstance(raw_value, dict | list):
        raw = json.dumps(raw_value, ensure_ascii=False)
    if raw and raw not in message:
        message = f"{message} ({_brief(raw)})" if message else _brief(raw)
    reasons = [reason for reason in as_list(metadata.get("reasons")) if isinstance(reason, str)]
    if reasons:
        message = f"{message} (flagged: {', '.join(reasons)})"
    return message, _code(error.get("code")), as_str(metadata.get("provider_name"))


def _code(value: JSONValue) -> int | str | None:
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def _page_text(body: bytes) -> str:
    """The words at the start of an HTML error page (or any text body), briefly.

    Bounded and linear on purpose: this runs on the event loop, on whatever a
    broken proxy sent.
    """
    page = body[:_MAX_PAGE_BYTES].decode("utf-8", "replace")
    page = html.unescape(_TAG.sub(" ", _without_blocks(page)))
    return _brief(" ".join(page.split()))


def _without_blocks(page: str) -> str:
    """`page` without the contents of its <script> and <style> elements."""
    lower = page.lower()
    kept: list[str] = []
    position = 0
    while True:
        starts = (lower.find("<script", position), lower.find("<style", position))
        start = min((at for at in starts if at >= 0), default=-1)
        if start < 0:
            kept.append(page[position:])
            break
        kept.append(page[position:start])
        closing = "</script" if lower.startswith("<script", start) else "</style"
        end = lower.find(closing, start)
        if end < 0:
            break  # the rest of the page is inside the block
        after = lower.find(">", end)
        position = len(page) if after < 0 else after + 1
    return " ".join(kept)


def _brief(text: str) -> str:
    return text if len(text) <= _MAX_BODY_CHARS else text[: _MAX_BODY_CHARS - 1] + "…"


def _code_is_retryable(code: int | str | None) -> bool:
    if isinstance(code, int):
        return code in (408, 429) or code >= 500
    if isinstance(code, str):
        if code.isdigit():
            return _code_is_retryable(int(code))
        return bool(_RETRYABLE_CODES.search(code))
    # An error without a code is most often a provider hiccup; one retry is cheap.
    return True


def _float(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None
