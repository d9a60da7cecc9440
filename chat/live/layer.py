"""The channel layer: everything a tab receives comes by this one route, in one
process and across processes (DESIGN §7). Consumers use it as Channels
documents a layer: `group_add`, `group_send`, `send`, and Channels' own
consumer reads its channel.

In this process a message sent to a group is put, once, on the inbox
(chat.live.inbox) of every member here: one append and a wake each, no copy
per member and no task per member. A turn's events merge into the batch still
waiting on a tab that is busy, so a slow tab draws once what came meanwhile
and a channel holds at most one batch per turn. With REDIS_URL, the relay
(chat.live.relay) takes the same message to every other process with a member
of the group, and a message for another process's channel to that process;
what it hears comes into the inboxes here the same way. A turn's events also
go to the turn's log there, which `since` reads for a tab that joins late.

Channels' semantics are kept, but one: a group's message is not copied (a
sender never changes what it sent). A channel holds at most `capacity` messages (a
full channel refuses a `send` with ChannelFull and loses a group's message),
what waits unread `expiry` seconds is dropped with the channel's memberships,
and memberships lapse after `group_expiry`. Expired channels are swept at most
once a second, not on every message.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
import weakref
from collections.abc import Mapping
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import BaseChannelLayer

from chat.live import messages
from chat.live.backoff import Backoff
from chat.live.inbox import Inbox
from chat.live.relay import Relay, Target, group_channel, process_channel

logger = logging.getLogger(__name__)

SWEEP_EVERY = 1.0  # seconds between sweeps of expired channels and memberships
# What a group's members are told once the relay hears the group again after its
# subscription broke, since what was published meanwhile never came: a
# project's tabs read the turn's log again, a person's check their session.
RESYNCS = {"project.": {"type": "turn.resync"}, "user.": {"type": "session.check"}}
RETRY_FIRST = 1.0  # seconds before subscribing again after Redis failed
RETRY_MOST = 30.0

Message = dict[str, Any]


class LiveLayer(BaseChannelLayer):  # type: ignore[misc]
    extensions = ["groups", "flush"]

    def __init__(
        self,
        *,
        redis_url: str = "",
        expiry: int = 60,
        group_expiry: int = 86400,
        capacity: int = 100,
        channel_capacity: dict[str, int] | None = None,
    ) -> None:
        super().__init__(expiry=expiry, capacity=capacity, channel_capacity=channel_capacity)
        self.group_expiry = group_expiry
        self.redis_url = redis_url
        # In the names of this process's channels, and the sender of what it
        # publishes (whatever loop sends it): it skips its own publications.
        self.process = uuid.uuid4().hex
        self.channels: dict[str, Inbox] = {}
        self.groups: dict[str, dict[str, float]] = {}  # member channels, when each joined
        self._joined: dict[str, set[str]] = {}  # each member channel's groups
        self._swept = 0.0
        # What the sweep looks at: a channel made, or given a message while no
        # reader waited on it (one a reader waits on is read, or closed with
        # its reader). Every channel each second was 13 ms of the event loop's
        # time at 10,000 open sockets, and the memberships 15 ms more: none of
        # those lapses before a day (`_joined_since`).
        self._to_sweep: set[str] = set()
        self._joined_since = math.inf  # no membership is older (time.time())
        self._remotes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Remote] = (
            weakref.WeakKeyDictionary()
        )

    # --- Channels' API -----------------------------------------------------------------

    async def new_channel(self, prefix: str = "specific") -> str:
        name = f"{prefix}.{self.process}!{uuid.uuid4().hex[:12]}"
        self.channels[name] = Inbox()
        self._to_sweep.add(name)  # gone at the sweep if nobody ever reads it
        remote = self._remote()
        if remote is not None:
            remote.serving = True
            await remote.hear_process()
        return name

    async def send(self, channel: str, message: Message) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        message = deepcopy(message)  # once: the sender may change its own afterwards
        owner = _process_of(channel)
        if owner is None or owner == self.process:
            if not self._put(channel, message):
                raise ChannelFull(channel)
            return
        remote = self._remote()
        if remote is not None:
            remote.relay.publish(process_channel(owner), ("channel", channel), message)
            await self._sent(remote)

    async def receive(self, channel: str) -> Message:
        self.require_valid_channel_name(channel)
        self._sweep()
        inbox = self._inbox(channel)
        try:
            return await inbox.receive()
        except asyncio.CancelledError:
            # Channels cancels a consumer's receive only as the consumer ends (a
            # socket closed, a handler failed): its channel is gone with it, and
            # must not gather every later message of its groups.
            if not inbox.waited_on:
                self._close(channel)
            raise
        finally:
            if not len(inbox) and not inbox.waited_on:
                self.channels.pop(channel, None)  # made again by the next message

    async def group_add(self, group: str, channel: str) -> None:
        """Join `channel` to `group`; with Redis, once the process hears the group
        (or its subscription failed: then it is retried, and the members get
        `turn.resync` once it holds)."""
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        joined = time.time()
        self.groups.setdefault(group, {})[channel] = joined
        self._joined_since = min(self._joined_since, joined)
        self._joined.setdefault(channel, set()).add(group)
        remote = self._remote()
        if remote is not None:
            remote.serving = True
            await remote.hear_group(group)

    async def group_discard(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        members = self.groups.get(group)
        if members is None:
            return
        members.pop(channel, None)
        self._left(channel, group)
        if members:
            return
        del self.groups[group]
        remote = self._remote()
        if remote is not None:
            await remote.forget_group(group)

    async def group_send(self, group: str, message: Message) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        self._sweep()
        # Not copied: every member here and the relay get this very message (an
        # inbox copies only what it merges into), so a sender never changes a
        # message it has sent (none does). Channels' in-memory layer deep-copies it
        # for each member; a copy per batch cost 8 µs of the 100 a frame costs.
        self.deliver(("group", group), message)
        remote = self._remote()
        if remote is not None:
            remote.relay.publish(group_channel(group), ("group", group), message)
            await self._sent(remote)

    async def flush(self) -> None:
        self.channels.clear()
        self.groups.clear()
        self._joined.clear()
        self._to_sweep.clear()

    # --- ours --------------------------------------------------------------------------

    def deliver(self, target: Target, message: Message) -> None:
        """`message` to its channel or group members in this process, at once."""
        kind, name = target
        if kind == "channel":
            self._put(name, message)
            return
        for channel in list(self.groups.get(name, ())):
            if not self._put(channel, message):
                logger.warning("Channel %s is full: a %s message was lost", channel, name)

    async def since(self, turn: str, after: int) -> list[messages.NumberedEvent] | None:
        """A turn of another process: its events numbered after `after` (None:
        there is no log to read, or it could not be read)."""
        remote = self._remote()
        return None if remote is None else await remote.relay.since(turn, after)

    async def drain(self) -> None:
        """Until what this loop has sent so far has reached Redis (or failed)."""
        remote = self._remotes.get(asyncio.get_running_loop())
        if remote is not None:
            await remote.relay.drain()

    async def close(self) -> None:
        """Let go of Redis on the running loop (a command's end, a server's shutdown)."""
        remote = self._remotes.pop(asyncio.get_running_loop(), None)
        if remote is not None:
            await remote.aclose()

    @property
    def resubscribing(self) -> bool:
        """Whether Redis failed a subscription of this process (its listener ended,
        or a group's join) that is not made again yet: meanwhile its tabs miss what
        other processes send them. Read by /healthz, from another thread."""
        return any(not remote.heard for remote in list(self._remotes.values()))

    def members_here(self) -> int:
        return sum(len(members) for members in self.groups.values())

    # --- inside ------------------------------------------------------------------------

    async def _sent(self, remote: _Remote) -> None:
        """On a loop that only sends (sync code through async_to_sync: a command, a
        shell), what it published reaches Redis before the loop ends, and the loop's
        connection is let go; a server's loop (it has channels) sends in the
        background, a flush per round trip for all its turns."""
        if not remote.serving:
            await self.close()

    def _left(self, channel: str, group: str) -> None:
        groups = self._joined.get(channel)
        if groups is not None:
            groups.discard(group)
            if not groups:
                del self._joined[channel]

    def _put(self, channel: str, message: Message) -> bool:
        inbox = self._inbox(channel)
        if not inbox.waited_on:
            self._to_sweep.add(channel)
        return inbox.feed(message, capacity=self.get_capacity(channel))

    def _inbox(self, channel: str) -> Inbox:
        inbox = self.channels.get(channel)
        if inbox is None:
            inbox = self.channels[channel] = Inbox()
        return inbox

    def _remote(self) -> _Remote | None:
        if not self.redis_url:
            return None
        loop = asyncio.get_running_loop()
        remote = self._remotes.get(loop)
        if remote is None:
            remote = self._remotes[loop] = _Remote(self)
        return remote

    def _close(self, channel: str) -> None:
        self.channels.pop(channel, None)
        emptied = []
        for group in self._joined.pop(channel, ()):
            members = self.groups.get(group)
            if members is not None and members.pop(channel, None) is not None and not members:
                del self.groups[group]
                emptied.append(group)
        remote = self._remote()
        if remote is not None and emptied:
            remote.forget_soon(emptied)

    def _sweep(self) -> None:
        now = time.monotonic()
        if now - self._swept < SWEEP_EVERY:
            return
        self._swept = now
        self._expire_channels(lapsed=now - self.expiry)
        self._expire_memberships()

    def _expire_channels(self, *, lapsed: float) -> None:
        looked, self._to_sweep = self._to_sweep, set()
        for channel in looked:
            inbox = self.channels.get(channel)
            if inbox is None or inbox.waited_on:
                continue
            if not len(inbox):
                del self.channels[channel]  # nothing in it: made again when needed
            elif inbox.since < lapsed:
                inbox.drop()
                del self.channels[channel]
                for group in self._joined.pop(channel, ()):
                    self.groups.get(group, {}).pop(channel, None)
            else:
                self._to_sweep.add(channel)  # unread, not for long enough yet

    def _expire_memberships(self) -> None:
        joined_before = time.time() - self.group_expiry
        if self._joined_since >= joined_before:
            return  # none joined that long ago
        oldest = math.inf
        for group, members in list(self.groups.items()):
            for channel, joined in list(members.items()):
                if joined < joined_before:
                    del members[channel]
                    self._left(channel, group)
                else:
                    oldest = min(oldest, joined)
            if not members:
                del self.groups[group]
        self._joined_since = oldest


class _Remote:
    """The layer's way to the other processes on one event loop: the relay, what it
    hears, and subscribing again after Redis failed."""

    def __init__(self, layer: LiveLayer) -> None:
        self.layer = layer
        self.relay = Relay(layer.redis_url, deliver=layer.deliver, origin=layer.process)
        self.serving = False  # a loop with channels of its own (a server's, a test's)
        self.relay.on_lost = self._lost
        self._unheard: set[str] = set()  # groups whose subscription failed
        self._retrying: asyncio.Task[None] | None = None
        self._process_heard = False
        self._forgetting: set[asyncio.Task[None]] = set()

    @property
    def heard(self) -> bool:
        """Whether every subscription Redis failed on this loop was made again."""
        return not self._unheard and (self._retrying is None or self._retrying.done())

    async def hear_process(self) -> None:
        """Hear what other processes send to this one's channels (a turn's stop)."""
        if not self._process_heard:
            self._process_heard = await self.relay.subscribe(process_channel(self.layer.process))

    async def hear_group(self, group: str) -> None:
        if not await self.relay.subscribe(group_channel(group)):
            self._retry({group})

    async def forget_group(self, group: str) -> None:
        await self.relay.unsubscribe(
            group_channel(group), wanted=lambda: group in self.layer.groups
        )

    def forget_soon(self, groups: list[str]) -> None:
        """Stop hearing `groups` (left by a channel that ended), in the background."""
        task = asyncio.get_running_loop().create_task(self._forget(groups))
        self._forgetting.add(task)
        task.add_done_callback(self._forgetting.discard)

    async def _forget(self, groups: list[str]) -> None:
        for group in groups:
            await self.forget_group(group)

    async def aclose(self) -> None:
        for task in list(self._forgetting):
            task.cancel()
        if self._retrying is not None:
            self._retrying.cancel()
        await self.relay.drain()
        await self.relay.aclose()

    def _lost(self) -> None:
        """The subscription broke: every group with a member here, again, and this
        process's own channels."""
        self._process_heard = False
        self._retry(set(self.layer.groups))

    def _retry(self, groups: set[str]) -> None:
        """Subscribe to `groups` again until Redis takes them (waiting longer each
        time), then have their members read what they missed meanwhile."""
        self._unheard |= groups
        if (self._unheard or not self._process_heard) and (
            self._retrying is None or self._retrying.done()
        ):
            self._retrying = asyncio.get_running_loop().create_task(self._subscribe_again())

    async def _subscribe_again(self) -> None:
        backoff = Backoff(first=RETRY_FIRST, most=RETRY_MOST)
        while self._unheard or not self._process_heard:
            await asyncio.sleep(backoff.next())
            if await self._try_unheard():
                backoff.reset()

    async def _try_unheard(self) -> bool:
        """Subscribe again to what is not heard, until Redis refuses one; whether it
        took any (it answers again: a refusal after is a new outage)."""
        took = False
        if not self._process_heard:
            await self.hear_process()
            took = self._process_heard
        for group in list(self._unheard):
            if group not in self.layer.groups:
                self._unheard.discard(group)
            elif await self.relay.subscribe(group_channel(group)):
                self._unheard.discard(group)
                self._resync(group)
                took = True
            else:
                break  # still down: wait longer
        return took

    def _resync(self, group: str) -> None:
        for prefix, message in RESYNCS.items():
            if group.startswith(prefix):
                self.layer.deliver(("group", group), {**message, "group": group})


@dataclass(frozen=True, eq=False)
class Addressed:
    """A channel of this process as something to feed (the watchdog's tabs). Known
    by identity: a tab makes one and the watchdog keys it on every batch the tab
    shows, where hashing the layer and the name was a busy server's 1%."""

    layer: LiveLayer
    channel: str

    def feed(self, message: Mapping[str, Any]) -> None:
        self.layer.deliver(("channel", self.channel), dict(message))


def _process_of(channel: str) -> str | None:
    """The process whose channel it is ("specific.<process>!<id>"), or None for a
    name no process made (served here, as Channels' in-memory layer does)."""
    head, bang, _ = channel.partition("!")
    if not bang:
        return None
    return head.rpartition(".")[2]


async def close_layer() -> None:
    """Let go of the layer's Redis connections on the running loop, once what it
    sent is written (a command's end, a server's shutdown, a test's end)."""
    from channels.layers import get_channel_layer  # noqa: PLC0415 (settings read at call time)

    layer = get_channel_layer()
    if isinstance(layer, LiveLayer):
        await layer.close()
