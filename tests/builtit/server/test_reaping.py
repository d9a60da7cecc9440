"""daphne's application checker over marked connections only (builtit.server.reaping):
what daphne's own does for a connection whose application ended or whose
socket closed, and nothing for the others."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from daphne import server as daphne_server
from daphne.server import Server

from builtit.server import reaping
from chat.live.inbox import Inbox


class _Protocol:
    def __init__(self) -> None:
        self.errors: list[BaseException] = []

    def handle_exception(self, exception: BaseException) -> None:
        self.errors.append(exception)


class _Reactor:
    def __init__(self) -> None:
        self.later: list[Any] = []

    def callLater(self, delay: float, call: Any) -> None:
        self.later.append(call)


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["fail"]:
        raise ValueError("broken")
    await asyncio.Event().wait()


async def test_only_ended_and_closed_connections_are_checked_as_daphne_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reaping.install()
    reactor = _Reactor()
    monkeypatch.setattr(daphne_server, "reactor", reactor)
    server = Server(application=_app, endpoints=["tcp:port=0"], application_close_timeout=0)
    server.connections = {}
    failing, running, quiet = _Protocol(), _Protocol(), _Protocol()
    for protocol in (failing, running, quiet):
        server.protocol_connected(protocol)
    server.create_application(failing, {"fail": True})
    server.create_application(running, {"fail": False})
    await asyncio.sleep(0)
    await asyncio.sleep(0)

    server.application_checker()

    assert [str(error) for error in failing.errors] == ["broken"]
    assert "application_instance" not in server.connections[failing]
    instance = server.connections[running]["application_instance"]
    assert not instance.done(), "a running application is left alone"
    assert quiet in server.connections
    assert reactor.later, "checked again in a second"

    server.protocol_disconnected(running)
    assert reaping._marked(server) == {running}, "only the closed one is looked at next"
    server.application_checker()  # past application_close_timeout: cancelled
    await asyncio.gather(instance, return_exceptions=True)
    server.application_checker()  # ended and closed: forgotten

    assert running not in server.connections
    assert instance.cancelled()
    assert reaping._marked(server) == set(), "nothing left to look at"


async def test_a_websocket_application_reads_its_socket_from_an_inbox(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reaping.install()
    monkeypatch.setattr(daphne_server, "reactor", _Reactor())
    heard: list[dict[str, Any]] = []

    async def listening(scope: dict[str, Any], receive: Any, send: Any) -> None:
        heard.append(await receive())

    server = Server(application=listening, endpoints=["tcp:port=0"])
    server.connections = {}
    tab = _Protocol()
    server.protocol_connected(tab)
    queue = server.create_application(tab, {"type": "websocket"})
    queue.put_nowait({"type": "websocket.connect"})
    await asyncio.wait_for(server.connections[tab]["application_instance"], 1)

    assert isinstance(queue, Inbox)
    assert heard == [{"type": "websocket.connect"}]
    assert tab in reaping._marked(server), "its application ended: looked at next"
