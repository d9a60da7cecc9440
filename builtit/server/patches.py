"""What Built-It changes in daphne, installed in one place by the served
application (builtit.asgi):

- its request class, so a body over its route's limit (for a stranger, the
  form limit) is refused from the headers and a large one is streamed to disk
  (builtit.server.bodylimit);
- its shutdown, so a SIGTERM first finishes or interrupts the turns running
  here (builtit.server.shutdown);
- its X-Forwarded-For parser, so `--proxy-headers` takes the visitor's address
  as the application does (builtit.server.client_address);
- its application checker, so it looks only at connections whose application
  ended or whose socket closed, not at every one each second
  (builtit.server.reaping);
- its websocket factory, so a socket's options are read from its protocol's
  class, not copied onto (and printed for) each socket as it opens, and a
  frame is written without a debug line's arguments
  (builtit.server.socket_options).

How often an idle websocket is pinged is daphne's own `--ping-interval`, given
on its command line (docs/production.md), not changed here.

Each replaces a name daphne looks up as it serves, which is why daphne is
pinned to its minor version (pyproject.toml). Should an upgrade move one, the
process refuses to start rather than serve without the bound. The package's
README.md lists each patch, the figure it answers and what to check on an
upgrade; tests/builtit/server/test_upstream.py fails when daphne changes what
one replaces or copies.
"""

from __future__ import annotations

from importlib.metadata import version

from daphne import http_protocol, ws_protocol
from daphne import server as daphne_server
from daphne.server import Server
from django.core.exceptions import ImproperlyConfigured

from builtit.server import bodylimit, client_address, reaping, shutdown, socket_options

_REPLACED = (
    (http_protocol, "WebRequest"),
    (Server, "kill_all_applications"),
    (http_protocol, "parse_x_forwarded_for"),
    (ws_protocol, "parse_x_forwarded_for"),
    (Server, "application_checker"),
    (Server, "create_application"),
    (Server, "protocol_disconnected"),
    (daphne_server, "WebSocketFactory"),
)


def install() -> None:
    for owner, name in _REPLACED:
        if not hasattr(owner, name):
            raise ImproperlyConfigured(
                f"daphne {version('daphne')} has no {owner.__name__}.{name}, which Built-It "
                "replaces to bound request bodies, drain on shutdown and read the visitor's "
                "address: install the daphne version pyproject.toml names."
            )
    bodylimit.install()
    shutdown.install()
    client_address.install()
    reaping.install()
    socket_options.install()
