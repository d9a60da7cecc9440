"""daphne's application checker, over the connections that need it.

Once a second daphne walks every connection (`Server.application_checker`) to
reap application instances that ended, cancel those that outlive their closed
socket by `application_close_timeout`, and forget connections that closed and
whose application ended. Nearly every chat socket has none of that to do, yet
at 10,000 open the walk held the GIL for 2-4% of a core, idle or not
(bench/ws_fanout.py --idle, py-spy). Here a connection is looked at only once
its application ended (a done callback marks it) or its socket closed
(`protocol_disconnected` marks it); what is done with it is daphne's own logic.

A websocket's application also reads what its socket sends from a
chat.live.inbox.Inbox, not an `asyncio.Queue` (3 KB even while empty); daphne
only ever puts on it. An HTTP request keeps daphne's queue (builtit.server.bodylimit
takes from it).
"""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial
from typing import Any

from daphne import server as daphne_server
from daphne.server import Server

from chat.live.inbox import Inbox

logger = logging.getLogger("daphne.server")  # where daphne's checker logs

_MARKED = "_builtit_to_check"


def _marked(server: Any) -> set[Any]:
    found: set[Any] | None = server.__dict__.get(_MARKED)
    if found is None:
        found = server.__dict__[_MARKED] = set()
    return found


def install() -> None:
    if getattr(Server.application_checker, "marked_only", False):
        return
    create_application = Server.create_application
    protocol_disconnected = Server.protocol_disconnected

    def create_and_mark(server: Any, protocol: Any, scope: Any) -> Any:
        if scope.get("type") == "websocket":
            queue = _create_websocket_application(server, protocol, scope)
        else:
            queue = create_application(server, protocol, scope)
        instance = server.connections.get(protocol, {}).get("application_instance")
        if instance is not None:
            instance.add_done_callback(lambda _: _marked(server).add(protocol))
        return queue

    def disconnected_and_mark(server: Any, protocol: Any) -> None:
        protocol_disconnected(server, protocol)
        _marked(server).add(protocol)

    def check_marked(server: Any) -> None:
        marked = _marked(server)
        for protocol in list(marked):
            if not check_one(server, protocol):
                marked.discard(protocol)
        daphne_server.reactor.callLater(1, server.application_checker)

    check_marked.marked_only = True  # type: ignore[attr-defined]
    Server.create_application = create_and_mark
    Server.protocol_disconnected = disconnected_and_mark
    Server.application_checker = check_marked


def _create_websocket_application(server: Any, protocol: Any, scope: Any) -> Inbox | None:
    """daphne's `create_application`, with an Inbox for the application's input."""
    assert "application_instance" not in server.connections[protocol]
    inbox = Inbox()
    scope.setdefault("asgi", {"version": "3.0"})
    instance = server.application(
        scope=scope, receive=inbox.get, send=partial(server.handle_reply, protocol)
    )
    if protocol not in server.connections:
        return None
    server.connections[protocol]["application_instance"] = asyncio.ensure_future(instance)
    return inbox


def check_one(server: Any, protocol: Any) -> bool:
    """daphne's check of one connection; whether it needs looking at again (its
    socket closed, its application not yet ended)."""
    details = server.connections.get(protocol)
    if details is None:
        return False
    disconnected = details.get("disconnected")
    instance = details.get("application_instance")
    overdue = disconnected and time.time() - disconnected > server.application_close_timeout
    if overdue and instance and not instance.done():
        logger.warning(
            "Application instance %r for connection %s took too long to shut down and was killed.",
            instance,
            repr(protocol),
        )
        instance.cancel()
    if instance and instance.done():
        _reap(server, protocol, instance, disconnected=bool(disconnected))
        instance = None
    if not instance and disconnected:
        del server.connections[protocol]
        return False
    return bool(disconnected)


def _reap(server: Any, protocol: Any, instance: asyncio.Future[Any], *, disconnected: bool) -> None:
    try:
        exception = instance.exception()
    except asyncio.CancelledError:
        pass
    else:
        if isinstance(exception, KeyboardInterrupt):
            server.stop()  # a protocol asking the server to exit (as daphne's tests do)
        elif exception:
            logger.error("Exception inside application: %s", exception, exc_info=exception)
            if not disconnected:
                protocol.handle_exception(exception)
    del server.connections[protocol]["application_instance"]
