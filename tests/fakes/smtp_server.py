"""A real SMTP server on 127.0.0.1 (aiosmtpd), keeping every message it is
sent: what a mail host would receive from the app's form mail. It can also be
made to refuse (a mail host that is down for a moment)."""

from __future__ import annotations

import asyncio
import email
import threading
import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from email.message import Message
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

WAIT_LIMIT = 20.0  # seconds a test waits for mail sent in the background


class FakeSMTP:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._received: list[tuple[list[str], Message]] = []
        self.refusing = False
        self.port = 0

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.refusing:
            return "451 Try again later"
        content: Any = envelope.original_content or envelope.content
        message = email.message_from_bytes(content if isinstance(content, bytes) else b"")
        with self._lock:
            self._received.append((list(envelope.rcpt_tos), message))
        return "250 OK"

    def received(self) -> list[tuple[list[str], Message]]:
        with self._lock:
            return list(self._received)

    def clear(self) -> None:
        with self._lock:
            self._received.clear()
        self.refusing = False

    def wait_for(self, text: str) -> tuple[list[str], Message]:
        """The first message whose body holds `text`, once it has come (mail
        is sent in the background); fails after WAIT_LIMIT."""
        deadline = time.monotonic() + WAIT_LIMIT
        while time.monotonic() < deadline:
            for to, message in self.received():
                if text in body_of(message):
                    return to, message
            time.sleep(0.05)
        raise AssertionError(f"no message holding {text!r} came")


class _AnyPort(Controller):
    """aiosmtpd's Controller bound to port 0: the system picks a free port, read
    back once bound and before anything connects (its own readiness check
    does), so no other process can take it between a probe and the bind."""

    def _create_server(self) -> Awaitable[asyncio.AbstractServer]:
        return self._bound(super()._create_server())

    async def _bound(self, creating: Awaitable[asyncio.AbstractServer]) -> asyncio.AbstractServer:
        server = await creating
        assert isinstance(server, asyncio.Server)
        self.port = int(server.sockets[0].getsockname()[1])
        return server


@contextmanager
def running() -> Iterator[FakeSMTP]:
    fake = FakeSMTP()
    controller = _AnyPort(fake, hostname="127.0.0.1", port=0)
    controller.start()
    fake.port = controller.port
    try:
        yield fake
    finally:
        controller.stop()


def body_of(message: Message) -> str:
    payload = message.get_payload(decode=True)
    text = payload.decode() if isinstance(payload, bytes) else str(payload)
    return text.replace("\r\n", "\n")
