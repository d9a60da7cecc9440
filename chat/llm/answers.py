"""A provider's answer as the typed pieces `stream()` hands on: read from its
server-sent events a network read at a time, or from one JSON body when the
server ignored `stream: true`; bounded in size, its end checked."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator
from typing import cast

import httpx

from chat.llm.chunks import ChunkParser, parse_json_chunk
from chat.llm.deltas import (
    ContentDelta,
    Finish,
    ReasoningDelta,
    StreamEvent,
    ToolCallDelta,
)
from chat.llm.errors import (
    AnswerTooLargeError,
    InStreamError,
    StreamCutError,
    UnavailableError,
    error_from_transport,
)
from chat.llm.sse import SSEDecoder
from common.runs import joined_text
from common.sizes import human_size

logger = logging.getLogger(__name__)

_DONE = b"[DONE]"
_TEXT = (ContentDelta, ReasoningDelta)


async def response_events(
    response: httpx.Response, max_answer_bytes: int
) -> AsyncGenerator[StreamEvent, None]:
    # The network reads, their events and pieces in one generator rather than a
    # generator for each step: each step was a trip through the event loop's
    # machinery for every read of every answer (bench/ws_fanout.py).
    parser = ChunkParser()
    decoder = SSEDecoder(max_line=event_limit(max_answer_bytes))
    finished = False
    size = _AnswerSize(max_answer_bytes)
    async with contextlib.aclosing(_received(response)) as reads:
        try:
            more = True
            while more:
                batch, more = await _next_events(reads, decoder)
                pieces, ended, failure = _batch_pieces(parser, batch)
                for piece in pieces:
                    size.add(piece)
                    finished = finished or isinstance(piece, Finish)
                    yield piece
                if failure is not None:
                    raise failure
                if ended:
                    return
        except UnavailableError as error:
            if not finished:
                raise
            # The answer was whole; only its ending ([DONE], the close) went wrong.
            logger.info("A stream ended badly after its finish reason: %s", error)
            return
    if not finished:
        raise StreamCutError("The answer stopped before it was complete")


def _received(response: httpx.Response) -> AsyncGenerator[bytes, None]:
    """The body's network reads. Without a content encoding (a stream's usual
    case) they are read as sent: httpx's decoding layer would add nothing but a
    generator step per read."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    reads = response.aiter_raw() if encoding in ("", "identity") else response.aiter_bytes()
    return cast(AsyncGenerator[bytes, None], reads)  # httpx's are generators, typed as iterators


async def _next_events(
    reads: AsyncGenerator[bytes, None], decoder: SSEDecoder
) -> tuple[list[bytes], bool]:
    """The data of the events the next read completes, and whether more may come."""
    try:
        return decoder.feed(await reads.__anext__()), True
    except StopAsyncIteration:
        return decoder.close(), False  # an unterminated last event still counts
    except httpx.RequestError as error:
        raise error_from_transport(error, mid_stream=True) from error


class _AnswerSize:
    """The answer's text, reasoning and tool arguments so far, against the bound:
    a server that never stops writing them must not fill the memory."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0

    def add(self, piece: StreamEvent) -> None:
        if isinstance(piece, ContentDelta | ReasoningDelta):
            self.size += _utf8_size(piece.text)
        elif isinstance(piece, ToolCallDelta):
            self.size += _utf8_size(piece.arguments)
        else:
            return
        if self.size > self.limit:
            raise AnswerTooLargeError(
                f"The answer passed {human_size(self.limit)} of text and tool arguments"
            )


def _utf8_size(text: str) -> int:
    if text.isascii():  # most pieces: a flag Python keeps on the string, no encoding
        return len(text)
    # A piece may end inside a character's surrogate pair; its other half follows.
    return len(text.encode("utf-8", "surrogatepass"))


def event_limit(max_answer_bytes: int) -> int:
    """Bytes one event (or a whole non-streamed answer) may take: the answer as
    JSON, whose escapes can double it, and room for the rest of the chunk."""
    return 2 * max_answer_bytes + 1024 * 1024


def _batch_pieces(
    parser: ChunkParser, batch: list[bytes]
) -> tuple[list[StreamEvent], bool, InStreamError | None]:
    """The pieces of a network read's events, whether [DONE] was among them, and
    the error one of them reported (after the pieces before it).

    Text that arrived together is handed on as one piece (a busy server reads
    many chunks at once)."""
    pieces: list[StreamEvent] = []
    ended, failure = False, None
    for data in batch:
        if data == _DONE:
            ended = True
            break
        try:
            pieces += _chunk_pieces(parser, data)
        except InStreamError as error:
            failure = error
            break
    return joined_text(pieces, _TEXT), ended, failure


def _chunk_pieces(parser: ChunkParser, data: bytes) -> list[StreamEvent]:
    chunk = parse_json_chunk(data)
    if chunk is None:
        logger.warning("Skipped a stream event that is not a JSON object: %.200r", data)
        return []
    pieces = parser.parse(chunk)
    if isinstance(pieces, InStreamError):
        raise pieces
    return pieces


def message_pieces(body: bytes) -> list[StreamEvent]:
    """The pieces of a whole (non-streamed) answer."""
    data = parse_json_chunk(body)
    if data is None:
        raise UnavailableError("The provider's answer was not a JSON object")
    pieces = ChunkParser().parse(data, message_key="message")
    if isinstance(pieces, InStreamError):
        raise pieces
    return pieces


async def no_more_pieces() -> AsyncGenerator[StreamEvent, None]:
    return
    yield  # pragma: no cover  (makes this an async generator)


async def body_of(response: httpx.Response, limit: int) -> bytes:
    """Up to `limit` bytes of a body; what a broken connection left is still read."""
    body = bytearray()
    with contextlib.suppress(httpx.RequestError):
        async for received in response.aiter_bytes():
            body += received
            if len(body) >= limit:
                break
    return bytes(body[:limit])
