"""How often daphne pings an idle websocket (BUILTIT_WS_PING_INTERVAL, 50 s).

daphne pings every socket that sent nothing for `--ping-interval` seconds (20
unless given) and closes it when no pong comes within `--ping-timeout` (30).
Chat tabs mostly listen, so nearly every open tab is pinged: 10,000 idle tabs
meant 500 pings and pongs a second through Twisted and autobahn, most of what
an idle server spent (bench/ws_fanout.py --idle). The pings are there to find
tabs that vanished without closing (a laptop shut, a network gone) and to keep
proxies from closing a quiet socket. 50 s stays under the 60 s idle timeout
common to load balancers (nginx's own is 1 h in our README's configuration),
and a vanished tab is still let go within 80 s.

Given `--ping-interval` explicitly (any value but daphne's default), daphne's
own is kept.
"""

from __future__ import annotations

import inspect
from typing import Any

from daphne.server import Server
from django.conf import settings

DAPHNE_DEFAULT: int = inspect.signature(Server.__init__).parameters["ping_interval"].default


def ping_interval(chosen: int) -> int:
    """Seconds between pings: ours, unless the command line chose another."""
    return int(settings.BUILTIT_WS_PING_INTERVAL) if chosen == DAPHNE_DEFAULT else chosen


def install() -> None:
    if getattr(Server.run, "our_pings", False):
        return
    run = Server.run

    def run_with_our_pings(server: Any) -> Any:
        server.ping_interval = ping_interval(server.ping_interval)
        return run(server)

    run_with_our_pings.our_pings = True  # type: ignore[attr-defined]
    Server.run = run_with_our_pings
