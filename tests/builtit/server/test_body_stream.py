"""A large body handed to the application as a file (builtit.server.bodystream) reaches
Django whole, a piece at a time; the server's side is tests/builtit/server/test_body_limits.py."""

from __future__ import annotations

import asyncio
import os
import tempfile
from typing import Any

from builtit.server.bodystream import PIECE, BodyFromFile, file_message


class Reader:
    """An application that reads the body as Django's ASGI handler does."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            self.messages.append(message)
            if message["type"] == "http.disconnect" or not message.get("more_body"):
                return


def run(body: Any, *after: dict[str, Any]) -> list[dict[str, Any]]:
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    for message in (file_message(body), *after):
        queue.put_nowait(message)
    reader = Reader()
    asyncio.run(BodyFromFile(reader)({"type": "http"}, queue.get, None))
    return reader.messages


def test_a_body_on_disk_arrives_whole_in_pieces_of_bounded_size() -> None:
    data = os.urandom(5 * PIECE + 123)
    with tempfile.TemporaryFile() as body:
        body.write(data)
        messages = run(body)
    assert b"".join(message["body"] for message in messages) == data
    assert max(len(message["body"]) for message in messages) <= PIECE
    assert [message["more_body"] for message in messages] == [True] * 5 + [False]


def test_a_body_whose_connection_was_lost_ends_as_a_disconnect() -> None:
    with tempfile.TemporaryFile() as body:
        body.write(b"x" * 3 * PIECE)
        message = file_message(body)
    # Closed: what Twisted does when the client goes away.
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    queue.put_nowait(message)
    reader = Reader()
    asyncio.run(BodyFromFile(reader)({"type": "http"}, queue.get, None))
    assert reader.messages == [{"type": "http.disconnect"}]


def test_other_messages_pass_as_they_are() -> None:
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    sent = {"type": "http.request", "body": b"small", "more_body": False}
    queue.put_nowait(sent)
    reader = Reader()
    asyncio.run(BodyFromFile(reader)({"type": "http"}, queue.get, None))
    assert reader.messages == [sent]
