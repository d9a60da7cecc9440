"""The channel layers: without REDIS_URL, Channels' in-memory layer, made cheap
where a busy server feels it (bench/ws_fanout.py); with it, channels_redis's,
whose connection pool waits rather than fails when it is busy (RedisLayer).

Channels' own `InMemoryChannelLayer`, on every `group_send`:
- makes a task per member and waits for them all, one more trip round the
  event loop before anyone can read the message, for every message of every tab;
- deep-copies the message once per member;
- walks every channel and group to drop expired messages (also on every
  `receive`): O(open tabs) per message, 15% of a 200-tab server's time.

And each channel, every open tab's among them, is an `asyncio.Queue`: three
deques and an Event, about 3 KB even while empty (builtit.small_queue).

Here a group message is copied once, put straight on each member's inbox, and
expired messages and memberships are swept at most once a second; a channel's
inbox is a builtit.small_queue.SmallQueue (about 300 bytes for an idle tab). What a
receiver gets is otherwise the same: a copy the sender can no longer change
(members share it, and none of this project's consumers changes a message), the
same capacity, the same expiry, and a full channel still loses the message (now
with a warning).

The Redis layer's settings (builtit/settings.py, CHANNEL_LAYERS):
- no client-side read timeout (`socket_timeout: None`): redis-py 8's default
  (5 s) equals the 5 s channels_redis asks Redis to block a receive for
  (BZPOPMIN), so on a quiet socket the client's timer sometimes fired first and
  the tab's socket closed; with any timer (10 s was tried) a receive cancelled
  as the timer ran could go on waiting. Redis itself ends each blocking read
  after 5 s, and redis-py's TCP keepalive (on by default: 30 s idle, 3 probes
  5 s apart) finds a server that vanished, so no read waits forever;
- past `max_connections` in use at once, a send waits for one (up to `timeout`
  seconds) rather than fails (RedisLayer, below);
- `capacity` is per process, not per tab: channels_redis keeps every message
  for a process's sockets in one Redis key, and past it a group_send skips them
  without a word (bench/ws_fanout.py --processes 2 lost frames at 2,000 while a
  busy process caught up). Messages still expire after 60 s, which bounds the
  memory.
"""

from __future__ import annotations

import asyncio
import logging
import time
from copy import deepcopy
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool

from builtit.small_queue import SmallQueue

logger = logging.getLogger(__name__)

SWEEP_EVERY = 1.0  # seconds between sweeps of expired messages and memberships


Sent = tuple[float, dict[str, Any]]  # when it expires (time.time()), the message


class LocalChannelLayer(InMemoryChannelLayer):  # type: ignore[misc]
    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self.channels: dict[str, SmallQueue[Sent]] = {}
        self._swept = 0.0

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        try:
            self._inbox(channel).put_nowait((time.time() + self.expiry, deepcopy(message)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def receive(self, channel: str) -> dict[str, Any]:
        self.require_valid_channel_name(channel)
        self._sweep()
        inbox = self._inbox(channel)
        try:
            _, message = await inbox.get()
        finally:
            if inbox.empty() and not inbox.waiters:
                self.channels.pop(channel, None)
        return message

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        self._sweep()
        members = self.groups.get(group)
        if not members:
            return
        sent = (time.time() + self.expiry, deepcopy(message))
        for channel in list(members):
            try:
                self._inbox(channel).put_nowait(sent)
            except asyncio.QueueFull:
                # As Channels' own layer: the message is lost for that member.
                logger.warning("Channel %s is full: a %s message was lost", channel, group)

    def _inbox(self, channel: str) -> SmallQueue[Sent]:
        """The channel's inbox, made when first needed (not made and thrown away
        on every call, as Channels' `setdefault` does)."""
        inbox = self.channels.get(channel)
        if inbox is None:
            inbox = self.channels[channel] = SmallQueue[Sent](self.get_capacity(channel))
        return inbox

    def _sweep(self) -> None:
        now = time.monotonic()
        if now - self._swept >= SWEEP_EVERY:
            self._swept = now
            self._clean_expired()

    def _clean_expired(self) -> None:
        """As Channels' own: expired messages go, and with each its channel's
        group memberships; memberships older than `group_expiry` go."""
        now = time.time()
        for channel, inbox in list(self.channels.items()):
            expired = 0
            while expired < len(inbox._queue) and inbox._queue[expired][0] < now:
                expired += 1
            if expired:
                del inbox._queue[:expired]
                self._remove_from_groups(channel)
                if inbox.empty():
                    self.channels.pop(channel, None)
        joined_before = int(now) - self.group_expiry
        for members in self.groups.values():
            for name, joined in list(members.items()):
                if joined and joined < joined_before:
                    members.pop(name, None)


class RedisLayer(RedisChannelLayer):  # type: ignore[misc]
    """channels_redis's layer (REDIS_URL), with a pool whose callers wait for a
    free connection instead of failing. redis-py's own pool raises "Too many
    connections" past 100 in use; a process streaming 100 turns at once reached
    that, and each failed `group_send` lost a frame for every tab of its project
    (bench/ws_fanout.py --processes 2). The bound stays (`max_connections`):
    past it, senders queue for up to `timeout` seconds."""

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(host.pop("address"), **host)
