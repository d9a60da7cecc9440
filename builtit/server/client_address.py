"""The visitor's address, decided once, at the edge, for HTTP and websockets alike.

Behind a reverse proxy every connection comes from the proxy; the visitor's
address is in `X-Forwarded-For`, a list each proxy appends the address it saw
to. Only the entries our own proxies added can be believed: whatever stands to
their left came from the client, who can write anything there. So the visitor
is the entry BUILTIT_TRUSTED_PROXIES places from the right (1: the one nginx
added), and with 0 the header is ignored and the connection's own address is
the visitor's. Daphne's `--proxy-headers` takes the LEFT-most entry, which the
client chooses: sign-in throttling would count a made-up address per attempt.

`ClientAddress` (in front of the pages, builtit.asgi) and the websockets' one
layer (builtit.sockets, through `scope_client`) put that address in the
scope's `client`, which Django reads as REMOTE_ADDR and Channels gives the
consumers: django-axes, the sign-up bound and the logs all see the same one.
`install()` makes daphne's `--proxy-headers` follow the same rule, so its
access log agrees and it can no longer hand the application a forged peer;
with or without the flag the application decides the same way.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from daphne import http_protocol, utils, ws_protocol
from django.conf import settings
from django.http import HttpRequest

_HEADER = b"x-forwarded-for"


def client_host(peer: str | None, forwarded: Iterable[str], proxies: int) -> str | None:
    """The visitor's address: the entry `proxies` places from the right of the
    X-Forwarded-For values `forwarded` (in the order they came), or `peer`, the
    connection's own address, when there is none to believe."""
    if proxies <= 0:
        return peer
    entries = [entry.strip() for value in forwarded for entry in value.split(",")]
    entries = [entry for entry in entries if entry]
    if not entries:
        return peer
    # Fewer entries than proxies: a proxy nearer the visitor was bypassed, and
    # the left-most entry is the best any of ours saw.
    return _address(entries[-min(proxies, len(entries))]) or peer


def _address(entry: str) -> str | None:
    """An entry as a plain IP address ("203.0.113.7", "2001:db8::1"), a port
    ("203.0.113.7:4711", "[2001:db8::1]:4711") dropped; None if it is none."""
    host = entry
    if entry.startswith("["):
        host = entry[1:].partition("]")[0]
    elif entry.count(":") == 1:
        host = entry.partition(":")[0]
    try:
        # Without a zone ("%eth0"): it names an interface of the proxy's, and
        # PostgreSQL's inet (the throttling's column) refuses it.
        return str(ipaddress.ip_address(host.partition("%")[0]))
    except ValueError:
        return None


def _proxies() -> int:
    return int(settings.BUILTIT_TRUSTED_PROXIES)


def scope_client(scope: dict[str, Any]) -> list[Any] | None:
    """The scope's `client` with the visitor's address in it (port 0 when the
    address came from the header: the visitor's port is not known)."""
    peer = scope.get("client")
    peer_host = str(peer[0]) if peer else None
    forwarded = [
        value.decode("latin-1") for name, value in scope.get("headers", []) if name == _HEADER
    ]
    host = client_host(peer_host, forwarded, _proxies())
    if host is None or host == peer_host:
        return list(peer) if peer else None
    return [host, 0]


class ClientAddress:
    """ASGI middleware: the scope's `client` is the visitor, as `client_host` says."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] in {"http", "websocket"}:
            scope = {**scope, "client": scope_client(scope)}
        return await self.inner(scope, receive, send)


def request_address(request: HttpRequest) -> str | None:
    """The address django-axes counts (AXES_CLIENT_IP_CALLABLE): the one the
    edge decided, whatever else is installed (django-ipware, if present, would
    read X-Forwarded-For on its own, left-most first)."""
    return request.META.get("REMOTE_ADDR") or None


def _forwarded_values(headers: Any) -> list[str]:
    """X-Forwarded-For's values from daphne's headers: Twisted's Headers for
    HTTP, a dict of lower-case names for websockets."""
    if isinstance(headers, dict):
        found = [value for name, value in headers.items() if name.lower() == _HEADER]
    else:
        found = headers.getRawHeaders(_HEADER) or []
    return [value.decode("latin-1") for value in found]


def _daphne_forwarded(  # noqa: PLR0917 (daphne's parser's signature)
    headers: Any,
    address_header_name: str = "X-Forwarded-For",
    port_header_name: str = "X-Forwarded-Port",
    proto_header_name: str = "X-Forwarded-Proto",
    original_addr: list[Any] | None = None,
    original_scheme: str | None = None,
) -> tuple[list[Any] | None, str | None]:
    """daphne.utils.parse_x_forwarded_for, but the address follows `client_host`
    (daphne's own takes the left-most entry); the scheme is daphne's."""
    _, scheme = utils.parse_x_forwarded_for(
        headers, address_header_name, None, proto_header_name, original_addr, original_scheme
    )
    peer_host = str(original_addr[0]) if original_addr else None
    host = client_host(peer_host, _forwarded_values(headers), _proxies())
    if host is None or host == peer_host:
        return original_addr, scheme
    return [host, 0], scheme


def install() -> None:
    """Daphne's `--proxy-headers` reads the address as ClientAddress does. Its
    protocols call the parser by the name they imported, so it is replaced there."""
    http_protocol.parse_x_forwarded_for = _daphne_forwarded
    ws_protocol.parse_x_forwarded_for = _daphne_forwarded
