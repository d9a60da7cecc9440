"""A websocket's options are read from its protocol's class, set once per
factory (builtit.server.socket_options), with what autobahn's copy gave each
socket: the factory's options as it opened, kept through later changes."""

from __future__ import annotations

import pytest
from autobahn.websocket import protocol as autobahn_protocol
from daphne import server as daphne_server
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from builtit.server import socket_options


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
