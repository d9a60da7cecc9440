"""SIGTERM under daphne: the process drains (chat.live.draining) before it exits.

Daphne stops on SIGTERM through Twisted's shutdown, and the first thing it does
there is cancel every connection's application (`Server.kill_all_applications`):
tabs would stop hearing their turns, and turns would be cut wherever they were.
`install()` makes that step drain first: no new turns, tabs told to reconnect
elsewhere, running turns given BUILTIT_SHUTDOWN_GRACE to finish and then
recorded as interrupted. Called once from builtit.asgi, which every way of
serving the app (`daphne builtit.asgi:application`, `manage.py runserver`)
imports before it listens, like builtit.bodylimit.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from daphne.server import Server
from twisted.internet import defer

logger = logging.getLogger(__name__)


def install() -> None:
    if getattr(Server.kill_all_applications, "drains_first", False):
        return
    kill_all_applications = Server.kill_all_applications

    def drain_then_kill(server: Server) -> Any:
        from chat.live.draining import drain  # noqa: PLC0415 (Django is set up by now)

        drained = defer.Deferred.fromFuture(asyncio.ensure_future(drain()))
        drained.addErrback(lambda failure: logger.error("Shutdown drain failed: %s", failure))
        drained.addBoth(lambda _: kill_all_applications(server))
        return drained

    drain_then_kill.drains_first = True  # type: ignore[attr-defined]
    Server.kill_all_applications = drain_then_kill
