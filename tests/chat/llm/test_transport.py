"""The client's aiohttp transport, over real sockets to small servers written
here: a failure becomes the httpx exception httpx's own transport raised (so
errors.py words it the same), a body arrives an HTTP chunk at a time, a
connection is reused only after a whole body, and the pool takes as many
streams as the client allows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from chat.llm import (
    ChatMessage,
    ChatRequest,
    ClientConfig,
    LLMClient,
    StalledError,
    StreamCutError,
    UnavailableError,
)
from chat.llm import transport as transport_module
from chat.llm.errors import error_from_transport
from chat.llm.transport import AiohttpTransport

Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
EVENT = b'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}}]}\n\n'
FRAME = b"%X\r\n%s\r\n" % (len(EVENT), EVENT)
REQUEST = ChatRequest(model="openai/gpt-4o-mini", messages=[ChatMessage.user("Hi")])


class Server:
    """An HTTP/1.1 server on 127.0.0.1 that gives every request to `answer`."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.connections = 0
        self.open = 0
        self.closed = asyncio.Event()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                length = _content_length(head)
                await reader.readexactly(length)
                await self.answer(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.open -= 1
            self.closed.set()
            writer.close()

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=512)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/api/v1/chat/completions"

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


async def whole_stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(HEAD + FRAME * 3 + b"0\r\n\r\n")  # three HTTP chunks in one write
    await writer.drain()


async def endless_stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(HEAD + FRAME)
    await reader.read()  # until the client hangs up
    raise ConnectionError


def raw(reply: bytes, *, then_wait: bool = False) -> Answer:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(reply)
        await writer.drain()
        if then_wait:
            await reader.read()  # until the client hangs up
        writer.close()
        raise ConnectionError  # ends the connection, as a broken provider would

    return answer


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    transport = AiohttpTransport(limits=httpx.Limits(max_connections=1000))
    async with httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(0.3)) as client:
        yield client


async def read_all(http: httpx.AsyncClient, url: str) -> list[bytes]:
    async with http.stream("POST", url, content=b"{}") as response:
        return [piece async for piece in response.aiter_bytes()]


async def test_a_body_arrives_an_http_chunk_at_a_time(http: httpx.AsyncClient) -> None:
    # answers.py hands on the text of one read as one piece: reads that joined
    # the provider's chunks would change how an answer streams to the page.
    async with Server(whole_stream) as url:
        assert await read_all(http, url) == [EVENT, EVENT, EVENT]


async def test_a_whole_body_leaves_its_connection_for_the_next_request(
    http: httpx.AsyncClient,
) -> None:
    server = Server(whole_stream)
    async with server as url:
        await read_all(http, url)
        await read_all(http, url)
    assert server.connections == 1


async def test_leaving_a_body_early_closes_its_connection(http: httpx.AsyncClient) -> None:
    server = Server(endless_stream)
    async with server as url:
        async with http.stream("POST", url, content=b"{}") as response:
            async for _ in response.aiter_bytes():
                break
        await asyncio.wait_for(server.closed.wait(), 5)
        assert server.open == 0


async def steady_stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Eight HTTP chunks 0.2 s apart, then the end: longer in all than a read timeout."""
    writer.write(HEAD)
    for _ in range(8):
        writer.write(FRAME)
        await writer.drain()
        await asyncio.sleep(0.2)
    writer.write(b"0\r\n\r\n")
    await writer.drain()


async def test_the_read_timeout_counts_from_the_last_byte_not_the_first() -> None:
    transport = AiohttpTransport(limits=httpx.Limits(max_connections=10))
    async with (
        httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(1.0)) as client,
        Server(steady_stream) as url,
    ):
        assert len(await read_all(client, url)) == 8
        # A reader that leaves the bytes waiting longer than the timeout: they came.
        async with client.stream("POST", url, content=b"{}") as response:
            pieces = response.aiter_bytes()
            first = await anext(pieces)
            await asyncio.sleep(2.0)
            rest = [piece async for piece in pieces]
    assert first
    assert b"".join(rest).count(b"data:") == 7


async def test_a_reader_slower_than_the_read_timeout_still_gets_every_byte() -> None:
    big = b"x" * 4096
    sent = HEAD + b"%X\r\n%s\r\n" % (len(big), big) * 300  # 1.2 MB: aiohttp pauses the socket

    transport = AiohttpTransport(limits=httpx.Limits(max_connections=10))
    async with (
        httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(0.3)) as client,
        Server(raw(HEAD + FRAME * 2 + b"0\r\n\r\n")) as whole,
        Server(raw(sent, then_wait=True)) as stalled,
    ):
        # A body all come, read after a pause longer than the timeout.
        async with client.stream("POST", whole, content=b"{}") as response:
            pieces = response.aiter_bytes()
            await anext(pieces)
            await asyncio.sleep(0.8)
            assert [piece async for piece in pieces] == [EVENT]
        # Bytes waiting while the reader is busy, then the provider's silence.
        received: list[bytes] = []
        with pytest.raises(httpx.ReadTimeout):
            await read_slowly(client, stalled, received)
        assert sum(map(len, received)) == 300 * len(big)


async def read_slowly(client: httpx.AsyncClient, url: str, received: list[bytes]) -> None:
    """The body into `received`, pausing 0.8 s after its first piece."""
    async with client.stream("POST", url, content=b"{}") as response:
        async for piece in response.aiter_bytes():
            if not received:
                await asyncio.sleep(0.8)
            received.append(piece)


CUT_CHUNKED = HEAD + b"5\r\ndata:\r\n"
FAILURES = [
    # (what the server does, the httpx exception, the words errors.py gives mid-stream or not)
    (raw(b""), httpx.RemoteProtocolError, "failed: Server disconnected without sending"),
    (raw(b"NOT HTTP\r\n\r\n"), httpx.RemoteProtocolError, "failed: Bad status line"),
    (raw(CUT_CHUNKED), httpx.RemoteProtocolError, "cut mid-answer: peer closed connection"),
    (
        raw(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"),
        httpx.RemoteProtocolError,
        "cut mid-answer: peer closed connection",
    ),
    (raw(b"", then_wait=True), httpx.ReadTimeout, "stopped sending data (read timeout)"),
    (raw(CUT_CHUNKED, then_wait=True), httpx.ReadTimeout, "stopped sending data (read timeout)"),
]


@pytest.mark.parametrize(("answer", "kind", "words"), FAILURES)
async def test_a_failure_is_the_httpx_exception_httpxs_transport_raised(
    http: httpx.AsyncClient, answer: Answer, kind: type[httpx.RequestError], words: str
) -> None:
    answered: list[httpx.Response] = []
    async with Server(answer) as url:
        with pytest.raises(kind) as caught:
            await read_into(answered, http, url)
    assert caught.value.request.url == url
    assert words in error_from_transport(caught.value, mid_stream=bool(answered)).message


async def read_into(answered: list[httpx.Response], http: httpx.AsyncClient, url: str) -> None:
    async with http.stream("POST", url, content=b"{}") as response:
        answered.append(response)
        async for _ in response.aiter_bytes():
            pass


async def test_a_refused_connection_is_a_connect_error(http: httpx.AsyncClient) -> None:
    with pytest.raises(httpx.ConnectError, match=r"^Connection refused$"):
        await http.post("http://127.0.0.1:1/api/v1/chat/completions", content=b"{}")


async def test_a_url_that_is_not_http_is_refused_as_httpx_does(http: httpx.AsyncClient) -> None:
    with pytest.raises(httpx.UnsupportedProtocol):
        await http.post("ftp://127.0.0.1/api/v1/chat/completions", content=b"{}")


async def test_the_client_holds_more_streams_at_once_than_a_default_pool() -> None:
    # httpx's and aiohttp's default pools hold 100 connections; a busy server
    # runs more turns than that, each holding one stream open.
    streams = 150
    ready = asyncio.Event()
    server = Server(endless_stream)

    async def held(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if server.open >= streams:
            ready.set()
        await endless_stream(reader, writer)

    server.answer = held
    async with server as url:
        base_url = url.removesuffix("/chat/completions")
        client = LLMClient(ClientConfig(base_url=base_url, connect_timeout=5.0, max_retries=0))

        async def one() -> None:
            async with client.stream(REQUEST) as pieces:
                async for _ in pieces:
                    await ready.wait()
                    return

        await asyncio.wait_for(asyncio.gather(*(one() for _ in range(streams))), 30)
        await client.aclose()
    assert server.connections == streams


async def test_the_client_types_a_cut_and_a_stall_as_before() -> None:
    async with Server(raw(HEAD + FRAME)) as url:
        client = LLMClient(ClientConfig(base_url=url.removesuffix("/chat/completions")))
        with pytest.raises(StreamCutError, match="cut mid-answer: peer closed connection"):
            await _first_pieces(client)
        await client.aclose()
    async with Server(raw(HEAD + FRAME, then_wait=True)) as url:
        config = ClientConfig(base_url=url.removesuffix("/chat/completions"), read_timeout=0.3)
        client = LLMClient(config)
        with pytest.raises(StalledError):
            await _first_pieces(client)
        await client.aclose()


async def test_a_transport_given_to_the_client_is_the_one_it_uses() -> None:
    answered: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        answered.append(request)
        return httpx.Response(503)

    config = ClientConfig(base_url="http://provider.invalid/api/v1", max_retries=0)
    client = LLMClient(config, transport=httpx.MockTransport(answer))
    with pytest.raises(UnavailableError, match="HTTP 503"):
        await _first_pieces(client)
    await client.aclose()
    assert [request.url.path for request in answered] == ["/api/v1/chat/completions"]


async def _first_pieces(client: LLMClient) -> None:
    async with client.stream(REQUEST) as pieces:
        async for _ in pieces:
            pass


class Recording(Server):
    """A server that notes each request's head, and answers with a whole stream."""

    def __init__(self) -> None:
        super().__init__(whole_stream)
        self.heads: list[bytes] = []

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                self.heads.append(head)
                await reader.readexactly(_content_length(head))
                await whole_stream(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def test_a_netrc_file_adds_no_credentials_as_httpx_never_read_one(
    http: httpx.AsyncClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("default login someone password secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    server = Recording()
    async with server as url:
        keyed = await http.post(url, content=b"{}", headers={"Authorization": "Bearer sk-key"})
        keyless = await http.post(url, content=b"{}")
    assert (keyed.status_code, keyless.status_code) == (200, 200)
    authorizations = [
        [line for line in head.lower().split(b"\r\n") if line.startswith(b"authorization:")]
        for head in server.heads
    ]
    assert authorizations == [[b"authorization: bearer sk-key"], []]


async def test_a_proxy_named_in_the_environment_is_used_unless_no_proxy_says_not(
    http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy, target = Recording(), Recording()
    async with proxy as proxy_url, target as url:
        monkeypatch.setenv("HTTP_PROXY", proxy_url.split("/api/")[0])
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        await http.post(url, content=b"{}")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        await http.post(url, content=b"{}")
    # Through the proxy the request names the whole URL; past it, only the path.
    assert [head.split(b"\r\n")[0] for head in proxy.heads] == [f"POST {url} HTTP/1.1".encode()]
    assert [head.split(b"\r\n")[0] for head in target.heads] == [
        b"POST /api/v1/chat/completions HTTP/1.1"
    ]


async def big_stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """2.4 MB in numbered HTTP chunks, far past what aiohttp buffers before it
    pauses the socket, written as fast as the socket takes them."""
    writer.write(HEAD)
    for number in range(600):
        piece = b"%06d" % number + b"x" * 4090
        writer.write(b"%X\r\n%s\r\n" % (len(piece), piece))
    writer.write(b"0\r\n\r\n")
    await writer.drain()


async def test_a_body_past_the_buffer_arrives_whole_and_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The transport's connections resume a paused socket only (chat.llm.transport._Handler):
    # a resume lost there would leave this reader waiting until its timeout.
    resumed: list[bool] = []
    resume = transport_module._Handler.resume_reading

    def counted(self: transport_module._Handler, resume_parser: bool = True) -> None:
        resumed.append(self._reading_paused)
        resume(self, resume_parser)

    monkeypatch.setattr(transport_module._Handler, "resume_reading", counted)
    transport = AiohttpTransport(limits=httpx.Limits(max_connections=10))
    server = Server(big_stream)
    async with (
        httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(2.0)) as client,
        server as url,
    ):
        for _ in range(2):
            async with client.stream("POST", url, content=b"{}") as response:
                pieces = []
                async for piece in response.aiter_bytes():
                    pieces.append(piece)
                    if len(pieces) == 1:
                        await asyncio.sleep(0.2)  # the socket pauses meanwhile
    body = b"".join(pieces)
    assert len(body) == 600 * 4096
    assert [body[i : i + 6] for i in range(0, len(body), 4096)] == [
        b"%06d" % number for number in range(600)
    ]
    assert server.connections == 1
    # aiohttp still makes its connections with the protocol the transport gives it.
    assert any(resumed)
