"""A websocket's options (ping timeout, frame sizes, handshake timeout, ...) read
from its protocol's class, set once per factory, not copied onto each socket.

autobahn copies about thirty options from the factory onto every protocol as it
connects (`WebSocketProtocol._connectionMade`), so that a later change to the
factory leaves open sockets as they were, and pretty-prints all of them for a
debug line whether anything logs it or not: 7% of the server's time opening
10,000 sockets (py-spy, bench/ws_fanout.py --idle) and the bulk of each
protocol's attribute dict. autobahn copies only what a protocol does not
already have; here daphne's factory builds its protocols from a subclass that
carries the options as class attributes, made again whenever they change, so
the copy finds every option present and has nothing to copy or print. A
socket keeps the options its factory had as it opened, as before.

That protocol class also writes a frame that can go at once without the
arguments of autobahn's debug line for it (`sendData` names its own method
and the peer, coloured, for every frame, whether anything logs it or not: 3%
of a server's samples streaming to 50 or 200 tabs, bench/README.md "Fewer
layers on a chunk's way"). Anything else (a queued or chopped write, a socket
not open, octets logged) goes through autobahn's own.

And it lets go of what only the handshake needed (bench/README.md "Memory a
socket"). daphne hands the connection over from the HTTP channel that read the
upgrade request, and that channel stayed registered as the connection's
producer: the channel, its request, the request's headers and the bytes it had
read lived as long as the socket, for nothing (Twisted asks a producer to pause
reading while the socket's outgoing buffer is full; the channel paused the
socket's own reading, which a websocket does not need). Once open, a socket
also drops autobahn's copy of the handshake (the request's bytes, its headers
parsed, its status line, path and parameters, the answer's bytes: read by
nothing after it) and
keeps of daphne's `ConnectionRequest` only the path its log lines name.
"""

from __future__ import annotations

from typing import Any

from autobahn.websocket.protocol import WebSocketProtocol as AutobahnProtocol
from daphne import server as daphne_server
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol

_OPEN = AutobahnProtocol.STATE_OPEN
# Set by autobahn's processHandshake (and the answer it sent) and read by
# nothing once the socket is open.
_HANDSHAKE_ONLY = (
    "http_request_data",
    "http_status_line",
    "http_headers",
    "http_request_uri",
    "http_request_path",
    "http_request_params",
    "http_request_host",
    "http_response_data",
)


class _Opened:
    """What daphne still reads of the upgrade's request once a socket is open:
    its path, for the lines it logs (`log_action`)."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path


class FramesAtOnce(WebSocketProtocol):  # type: ignore[misc]
    """daphne's websocket protocol, a frame written at once without a debug line,
    holding nothing of the HTTP request it came from."""

    def connectionMade(self) -> None:
        super().connectionMade()
        # The HTTP channel daphne upgraded from, still the transport's producer.
        if getattr(self.transport, "producer", None) is not None:
            self.transport.unregisterProducer()

    def onOpen(self) -> None:
        super().onOpen()
        for name in _HANDSHAKE_ONLY:
            self.__dict__.pop(name, None)
        path: str = self.request.path  # type: ignore[has-type]
        self.request = _Opened(path)

    def sendData(self, data: bytes, sync: bool = False, chopsize: int | None = None) -> None:
        if sync or chopsize or self.send_queue or self.logOctets or self.state != _OPEN:
            super().sendData(data, sync, chopsize)
            return
        # autobahn's own for this case, without its debug line.
        self.transport.write(data)
        self.trafficStats.outgoingOctetsWireLevel += len(data)


class OptionsOnFactory(WebSocketFactory):  # type: ignore[misc]
    """daphne's websocket factory, its options on its protocol's class."""

    def resetProtocolOptions(self) -> None:
        super().resetProtocolOptions()
        self._options_on_class()

    def setProtocolOptions(self, *args: Any, **kwargs: Any) -> None:
        super().setProtocolOptions(*args, **kwargs)
        self._options_on_class()

    def _options_on_class(self) -> None:
        base = WebSocketFactory.protocol
        options = {name: _as_class_attribute(getattr(self, name)) for name in base.CONFIG_ATTRS}
        # CONFIG_ATTRS empty: autobahn's copy loop (and its pformat) is left
        # with nothing to do; every option is found on the class.
        self.protocol = type(base.__name__, (FramesAtOnce,), {**options, "CONFIG_ATTRS": ()})


def _as_class_attribute(value: Any) -> Any:
    # A function on a class would become a method of each protocol (the
    # compression offer's acceptor is one): kept as the plain function it was.
    return staticmethod(value) if callable(value) else value


def install() -> None:
    daphne_server.WebSocketFactory = OptionsOnFactory
