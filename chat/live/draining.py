"""A clean shutdown of one server process: what SIGTERM (every deploy, every
rolling restart) does to the turns and tabs this process holds.

1. It takes no new turns (`turns.refuse_new`), and `/healthz` answers 503, so a
   load balancer sends new requests to the other processes.
2. Tabs with no turn of theirs running here are closed with 4012 (1012, Service
   Restart, where an application may send it): the page reconnects at once,
   through the proxy, to a process that is staying, and catches up there.
3. Turns running here get BUILTIT_SHUTDOWN_GRACE seconds to finish. The rest
   are stopped as interrupted by the server: each records what it did (files,
   messages, usage) and tells every tab of its project, on every process.
4. The tabs that watched them close once they have shown the turn's end (or
   are closed after a moment), and the server exits.

Nothing here knows the server: builtit.server.shutdown calls `drain` from daphne's
shutdown, before daphne cancels the connections' applications.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings

from chat.live import consumers, turns

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Drained:
    finished: int  # turns that ended by themselves within the grace period
    interrupted: int  # turns stopped when it ran out


async def drain(*, grace: float | None = None) -> Drained:
    grace = settings.BUILTIT_SHUTDOWN_GRACE if grace is None else grace
    turns.refuse_new()
    running = turns.running_here()
    logger.info(
        "Shutting down: no new turns; %d running here get %g s to finish", len(running), grace
    )
    await consumers.close_all(keep=running)
    interrupted = await turns.finish_all(grace=grace)
    await consumers.settle(timeout=consumers.CLOSE_WAIT)  # those that do not: closed below
    await consumers.close_all()
    drained = Drained(finished=len(running) - interrupted, interrupted=interrupted)
    logger.info(
        "Shut down: %d turns finished, %d stopped as interrupted",
        drained.finished,
        drained.interrupted,
    )
    return drained
