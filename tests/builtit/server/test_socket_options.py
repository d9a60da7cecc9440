"""A websocket's options are read from its protocol's class, set once per
factory (builtit.server.socket_options), with what autobahn's copy gave each
socket: the factory's options as it opened, kept through later changes. Once
open, a socket holds nothing of the HTTP channel it was upgraded from, nor of
its handshake but the path daphne logs."""

from __future__ import annotations

import gc
import weakref

import pytest
from autobahn.websocket import protocol as autobahn_protocol
from daphne import server as daphne_server
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport
from twisted.web import http

from builtit.server import socket_options
from chat.live.inbox import Inbox


def _factory() -> object:
    socket_options.install()
    # As daphne's Server.run makes and sets it up.
    factory = daphne_server.WebSocketFactory(None, server="daphne")
    factory.setProtocolOptions(
        autoPingTimeout=30,
        allowNullOrigin=True,
        openHandshakeTimeout=5,
        maxMessagePayloadSize=1000,
        maxFramePayloadSize=500,
    )
    return factory


def _connected(factory: object) -> WebSocketProtocol:
    address = IPv4Address("TCP", "127.0.0.1", 40000)
    protocol = factory.buildProtocol(address)  # type: ignore[attr-defined]
    protocol.makeConnection(StringTransport(peerAddress=address))  # type: ignore[no-untyped-call]
    assert isinstance(protocol, WebSocketProtocol)
    return protocol


def test_a_socket_reads_its_options_from_its_class_not_copies_of_its_own() -> None:
    protocol = _connected(_factory())

    copied = [name for name in WebSocketProtocol.CONFIG_ATTRS if name in vars(protocol)]
    assert copied == []
    assert (protocol.autoPingTimeout, protocol.maxMessagePayloadSize) == (30, 1000)
    assert (protocol.maxFramePayloadSize, protocol.openHandshakeTimeout) == (500, 5)
    # A function among the options stays a plain function, not a method of the socket.
    assert protocol.perMessageCompressionAccept([]) is None


def test_a_socket_keeps_the_options_it_opened_with() -> None:
    factory = _factory()
    before = _connected(factory)

    factory.setProtocolOptions(autoPingTimeout=7)  # type: ignore[attr-defined]
    after = _connected(factory)

    assert (before.autoPingTimeout, after.autoPingTimeout) == (30, 7)
    assert after.maxMessagePayloadSize == 1000


def _written(protocol: WebSocketProtocol) -> bytes:
    transport = protocol.transport
    assert isinstance(transport, StringTransport)
    written: bytes = transport.value()  # type: ignore[no-untyped-call]
    transport.clear()  # type: ignore[no-untyped-call]
    return written


def test_a_frame_goes_out_as_autobahns_own_write_would_send_it() -> None:
    ours = _connected(_factory())
    theirs = WebSocketProtocol()
    theirs.factory = ours.factory
    theirs.makeConnection(StringTransport())  # type: ignore[no-untyped-call]
    for protocol in (ours, theirs):
        protocol.state = WebSocketProtocol.STATE_OPEN
        _written(protocol)

    for protocol in (ours, theirs):
        protocol.sendMessage("Å frame".encode())
    assert _written(ours) == _written(theirs) != b""
    assert (
        ours.trafficStats.outgoingOctetsWireLevel == theirs.trafficStats.outgoingOctetsWireLevel > 0
    )
    # A frame asked to go in pieces still goes through autobahn's queue.
    ours.sendData(b"abcdef", chopsize=2)
    assert (_written(ours), list(ours.send_queue)) == (b"ab", [(b"cd", True), (b"ef", True)])


def test_a_frame_written_at_once_builds_no_debug_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def coloured(*args: object, **kwargs: object) -> str:
        raise AssertionError("a debug line's arguments were built")

    protocol = _connected(_factory())
    protocol.state = WebSocketProtocol.STATE_OPEN
    _written(protocol)
    monkeypatch.setattr(autobahn_protocol, "hltype", coloured)

    protocol.sendMessage(b"streamed words")
    assert b"streamed words" in _written(protocol)


class _Server:
    """What daphne's websocket protocol asks of its server while a socket opens."""

    root_path = ""
    proxy_forwarded_address_header = None

    def __init__(self) -> None:
        self.logged: list[tuple[str, dict[str, object]]] = []

    def protocol_connected(self, protocol: object) -> None:
        pass

    def protocol_disconnected(self, protocol: object) -> None:
        pass

    def create_application(self, protocol: object, scope: dict[str, object]) -> Inbox:
        return Inbox()  # the application's queue (builtit.server.reaping's)

    def log_action(self, protocol: str, action: str, details: dict[str, object]) -> None:
        self.logged.append((action, details))


_UPGRADE = (
    b"GET /ws/projects/1/chat/?format=json HTTP/1.1\r\n"
    b"Host: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Origin: http://127.0.0.1\r\nCookie: sessionid=abc\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


def _opened() -> tuple[WebSocketProtocol, _Server]:
    factory = _factory()
    server = _Server()
    factory.server_class = server  # type: ignore[attr-defined]
    protocol = _connected(factory)
    protocol._raw_query_string = b"format=json"
    protocol.dataReceived(_UPGRADE)
    protocol.serverAccept()  # the application accepted
    assert protocol.state == WebSocketProtocol.STATE_OPEN
    return protocol, server


def test_an_open_socket_keeps_nothing_of_its_handshake_but_the_path_it_logs() -> None:
    protocol, server = _opened()

    kept = [name for name in vars(protocol) if name.startswith("http_")]
    assert kept == []
    assert not hasattr(protocol.request, "headers")
    # It still works as before: a frame goes out, and its close is logged with its path.
    _written(protocol)
    protocol.sendMessage(b"still open")
    assert b"still open" in _written(protocol)
    protocol.onClose(True, 1000, "")
    assert [details["path"] for action, details in server.logged] == [
        "/ws/projects/1/chat/",  # connecting
        "/ws/projects/1/chat/",  # connected
        "/ws/projects/1/chat/",  # disconnected
    ]
    assert server.logged[-1][0] == "disconnected"


def test_a_socket_lets_go_of_the_http_channel_it_was_upgraded_from() -> None:
    address = IPv4Address("TCP", "127.0.0.1", 40000)
    transport = StringTransport(peerAddress=address)  # type: ignore[no-untyped-call]
    channel = http.HTTPChannel()  # type: ignore[no-untyped-call]
    channel.timeOut = None  # daphne's has none while a request is read
    channel.makeConnection(transport)  # type: ignore[no-untyped-call]
    assert transport.producer is channel  # as Twisted's HTTP channel registers itself
    gone = weakref.ref(channel)
    protocol = _factory().buildProtocol(address)  # type: ignore[attr-defined]

    # As daphne's WebRequest.process hands the connection over on an upgrade.
    transport.protocol = protocol  # type: ignore[attr-defined]
    protocol.makeConnection(transport)
    del channel
    gc.collect()

    assert transport.producer is None
    assert gone() is None
