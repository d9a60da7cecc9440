"""SIGTERM under daphne: the process drains (chat.live.draining) before it exits.

Daphne stops on SIGTERM through Twisted's shutdown, and the first thing it does
there is cancel every connection's application (`Server.kill_all_applications`):
tabs would stop hearing their turns, and turns would be cut wherever they were.
`install()` makes that step drain first: no new turns, tabs told to reconnect
elsewhere, running turns given BUILTIT_SHUTDOWN_GRACE to finish and then
recorded as interrupted. Called once from builtit.asgi, which every way of
serving the app (`daphne builtit.asgi:application`, `manage.py runserver`)
imports before it listens, like builtit.server.bodylimit.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from daphne.server import Server
from twisted.internet import defer

logger = logging.getLogger(__name__)


REQUESTS_WAIT = 5.0  # seconds requests under way get to finish once the drain is done


def install() -> None:
    if getattr(Server.kill_all_applications, "drains_first", False):
        return
    kill_all_applications = Server.kill_all_applications

    def drain_then_kill(server: Server) -> Any:
        drained = defer.Deferred.fromFuture(asyncio.ensure_future(_drain(server)))
        drained.addErrback(lambda failure: logger.error("Shutdown drain failed: %s", failure))
        drained.addBoth(lambda _: kill_all_applications(server))
        return drained

    drain_then_kill.drains_first = True  # type: ignore[attr-defined]
    Server.kill_all_applications = drain_then_kill


async def _drain(server: Server) -> None:
    from chat.live.draining import drain  # noqa: PLC0415 (Django is set up by now)
    from chat.live.layer import close_layer  # noqa: PLC0415
    from chat.llm import close_client  # noqa: PLC0415
    from projects.publish.forms.writer import writer_drain  # noqa: PLC0415

    await drain()
    # Then let requests under way finish before daphne cancels them: a Django
    # view cancelled mid-request leaves its thread waiting on an event loop that
    # has stopped, and the process never exits (seen under load, with a page's
    # requests in flight). Bounded: one that hangs is cancelled as before.
    running = [
        details["application_instance"]
        for details in list(server.connections.values())
        if "application_instance" in details and not details["application_instance"].done()
    ]
    if running:
        await asyncio.wait(running, timeout=REQUESTS_WAIT)
    # Forms still queued for their commit (their requests cut above or not) are kept.
    await asyncio.to_thread(writer_drain)
    await close_client()  # the model's connections, now that no turn uses them
    await close_layer()  # and Redis's, whose last frames the turns have flushed
