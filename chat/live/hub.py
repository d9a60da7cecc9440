"""This process's chat tabs, by project, and a running turn's frames to them
(DESIGN §7).

A turn running in this process hands each batch of its numbered events to the
hub (`publish`), which puts it straight into the inbox of every tab of the
project here: one append and a wake each, no copy and no channel layer. With
REDIS_URL the batch also goes to the relay (chat.live.relay) for the other
processes, and what the relay hears from them comes in here the same way. The
channel layer carries only the low-rate control messages (stop, files moved,
sessions, a lost turn).

A tab joins before it reads what is stored and what the turn has sent so far
(`since`): whatever is sent after that reaches its inbox, and it skips, by
number, what it had already read.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from collections.abc import Mapping
from typing import Any, Protocol

from django.conf import settings

from chat.live import messages
from chat.live.relay import Relay

logger = logging.getLogger(__name__)

RESYNC = {"type": "turn.resync"}  # to each tab when the relay's subscription broke
RETRY_FIRST = 1.0  # seconds before subscribing again after Redis failed
RETRY_MOST = 30.0


class Inboxed(Protocol):
    def feed(self, message: Mapping[str, Any]) -> None: ...


class Hub:
    def __init__(self, *, redis_url: str = "") -> None:
        self._tabs: dict[uuid.UUID, set[Inboxed]] = {}
        self.relay = Relay(redis_url, deliver=self.deliver) if redis_url else None
        self._unheard: set[uuid.UUID] = set()  # projects whose subscription failed
        self._retrying: asyncio.Task[None] | None = None
        if self.relay is not None:
            self.relay.on_lost = self._resubscribe

    async def join(self, project_id: uuid.UUID, tab: Inboxed) -> bool:
        """Deliver the project's turns to `tab` from now on; False if the other
        processes' turns could not be subscribed to (the tab still gets this one's)."""
        self._tabs.setdefault(project_id, set()).add(tab)
        if self.relay is None:
            return True
        if await self.relay.subscribe(project_id):
            return True
        self._retry({project_id})
        return False

    async def leave(self, project_id: uuid.UUID, tab: Inboxed) -> None:
        tabs = self._tabs.get(project_id)
        if tabs is None:
            return
        tabs.discard(tab)
        if tabs:
            return
        del self._tabs[project_id]
        if self.relay is not None:
            await self.relay.unsubscribe(project_id, wanted=lambda: project_id in self._tabs)

    def publish(self, project_id: uuid.UUID, message: messages.TurnEvents) -> None:
        """A batch of a turn running in this process: to its tabs here and elsewhere."""
        self.deliver(project_id, message)
        if self.relay is not None:
            self.relay.publish(project_id, message)

    def deliver(self, project_id: uuid.UUID, message: messages.TurnEvents) -> None:
        for tab in self._tabs.get(project_id, ()):
            tab.feed(message)

    async def since(self, turn: str, after: int) -> list[messages.NumberedEvent] | None:
        """A turn of another process: its events numbered after `after` (None:
        there is no log to read, or it could not be read)."""
        if self.relay is None:
            return None
        return await self.relay.since(turn, after)

    async def aclose(self) -> None:
        """Let go of Redis (a command's end, a server's shutdown)."""
        if self._retrying is not None:
            self._retrying.cancel()
        if self.relay is not None:
            await self.relay.drain()
            await self.relay.aclose()

    def tabs_here(self) -> int:
        return sum(len(tabs) for tabs in self._tabs.values())

    def _resubscribe(self) -> None:
        """The relay's subscription broke: every project with a tab here again."""
        self._retry(set(self._tabs))

    def _retry(self, projects: set[uuid.UUID]) -> None:
        """Subscribe to `projects` again until Redis takes them (waiting longer
        each time), then have their tabs read what they missed meanwhile."""
        self._unheard |= projects
        if self._retrying is None or self._retrying.done():
            self._retrying = asyncio.get_running_loop().create_task(self._subscribe_again())

    async def _subscribe_again(self) -> None:
        assert self.relay is not None
        wait = RETRY_FIRST
        while self._unheard:
            await asyncio.sleep(wait)
            wait = min(wait * 2, RETRY_MOST)
            for project_id in list(self._unheard):
                if project_id not in self._tabs:
                    self._unheard.discard(project_id)
                elif await self.relay.subscribe(project_id):
                    self._unheard.discard(project_id)
                    for tab in list(self._tabs.get(project_id, ())):
                        tab.feed(RESYNC)
                else:
                    break  # still down: wait longer


_HUBS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


async def close_hub() -> None:
    """Close the running loop's hub, if it has one."""
    found = _HUBS.pop(asyncio.get_running_loop(), None)
    if found is not None:
        await found.aclose()


def hub() -> Hub:
    """The running event loop's hub (daphne runs one loop; each test has its own)."""
    loop = asyncio.get_running_loop()
    found = _HUBS.get(loop)
    if found is None:
        found = _HUBS[loop] = Hub(redis_url=settings.BUILTIT_LIVE_REDIS_URL)
    return found
