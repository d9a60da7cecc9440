"""httpx's API over aiohttp's connections: the client's default transport.

httpx's own transport (httpcore, h11, anyio) costs a cancel scope, an
exception map and a pause and resume of the socket on every network read;
with hundreds of answers streaming on one loop that was most of a server's
CPU. aiohttp parses HTTP in C, with none of that per read. The client keeps
httpx's requests, responses and exceptions, so everything above (errors.py,
answers.py, the tests' MockTransports) is unchanged.

Ours rather than the httpx-aiohttp package's (0.2): its map makes every
connection error (a reset, a server that hangs up) a ConnectTimeout, lets a
response that is not HTTP through as an aiohttp exception, and reads a body
in pieces that join the provider's chunks (see _Body).

aiohttp's failures become the httpx exceptions httpx's own transport raises
for the same thing; errors.py words them:

    aiohttp                                      httpx
    ConnectionTimeoutError (pool wait, connect)  ConnectTimeout
    ServerTimeoutError (a read)                  ReadTimeout
    ClientConnectorError (refused, DNS, TLS)     ConnectError
    ServerDisconnectedError                      RemoteProtocolError
    ClientPayloadError (a body cut short)        RemoteProtocolError
    ClientResponseError (not HTTP)               RemoteProtocolError
    InvalidURL, NonHttpUrlClientError            UnsupportedProtocol
    ClientError, OSError (reset, broken pipe)    ReadError

Not carried over: `max_keepalive_connections` (aiohttp keeps each idle
connection for `keepalive_expiry`, within `max_connections`), httpx's write
timeout (aiohttp has none; a request body is a few MB at most) and a pool
timeout of its own (aiohttp's `connect` covers the wait for a free connection
and the connect: it is given both, and a pool that stays full is a
ConnectTimeout, not a PoolTimeout; errors.py words them alike).
"""

from __future__ import annotations

import asyncio
import functools
import os
import socket
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import httpx
from aiohttp.client_proto import ResponseHandler

# h11's bound on a response's head (httpx's own transport), here on each line of it.
_MAX_HEADER_BYTES = 16 * 1024
_TIMEOUTS = ("connect", "read", "pool")


class AiohttpTransport(httpx.AsyncBaseTransport):
    """One aiohttp session (its connection pool), opened at the first request:
    a session belongs to the event loop it was opened on, as the client does."""

    def __init__(self, *, limits: httpx.Limits) -> None:
        self._limits = limits
        self._session: aiohttp.ClientSession | None = None
        self._timeouts: dict[tuple[float | None, ...], aiohttp.ClientTimeout] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        session = self._session or self._open()
        body = await request.aread()
        try:
            response = await session.request(
                request.method,
                str(request.url),
                headers=request.headers.multi_items(),
                data=body or None,
                allow_redirects=False,  # httpx decides (it does not follow them here)
                auto_decompress=False,  # httpx decodes, by the headers it sent
                timeout=self._timeout(request),
                proxy=_proxy(request.url),
            )
        except (aiohttp.ClientError, OSError) as error:  # OSError: TimeoutError too
            raise _httpx_error(error, request) from error
        extensions: dict[str, object] = {"http_version": b"HTTP/1.1"}
        if response.reason:
            extensions["reason_phrase"] = response.reason.encode("ascii", "replace")
        return httpx.Response(
            response.status,
            headers=response.raw_headers,
            stream=_Body(response, request, read=request.extensions.get("timeout", {}).get("read")),
            request=request,
            extensions=extensions,
        )

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    def _open(self) -> aiohttp.ClientSession:
        connector = _Connector(
            limit=self._limits.max_connections or 0,
            keepalive_timeout=self._limits.keepalive_expiry or 0,
            # Certificates as httpx checks them (certifi, or SSL_CERT_FILE).
            ssl=httpx.create_ssl_context(),
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            # httpx keeps the cookies and sends them in the request's headers.
            cookie_jar=aiohttp.DummyCookieJar(),
            # Proxies as httpx's client took them (HTTP(S)_PROXY, ALL_PROXY,
            # NO_PROXY: `_proxy`), but no ~/.netrc, which httpx never read and
            # which aiohttp's trust_env would add as Basic auth.
            trust_env=False,
            max_line_size=_MAX_HEADER_BYTES,
            max_field_size=_MAX_HEADER_BYTES,
        )
        return self._session

    def _timeout(self, request: httpx.Request) -> aiohttp.ClientTimeout:
        given = request.extensions.get("timeout", {})
        key = tuple(given.get(name) for name in _TIMEOUTS)
        timeout = self._timeouts.get(key)
        if timeout is None:
            connect, read, pool = key
            whole = None if connect is None or pool is None else connect + pool
            timeout = aiohttp.ClientTimeout(
                total=None, connect=whole, sock_connect=connect, sock_read=read
            )
            # A request's timeouts are the client's, or one of a few per-call ones.
            if len(self._timeouts) < 16:
                self._timeouts[key] = timeout
        return timeout


class _Handler(ResponseHandler):
    """aiohttp's protocol, resumed only when it was paused. aiohttp (3.14)
    resumes the connection after every chunk a reader takes, paused or not,
    and a resume feeds its parser an empty read and asks the socket to read
    again: with many answers streaming, a twentieth of a server's work
    (bench/ws_fanout.py) for nothing, as only a pause (`pause_reading`) stops
    the parser or the socket. tests/chat/llm/test_transport.py fails if
    aiohttp's connector stops making its protocol where this replaces it."""

    def resume_reading(self, resume_parser: bool = True) -> None:
        if self._reading_paused:
            super().resume_reading(resume_parser)


class _Connector(aiohttp.TCPConnector):
    """aiohttp's connector with `_Handler` for its connections."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        handler: type[ResponseHandler] = _Handler
        self._factory = functools.partial(handler, loop=self._loop)


class _Body(httpx.AsyncByteStream):
    """A response's body a piece of an HTTP chunk at a time, as httpx's own
    transport hands it on (a provider's chunk is an event or a few; answers.py
    hands on the text of each read as one piece, so reads that joined chunks
    would change what a person sees stream). Closing it before the end closes
    the connection.

    The read timeout (no byte for `read` seconds) is kept here rather than by
    aiohttp, which cancels and sets a timer on every network read: a tenth of
    a server's work with many answers streaming (bench/ws_fanout.py). Here one
    timer looks, when it fires, whether the reader has been waiting for bytes
    that long, and otherwise sets itself again: each read only notes the time.
    A reader busy elsewhere is not the provider's silence (its bytes may wait
    unread, or aiohttp may have paused the socket for it), nor a body all
    come."""

    def __init__(
        self, response: aiohttp.ClientResponse, request: httpx.Request, *, read: float | None
    ) -> None:
        self._response = response
        self._request = request
        self._read = read
        self._heard = (0.0, 0)  # the loop's time of the last read, and the body's bytes then
        self._waiting = False  # whether the reader waits for bytes (none are buffered)
        self._timer: asyncio.TimerHandle | None = None
        connection = response.connection
        if read and connection is not None and connection.protocol is not None:
            connection.protocol.read_timeout = None  # aiohttp's: ours below instead

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content, loop = self._response.content, asyncio.get_running_loop()
        if self._read and self._timer is None:
            self._heard = (loop.time(), content.total_bytes)
            self._timer = loop.call_later(self._read, self._look)
        try:
            while True:
                self._waiting = True
                received, chunk_ended = await content.readchunk()
                self._waiting = False
                self._heard = (loop.time(), content.total_bytes)
                if received:
                    yield received
                elif not chunk_ended:  # the end of the body
                    return
        except (aiohttp.ClientError, OSError) as error:  # OSError: TimeoutError too
            raise _httpx_error(error, self._request) from error
        finally:
            self._waiting = False
            if self._timer is not None:
                self._timer.cancel()

    def _look(self) -> None:
        content, read, loop = self._response.content, self._read, asyncio.get_running_loop()
        assert read is not None
        if content.is_eof():
            return  # the whole body is here: nothing more to wait for
        now = loop.time()
        heard_at, heard_bytes = self._heard
        silent = self._waiting and content.total_bytes == heard_bytes
        if silent and now - heard_at >= read:
            content.set_exception(aiohttp.SocketTimeoutError("Timeout on reading data from socket"))
            return
        # Silent so far: due `read` after the last bytes. Else counted from now.
        due = heard_at + read if silent else now + read
        self._timer = loop.call_at(due, self._look)

    async def aclose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._response.content.at_eof():
            self._response.release()  # read whole: the connection is reused
        else:
            self._response.close()


def _proxy(url: httpx.URL) -> str | None:
    """The proxy the environment names for `url`, as httpx's trust_env read it."""
    proxies = urllib.request.getproxies_environment()
    if not proxies or urllib.request.proxy_bypass_environment(url.host, proxies):  # type: ignore[attr-defined]
        return None
    found = proxies.get(url.scheme) or proxies.get("all")
    return found if found and found.startswith(("http://", "https://")) else None


def _httpx_error(error: BaseException, request: httpx.Request) -> httpx.TransportError:
    kind = _httpx_kind(error)
    return kind(_reason(error) or type(error).__name__, request=request)


def _httpx_kind(error: BaseException) -> type[httpx.TransportError]:
    # Most specific first: aiohttp's timeouts are connection errors too.
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout
    if isinstance(error, aiohttp.ServerTimeoutError | TimeoutError):
        return httpx.ReadTimeout
    if isinstance(error, aiohttp.ClientConnectorError):
        return httpx.ConnectError
    if isinstance(error, aiohttp.InvalidURL | aiohttp.NonHttpUrlClientError):
        return httpx.UnsupportedProtocol
    if isinstance(
        error,
        aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError | aiohttp.ClientResponseError,
    ):
        return httpx.RemoteProtocolError
    return httpx.ReadError


def _reason(error: BaseException) -> str:
    """What went wrong, on one line; in httpx's words where it had some."""
    if isinstance(error, aiohttp.ClientPayloadError):
        return "peer closed connection without sending complete message body"
    if isinstance(error, aiohttp.ServerDisconnectedError):
        return "Server disconnected without sending a response."
    if isinstance(error, aiohttp.ClientConnectorError):
        # The reason alone ("Connection refused"): asyncio's text names the
        # provider's address, which the person reading the chat has no use for.
        cause = error.os_error
        if isinstance(cause, socket.gaierror) or not cause.errno:
            return cause.strerror or type(cause).__name__
        return os.strerror(cause.errno)
    if isinstance(error, aiohttp.ClientResponseError):
        return " ".join(error.message.split())  # the parser's is several lines
    return str(error)
