"""A provider's answer as the typed pieces `stream()` hands on: read from its
server-sent events a network read at a time, or from one JSON body when the
server ignored `stream: true`; bounded in size, its end checked."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator

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
    parser = ChunkParser()
    finished = False
    size = _AnswerSize(max_answer_bytes)
    async with contextlib.aclosing(_event_data(response, max_answer_bytes)) as batches:
        try:
            async for batch in batches:
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
    for data in batch:
        if data == _DONE:
            return joined_text(pieces, _TEXT), True, None
        try:
            pieces += _chunk_pieces(parser, data)
        except InStreamError as error:
            return joined_text(pieces, _TEXT), False, error
    return joined_text(pieces, _TEXT), False, None


def _chunk_pieces(parser: ChunkParser, data: bytes) -> list[StreamEvent]:
    chunk = parse_json_chunk(data)
    if chunk is None:
        logger.warning("Skipped a stream event that is not a JSON object: %.200r", data)
        return []
    pieces = parser.parse(chunk)
    if isinstance(pieces, InStreamError):
        raise pieces
    return pieces


async def _event_data(
    response: httpx.Response, max_answer_bytes: int
) -> AsyncGenerator[list[bytes], None]:
    """The data of each event, a network read's worth at a time."""
    decoder = SSEDecoder(max_line=event_limit(max_answer_bytes))
    try:
        async for received in response.aiter_bytes():
            if batch := decoder.feed(received):
                yield batch
    except httpx.RequestError as error:
        raise error_from_transport(error, mid_stream=True) from error
    if batch := decoder.close():
        yield batch


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
