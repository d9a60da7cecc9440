"""The OpenRouter client: the only code that sends requests to the model provider.

One `httpx.AsyncClient` per event loop (`get_client()`; daphne runs one loop,
so one per process), with explicit timeouts and the attribution headers, over
aiohttp's connections (transport.py: httpx's own transport cost most of a busy
server's CPU).
`stream()` hands on typed pieces as they arrive (a server that ignores
`stream: true` and answers in one piece is read the same way). Failures are
typed (errors.py) and the retryable ones are retried with backoff and jitter,
honouring Retry-After, but only while nothing of that request has been handed
on: once a person may have seen part of an answer, the caller decides.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from types import TracebackType
from typing import Any, TypeVar

import httpx
from django.core.signals import setting_changed
from django.dispatch import receiver
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_exponential_jitter

from chat.llm import answers
from chat.llm.catalog import ModelInfo, catalog_from
from chat.llm.config import ClientConfig
from chat.llm.deltas import (
    OUTPUT_EVENTS,
    StreamEvent,
)
from chat.llm.errors import (
    AuthenticationError,
    BadRequestError,
    LLMError,
    error_from_response,
    error_from_transport,
    error_from_web_page,
)
from chat.llm.request import ChatRequest, build_body
from chat.llm.transport import AiohttpTransport
from common.jsontypes import JSONObject
from common.text import well_formed

logger = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]

_MAX_ERROR_BODY = 64 * 1024
# Every running turn holds one streaming connection; a busy server has
# hundreds, which httpx's default pool of 100 would queue.
_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100)


class ChatStream:
    """The pieces of one streamed answer. Use `async with`, so that leaving
    early (or being cancelled) closes the HTTP response at once."""

    def __init__(self, events: AsyncGenerator[StreamEvent, None]) -> None:
        self._events = events

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._events

    async def __aenter__(self) -> ChatStream:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._events.aclose()


@dataclass(slots=True)
class _OpenStream:
    stack: contextlib.AsyncExitStack
    held: list[StreamEvent]
    rest: AsyncGenerator[StreamEvent, None]


class LLMClient:
    def __init__(
        self,
        config: ClientConfig,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.config = config
        self._sleep = sleep
        self._catalog: dict[str, ModelInfo] | None = None
        self._catalog_until = 0.0
        self._backoff = wait_exponential_jitter(
            multiplier=config.backoff_initial, max=config.backoff_max, jitter=config.backoff_initial
        )
        self._http = httpx.AsyncClient(
            base_url=config.base_url,
            headers=_attribution_headers(config),
            timeout=httpx.Timeout(
                config.read_timeout, connect=config.connect_timeout, pool=config.connect_timeout
            ),
            transport=transport or AiohttpTransport(limits=_LIMITS),
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def model_catalog(self, *, api_key: str | None = None) -> dict[str, ModelInfo] | None:
        """The provider's model list (chat.llm.catalog); None when it has never
        been read. Kept for an hour, so a turn or a message with pictures costs
        no extra request; when it cannot be read again, the last one read is
        kept (the caps price answers from it) and reading is tried again in a
        minute."""
        now = time.monotonic()
        if now < self._catalog_until:
            return self._catalog
        found: dict[str, ModelInfo] | None = None
        try:
            response = await self._http.get("models", headers=self._auth(api_key), timeout=10.0)
            if response.is_success:
                found = catalog_from(await answers.body_of(response, _MAX_MODEL_LIST))
        except (httpx.HTTPError, LLMError):
            found = None
        if found is not None:
            self._catalog = found
        self._catalog_until = now + (_CATALOG_KEPT if found is not None else _CATALOG_RETRY)
        return self._catalog

    async def model_inputs(self, *, api_key: str | None = None) -> dict[str, frozenset[str]] | None:
        """What each listed model takes in ("text", "image", …), for the models
        whose entry says."""
        catalog = await self.model_catalog(api_key=api_key)
        if catalog is None:
            return None
        return {model: info.inputs for model, info in catalog.items() if info.inputs is not None}

    def stream(self, request: ChatRequest, *, api_key: str | None = None) -> ChatStream:
        body = _encode(build_body(request, stream=True))
        return ChatStream(self._stream_events(body, self._auth(api_key)))

    async def _stream_events(
        self, body: bytes, headers: dict[str, str]
    ) -> AsyncGenerator[StreamEvent, None]:
        opened = await self._with_retries(partial(self._open_stream, body, headers))
        async with opened.stack:
            for event in opened.held:
                yield event
            try:
                async for event in opened.rest:
                    yield event
            except LLMError as error:
                error.output_started = True
                raise

    async def _open_stream(self, body: bytes, headers: dict[str, str]) -> _OpenStream:
        """Send the request and read up to the first piece of output, so that
        everything that fails before it can still be retried."""
        if "Authorization" not in headers and self.config.needs_key:
            # OpenRouter refuses a request without a key; offline it would look
            # like an outage instead ("unavailable after 4 attempts").
            raise AuthenticationError("No API key", status=401)
        stack = contextlib.AsyncExitStack()
        try:
            try:
                response = await stack.enter_async_context(
                    self._http.stream("POST", "chat/completions", content=body, headers=headers)
                )
            except httpx.RequestError as error:
                raise error_from_transport(error, mid_stream=False) from error
            if not response.is_success:
                raise error_from_response(
                    response, await answers.body_of(response, _MAX_ERROR_BODY)
                )
            kind = response.headers.get("content-type", "")
            if kind.startswith("text/html"):
                page = await answers.body_of(response, _MAX_ERROR_BODY)
                raise error_from_web_page(response.status_code, page)
            if kind.startswith("application/json"):
                # A server that ignores `stream: true` answers in one piece.
                limit = answers.event_limit(self.config.max_answer_bytes)
                whole = answers.message_pieces(await answers.body_of(response, limit))
                return _OpenStream(stack, whole, answers.no_more_pieces())
            events = answers.response_events(response, self.config.max_answer_bytes)
            stack.push_async_callback(events.aclose)
            held: list[StreamEvent] = []
            async for event in events:
                held.append(event)
                if isinstance(event, OUTPUT_EVENTS):
                    break
            return _OpenStream(stack, held, events)
        except BaseException:
            await stack.aclose()
            raise

    async def _with_retries(self, attempt: Callable[[], Awaitable[T]]) -> T:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(self._should_retry),
            sleep=self._sleep,
            before_sleep=_log_retry,
            reraise=True,
        )
        result: T = await retrying(attempt)
        return result

    def _should_retry(self, error: BaseException) -> bool:
        if not isinstance(error, LLMError) or not error.retryable or error.output_started:
            return False
        return error.retry_after is None or error.retry_after <= self.config.retry_max_wait

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, LLMError) and error.retry_after is not None:
            return error.retry_after
        return float(self._backoff(state))

    def _auth(self, api_key: str | None) -> dict[str, str]:
        key = (api_key or self.config.api_key).strip()
        if not key:
            return {}
        if not key.isascii() or any(char.isspace() or not char.isprintable() for char in key):
            # httpx would fail to encode it; say what is wrong instead.
            raise AuthenticationError("The API key contains characters no API key has")
        return {"Authorization": f"Bearer {key}"}


_MAX_MODEL_LIST = 16 * 1024 * 1024  # bytes; OpenRouter's list is a few MB
_CATALOG_KEPT = 3600.0
_CATALOG_RETRY = 60.0


def _encode(body: JSONObject) -> bytes:
    """The body as sent, encoded once (not again on every retry)."""
    try:
        text = json.dumps(body, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise BadRequestError("A model parameter is not a finite number") from None
    try:
        return text.encode()
    except UnicodeEncodeError:  # half of a character, e.g. from a pasted emoji
        return well_formed(text).encode()


def _attribution_headers(config: ClientConfig) -> dict[str, str]:
    title = _header_text(config.app_title) or "Built-It"
    headers = {
        "Content-Type": "application/json",  # bodies are encoded by _encode, not by httpx
        "X-Title": title,
        "X-OpenRouter-Title": title,
        "User-Agent": f"{title} (httpx)",
    }
    if app_url := _header_text(config.app_url):
        headers["HTTP-Referer"] = app_url
    return headers


def _header_text(text: str) -> str:
    return "".join(char for char in text if char.isascii() and char.isprintable()).strip()


def _log_retry(state: RetryCallState) -> None:
    error = state.outcome.exception() if state.outcome else None
    wait = state.next_action.sleep if state.next_action else 0.0
    attempt = state.attempt_number
    logger.warning("Model request failed (%s); retry %d in %.1fs", error, attempt, wait)


_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LLMClient] = (
    weakref.WeakKeyDictionary()
)


def get_client() -> LLMClient:
    """The client for the running event loop, configured from settings."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = _clients[loop] = LLMClient(ClientConfig.from_settings())
    return client


async def close_client() -> None:
    """Close the running loop's client, if it has one: at shutdown its
    connections close cleanly (aiohttp logs an error for a pool left open)."""
    loop = asyncio.get_running_loop()
    closing = [client for owner, client in _retired if owner is loop]
    _retired[:] = [(owner, client) for owner, client in _retired if owner is not loop]
    client = _clients.pop(loop, None)
    for each in [*closing, *([client] if client is not None else [])]:
        await each.aclose()


# Clients made under settings since changed (tests): replaced, and closed by the
# next close_client() on their loop rather than left to the garbage collector.
_retired: list[tuple[asyncio.AbstractEventLoop, LLMClient]] = []


@receiver(setting_changed)
def _forget_clients(*, setting: str, **kwargs: Any) -> None:
    if setting.startswith(("OPENROUTER_", "BUILTIT_APP_")):
        _retired[:] = [(owner, client) for owner, client in _retired if not owner.is_closed()]
        _retired.extend(_clients.items())
        _clients.clear()
