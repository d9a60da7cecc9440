"""What each patch in builtit.server replaces or copies is still what daphne
has: the name, its parameters, the line by which daphne reaches it, and daphne's
own code as it was when the patch was written. daphne's source is read from its
files, not from the live names, which the patches have replaced by now.

A daphne upgrade that changes one fails here, naming the patch to read again
(builtit/server/README.md says what to check); when the patch still holds, the
digest is updated to the new code's."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
from dataclasses import dataclass
from pathlib import Path

import pytest
from daphne import utils
from daphne.cli import CommandLineInterface
from daphne.server import Server
from twisted.web import http

from builtit.server import client_address, patches

README = Path(__file__).resolve().parents[3] / "builtit" / "server" / "README.md"


@dataclass(frozen=True)
class Upstream:
    module: str  # daphne's module
    name: str  # a function or method in it: "Server.application_checker"
    parameters: tuple[str, ...]  # its parameters, *args and **kwargs included
    digest: str  # of its code (code_digest) in the daphne our patch was written for
    ours: str  # the patch that replaces it, copies it or relies on what it does


UPSTREAM = [
    # Our request class is a subclass: its arguments pass through to daphne's.
    Upstream(
        "daphne.http_protocol",
        "WebRequest.__init__",
        ("self", "*args", "**kwargs"),
        "602cdca44c9ec735",
        "bodylimit",
    ),
    # Reads the body onto the application's queue from `content` after
    # create_application, in one message when it is empty (what bodylimit swaps).
    Upstream(
        "daphne.http_protocol", "WebRequest.process", ("self",), "c680c396f9166986", "bodylimit"
    ),
    Upstream(
        "daphne.http_protocol",
        "WebRequest.check_timeouts",
        ("self",),
        "adf356017dc8d47e",
        "bodylimit",
    ),
    Upstream(
        "daphne.http_protocol",
        "HTTPFactory.buildProtocol",
        ("self", "addr"),
        "3a7e617482b0efa1",
        "bodylimit",
    ),
    Upstream(
        "daphne.server",
        "Server.kill_all_applications",
        ("self",),
        "7a43c1d6331ecdc2",
        "shutdown",
    ),
    # Copied for a websocket's application, with a small queue.
    Upstream(
        "daphne.server",
        "Server.create_application",
        ("self", "protocol", "scope"),
        "6f24286e9f31e319",
        "reaping",
    ),
    # Copied, for the marked connections only (reaping.check_one).
    Upstream(
        "daphne.server", "Server.application_checker", ("self",), "3769e5e064b42064", "reaping"
    ),
    Upstream(
        "daphne.server",
        "Server.protocol_disconnected",
        ("self", "protocol"),
        "1e0fba13ca26ee31",
        "reaping",
    ),
    # autobahn's, under daphne: copies each option the protocol lacks from the
    # factory as a socket opens (socket_options leaves it none to copy).
    Upstream(
        "autobahn.websocket.protocol",
        "WebSocketProtocol._connectionMade",
        ("self",),
        "c30299214c03bd25",
        "socket_options",
    ),
    # Writes a frame: socket_options copies its write-at-once case, without the debug line.
    Upstream(
        "autobahn.websocket.protocol",
        "WebSocketProtocol.sendData",
        ("self", "data", "sync", "chopsize"),
        "8a61f014fe4c4eaa",
        "socket_options",
    ),
    # Sets the options as attributes of the factory, which socket_options reads.
    Upstream(
        "autobahn.websocket.protocol",
        "WebSocketServerFactory.resetProtocolOptions",
        ("self",),
        "9c4bd97347b92403",
        "socket_options",
    ),
    # Twisted's HTTP channel registers itself as its transport's producer, and
    # daphne leaves it so when it hands the transport to a websocket: the
    # socket unregisters it (socket_options), so the channel can go.
    Upstream(
        "twisted.web.http",
        "HTTPChannel.connectionMade",
        ("self",),
        "468a116c6e02a5e7",
        "socket_options",
    ),
    # Set the handshake's attributes socket_options drops once the socket is open.
    Upstream(
        "autobahn.websocket.protocol",
        "WebSocketServerProtocol.processHandshake",
        ("self",),
        "0c373bfde55d386f",
        "socket_options",
    ),
    Upstream(
        "autobahn.websocket.protocol",
        "WebSocketServerProtocol.succeedHandshake",
        ("self", "res"),
        "1420d3667337dba5",
        "socket_options",
    ),
    # Read only the request's path once the socket is open (socket_options keeps it alone).
    Upstream(
        "daphne.ws_protocol",
        "WebSocketProtocol.onOpen",
        ("self",),
        "675a75569cb432b3",
        "socket_options",
    ),
    Upstream(
        "daphne.ws_protocol",
        "WebSocketProtocol.onClose",
        ("self", "wasClean", "code", "reason"),
        "d9bb78d9ca943f00",
        "socket_options",
    ),
    # Called for the scheme; its address is replaced by ours.
    Upstream(
        "daphne.utils",
        "parse_x_forwarded_for",
        (
            "headers",
            "address_header_name",
            "port_header_name",
            "proto_header_name",
            "original_addr",
            "original_scheme",
        ),
        "5c2d83c7207a0987",
        "client_address",
    ),
]

# The lines by which daphne reaches what we replace: a name looked up as it
# serves, which is why replacing it on the module or the class takes effect.
REACHED = [
    # The request class is read from the module for each connection.
    ("daphne.http_protocol", "HTTPFactory.buildProtocol", "protocol.requestFactory = WebRequest"),
    # The parser is called by the name each protocol module imported.
    ("daphne.http_protocol", "WebRequest.process", "= parse_x_forwarded_for("),
    ("daphne.ws_protocol", "WebSocketProtocol.onConnect", "= parse_x_forwarded_for("),
    # An upgrade hands the HTTP channel's transport to the websocket protocol.
    ("daphne.http_protocol", "WebRequest.process", "protocol.makeConnection(transport)"),
    # Looked up on the server when it starts, so the class's attribute is used.
    (
        "daphne.server",
        "Server.run",
        'reactor.addSystemEventTrigger("before", "shutdown", self.kill_all_applications)',
    ),
    ("daphne.server", "Server.run", "reactor.callLater(1, self.application_checker)"),
    # The websocket factory is read from the module when the server starts.
    ("daphne.server", "Server.run", "self.ws_factory = WebSocketFactory(self, server="),
    (
        "daphne.server",
        "Server.application_checker",
        "reactor.callLater(1, self.application_checker)",
    ),
]


def _definition(module: str, name: str) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """daphne's source file for `module` and the function `name` in it."""
    spec = importlib.util.find_spec(module)
    assert spec is not None
    assert spec.origin is not None
    text = Path(spec.origin).read_text()
    node: ast.AST = ast.parse(text)
    for part in name.split("."):
        body = getattr(node, "body", [])
        found = [
            child
            for child in body
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and child.name == part
        ]
        assert found, f"daphne has no {module}.{name}"
        node = found[0]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef), f"{module}.{name}"
    return text, node


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    arguments = function.args
    names = [argument.arg for argument in [*arguments.posonlyargs, *arguments.args]]
    if arguments.vararg:
        names.append(f"*{arguments.vararg.arg}")
    names += [argument.arg for argument in arguments.kwonlyargs]
    if arguments.kwarg:
        names.append(f"**{arguments.kwarg.arg}")
    return tuple(names)


def code_digest(text: str, function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A digest of the function's code: its lines stripped, without blank lines
    and comments, so a change of what it does shows and a re-indent does not."""
    source = ast.get_source_segment(text, function) or ""
    lines = [line.strip() for line in source.splitlines()]
    code = "\n".join(line for line in lines if line and not line.startswith("#"))
    return hashlib.sha256(code.encode()).hexdigest()[:16]


@pytest.mark.parametrize("upstream", UPSTREAM, ids=lambda upstream: upstream.name)
def test_what_a_patch_replaces_is_still_daphnes_as_it_was_written_for(upstream: Upstream) -> None:
    text, function = _definition(upstream.module, upstream.name)
    where = f"{upstream.module}.{upstream.name}: read builtit/server/{upstream.ours}.py again"
    assert _parameters(function) == upstream.parameters, f"its parameters changed, {where}"
    assert code_digest(text, function) == upstream.digest, f"its code changed, {where}"


@pytest.mark.parametrize(
    ("module", "name", "line"), REACHED, ids=[f"{module}.{name}" for module, name, _ in REACHED]
)
def test_daphne_reaches_what_we_replace_by_name(module: str, name: str, line: str) -> None:
    text, function = _definition(module, name)
    assert line in (ast.get_source_segment(text, function) or ""), f"{module}.{name}: {line}"


def test_our_address_parser_takes_what_daphnes_does() -> None:
    """daphne's protocols call ours with the arguments they give theirs."""
    theirs = inspect.signature(utils.parse_x_forwarded_for).parameters
    ours = inspect.signature(client_address._daphne_forwarded).parameters
    assert [(name, value.kind, value.default) for name, value in theirs.items()] == [
        (name, value.kind, value.default) for name, value in ours.items()
    ]


def test_twisteds_request_still_calls_what_our_request_class_overrides() -> None:
    assert list(inspect.signature(http.Request.gotLength).parameters) == ["self", "length"]
    assert list(inspect.signature(http.Request.handleContentChunk).parameters) == ["self", "data"]
    assert "parsePOSTFormSubmission" in inspect.signature(http.Request.__init__).parameters


def test_the_ping_interval_is_daphnes_own_flag() -> None:
    """No patch sets it: the guide's command line gives `--ping-interval 50`."""
    parsed = CommandLineInterface().parser.parse_args(
        ["--ping-interval", "50", "builtit.asgi:application"]
    )
    assert parsed.ping_interval == 50
    assert "ping_interval" in inspect.signature(Server.__init__).parameters
    text, run = _definition("daphne.cli", "CommandLineInterface.run")
    assert "ping_interval=args.ping_interval," in (ast.get_source_segment(text, run) or "")


def test_the_readme_lists_every_name_the_patches_replace() -> None:
    readme = README.read_text()
    owners = {
        owner: owner.__name__ if inspect.ismodule(owner) else f"{owner.__module__}.{owner.__name__}"
        for owner, _ in patches._REPLACED
    }
    names = [f"{owners[owner]}.{name}" for owner, name in patches._REPLACED]
    assert [name for name in names if f"`{name}`" not in readme] == []
