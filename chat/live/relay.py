"""The channel layer's way between server processes, through Redis (DESIGN §7).

With REDIS_URL set, what a process sends to a group or to another process's
channel (chat.live.layer) goes out in one pipelined round trip per flush:
- published on the group's Redis channel `builtit:group:<group>`, to which each
  process with a member of the group holds one subscription (one connection per
  process for all its groups), or on the process's own `builtit:process:<id>`
  for a channel of that process (a turn's stop, sent from any process);
- a turn's events (`turn.events`) are also appended to the turn's log, a Redis
  stream `builtit:turn:<key>` whose entry ids are the batch's last sequence
  number, so a tab that joins late or comes back reads "its last number → now"
  (`since`); the log lapses LOG_TTL after its last renewal (every RENEW_EVERY
  events), and soon after the turn's `done`. The batch is published only where
  another process listens to the group, or when it holds the turn's end
  (chat.live.listeners): most tabs follow a turn on its own process.

The log is written before the publication, in one script Redis runs at once,
and a tab's process joins the group's listeners, then subscribes (and waits
for Redis to confirm it) before the tab reads the log: a batch is then either
in what it reads or in what it hears after, never in neither.
Batches of one turn waiting for the same flush go as one, their text merged
(chat.live.numbering.merged_json), so a busy process makes fewer, larger
messages and an idle one sends each at once; any other message keeps its place.

Without Redis the process is alone, and the layer serves its channels itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Callable, Mapping
from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from chat.live import messages
from chat.live.listeners import listeners_of, log_and_publish
from chat.live.numbering import merged_json
from common.jsontypes import decoded_object

logger = logging.getLogger(__name__)

LOG_TTL = 3600  # seconds a turn's log outlives its last write (a turn's own bounds end it first)
RENEW_EVERY = 50  # events between two renewals of a log's expiry
ENDED_TTL = 60  # seconds after `done`: tabs that come later read the stored messages instead
MAX_LOG_ENTRIES = 100_000  # a bound on what one read takes in
SUBSCRIBE_WAIT = 5.0  # seconds a joining tab waits for Redis to confirm its subscription
DOWN_WAIT = 5.0  # seconds after a failed subscription before tabs try again

_ORIGIN = 32  # characters of a publication's sender (a hex uuid), before its body
_GROUP = "builtit:group:"
_PROCESS = "builtit:process:"

Message = dict[str, Any]
# Where a message goes: ("group", name) or ("channel", name) of the process `to`.
Target = tuple[str, str]
Deliver = Callable[[Target, Message], None]
Encoded = tuple[str, Target, Message, str]  # Redis channel, target, message, its JSON


def group_channel(group: str) -> str:
    return _GROUP + group


def process_channel(process: str) -> str:
    return _PROCESS + process


def log_of(turn: str) -> str:
    return f"builtit:turn:{turn}"


class Relay:
    """One process's connection to the other processes, on one event loop."""

    def __init__(self, url: str, *, deliver: Deliver, origin: str = "") -> None:
        self._redis = Redis.from_url(url, socket_timeout=10, socket_connect_timeout=2)
        self._deliver = deliver
        # The process's publications come back: skipped (32 hex characters).
        self.origin = origin or uuid.uuid4().hex
        self._origin_bytes = self.origin.encode()
        # This relay in the sets of the groups it hears (chat.live.listeners): one
        # per event loop, as each loop subscribes on its own.
        self.listener = uuid.uuid4().hex
        self._outbox: list[tuple[str, Target, Message]] = []  # Redis channel, target, message
        self._flushing: asyncio.Task[None] | None = None
        # Done once the flush under way, or the next one (it takes what waits in
        # the outbox), has written its messages or failed.
        self._writing: asyncio.Future[None] | None = None
        self._next: asyncio.Future[None] | None = None
        self._pubsub: PubSub | None = None
        self._listening: asyncio.Task[None] | None = None
        self._confirmed: dict[str, asyncio.Future[bool]] = {}  # True: confirmed; False: lost
        self._commands = asyncio.Lock()
        self._down_until = 0.0  # loop time until which a subscription is not tried
        self.on_lost: Callable[[], None] = lambda: None

    # --- what this process sends ---------------------------------------------------------

    def publish(self, channel: str, target: Target, message: Mapping[str, Any]) -> None:
        """Queue `message` for the next flush (at once when none is under way)."""
        self._outbox.append((channel, target, cast("Message", message)))
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush())

    async def drain(self) -> None:
        """Until the messages queued so far have been written (or failed). What is
        queued meanwhile goes in later flushes and is not waited for: on a busy
        process flushes follow one another for as long as turns send, and a turn's
        end waits only for its own."""
        flushing = self._flushing
        if flushing is None or flushing.done():
            return
        if self._outbox:
            if self._next is None:
                self._next = asyncio.get_running_loop().create_future()
            written = self._next
        elif self._writing is not None:
            written = self._writing
        else:
            return
        # The flush task may also end without writing (cancelled as the relay closes).
        await asyncio.wait({written, flushing}, return_when=asyncio.FIRST_COMPLETED)

    async def _flush(self) -> None:
        while self._outbox:
            waiting, self._outbox = self._outbox, []
            written = self._writing = self._next or asyncio.get_running_loop().create_future()
            self._next = None
            try:
                await self._send(encoded(batches(waiting)))
            finally:
                written.set_result(None)
                self._writing = None

    async def _send(self, sending: list[Encoded]) -> None:
        try:
            try:
                await self._write(sending)
            except (RedisConnectionError, OSError):
                # Once more, on a new connection: after Redis restarted, the
                # pool's first one is stale, and the turn's log would have a hole.
                await self._write(sending)
        except (RedisError, OSError) as error:
            # Tabs of other processes miss these; each catches up from the
            # stored messages when the turn ends (its watchdog sees the lock go).
            logger.warning("Could not relay messages through Redis: %s", error)

    async def _write(self, sending: list[Encoded]) -> None:
        pipe = self._redis.pipeline(transaction=False)
        for channel, target, message, body in sending:
            to = json.dumps(list(target), ensure_ascii=False, separators=(",", ":"))
            # The sender first, in a fixed width: a process skips its own
            # publications without decoding them.
            head = f'{self.origin}{{"to":{to},"message":'
            if message.get("type") == "turn.events":
                # Logged, and published only where another process listens.
                events = cast("messages.TurnEvents", message)["events"]
                log_and_publish(
                    pipe,
                    log=log_of(message["turn"]),
                    entry=f"{events[-1]['seq']}-0",
                    body=body,
                    expiry=_log_expiry(events, message.get("first", events[0]["seq"])),
                    channel=channel,
                    head=head,
                    sender=self.listener,
                    # A turn's end crosses whoever listens; so does what goes to
                    # one channel of a process (no set lists who hears it).
                    always=_ended(events) or not channel.startswith(_GROUP),
                )
            else:
                pipe.publish(channel, f"{head}{body}}}")
        await pipe.execute(raise_on_error=False)

    async def since(self, turn: str, after: int) -> list[messages.NumberedEvent] | None:
        """The turn's events numbered after `after`, in order; None if the log
        cannot be read (Redis down, or the turn logged nothing yet is [])."""
        try:
            entries = await self._redis.xrange(
                log_of(turn), min=f"{after + 1}-0", count=MAX_LOG_ENTRIES
            )
        except (RedisError, OSError) as error:
            logger.warning("Could not read turn %s's log from Redis: %s", turn, error)
            return None
        found: list[messages.NumberedEvent] = []
        for _id, fields in entries or []:
            if not fields:
                continue
            message = turn_events(decoded_object(fields.get(b"m", b"")))
            if message is None:
                continue  # not a batch of ours (a hand-made entry): the others still are
            found += [item for item in message["events"] if item["seq"] > after]
        return found

    # --- what this process hears -------------------------------------------------------

    async def subscribe(self, channel: str) -> bool:
        """Hear `channel`; False if Redis did not confirm the subscription in time.
        Commands go out one at a time, so a subscription asked for just after the
        last member of a group left is confirmed after that unsubscription."""
        if asyncio.get_running_loop().time() < self._down_until:
            return False  # Redis failed a moment ago: nobody waits for it again (the layer retries)
        async with self._commands:
            confirmed = self._confirmed.get(channel)
            if confirmed is None:
                confirmed = self._confirmed[channel] = asyncio.get_running_loop().create_future()
                try:
                    if channel.startswith(_GROUP):
                        # Before subscribing: from here on, senders publish the
                        # group's batches (what they logged before, the tab reads).
                        await self._redis.sadd(listeners_of(channel), self.listener)
                    if self._pubsub is None:
                        self._pubsub = self._redis.pubsub()
                    await self._pubsub.subscribe(channel)
                    # Listening starts once the connection exists (subscribe makes it).
                    if self._listening is None or self._listening.done():
                        self._listening = asyncio.get_running_loop().create_task(self._listen())
                except (RedisError, OSError) as error:
                    logger.warning("Could not subscribe to %s: %s", channel, error)
                    self._confirmed.pop(channel, None)
                    self._down_until = asyncio.get_running_loop().time() + DOWN_WAIT
                    return False
        try:
            async with asyncio.timeout(SUBSCRIBE_WAIT):
                heard = await asyncio.shield(confirmed)
        except TimeoutError:
            heard = False
        if not heard:
            logger.warning("Redis did not confirm the subscription to %s", channel)
        return heard

    async def unsubscribe(self, channel: str, *, wanted: Callable[[], bool]) -> None:
        """Stop hearing `channel`, unless `wanted()` says a member joined meanwhile."""
        async with self._commands:
            if wanted():
                return
            heard = self._confirmed.pop(channel, None) is not None
            with contextlib.suppress(RedisError, OSError):
                if heard and self._pubsub is not None:
                    await self._pubsub.unsubscribe(channel)
                if channel.startswith(_GROUP):
                    # After: while it was in the set, it was still subscribed.
                    await self._redis.srem(listeners_of(channel), self.listener)

    async def _listen(self) -> None:
        pubsub = self._pubsub
        assert pubsub is not None
        while True:
            try:
                message = await pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                logger.warning("Lost the Redis subscription of the channel layer: %s", error)
                await self._lost()
                self.on_lost()  # the layer subscribes again, and its tabs catch up
                return
            if message is not None:
                self._heard(message)
            if not self._confirmed:
                return  # nothing to hear: the next subscription starts again

    def _heard(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        channel = _text(message.get("channel"))
        if kind == "subscribe":
            confirmed = self._confirmed.get(channel)
            if confirmed is not None and not confirmed.done():
                confirmed.set_result(True)
            return
        if kind != "message":
            return
        data = message["data"]
        if not isinstance(data, bytes) or data[:_ORIGIN] == self._origin_bytes:
            return  # this process's own: its channels had it already
        heard = _envelope(decoded_object(data[_ORIGIN:]))
        if heard is None:
            # Not ours (a hand-made PUBLISH, another build's format): the others still are.
            logger.warning("Ignored a publication on %s that is not the layer's", channel)
            return
        self._deliver(*heard)

    async def _lost(self) -> None:
        """The subscription broke: forget it; members joining from now subscribe again
        (with a listener of their own: this one is ending)."""
        pubsub, self._pubsub = self._pubsub, None
        self._listening = None
        for confirmed in self._confirmed.values():
            if not confirmed.done():
                confirmed.set_result(False)
        self._confirmed.clear()
        if pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def aclose(self) -> None:
        for task in (self._listening, self._flushing):
            if task is not None:
                task.cancel()
        groups = [channel for channel in self._confirmed if channel.startswith(_GROUP)]
        await self._lost()
        if groups:
            # Out of the groups' listeners, or their batches go on being published
            # (for nobody: a process that dies leaves its entries behind too).
            with contextlib.suppress(RedisError, OSError):
                pipe = self._redis.pipeline(transaction=False)
                for channel in groups:
                    pipe.srem(listeners_of(channel), self.listener)
                await pipe.execute()
        with contextlib.suppress(RedisError, OSError):
            await self._redis.aclose()


def batches(waiting: list[tuple[str, Target, Message]]) -> list[tuple[str, Target, Message]]:
    """What waits, in order, but each run of turns' events as one message per turn
    (in the order the turns first appear in the run), each turn's events in order
    with adjacent text merged. Any other message ends a run and keeps its place."""
    out: list[tuple[str, Target, Message]] = []
    run: dict[str, tuple[str, Target, Message]] = {}

    def end_run() -> None:
        out.extend(
            (channel, target, {**message, "events": merged_json(message["events"])})
            for channel, target, message in run.values()
        )
        run.clear()

    for channel, target, message in waiting:
        if message.get("type") != "turn.events":
            end_run()
            out.append((channel, target, message))
            continue
        key = f"{channel} {message['turn']}"
        held = run.get(key)
        if held is None:
            run[key] = (channel, target, {**message, "events": list(message["events"])})
        else:
            held[2]["events"].extend(message["events"])
    end_run()
    return out


def encoded(sending: list[tuple[str, Target, Message]]) -> list[Encoded]:
    """Each message with its JSON, encoded once for the log and the publication.
    One that cannot be encoded (a sender's bug) is left out with a warning: the
    others of its flush still go."""
    out: list[Encoded] = []
    for channel, target, message in sending:
        try:
            body = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError) as error:
            logger.warning(
                "Could not relay a %s message on %s: %s", message.get("type"), channel, error
            )
            continue
        out.append((channel, target, message, body))
    return out


def _log_expiry(events: list[messages.NumberedEvent], first: int) -> int:
    """The turn's log's new expiry in seconds once these events are in it (0:
    left as it is): soon after the turn's end, else renewed now and then."""
    if _ended(events):
        return ENDED_TTL
    return LOG_TTL if _renews(first, events[-1]["seq"]) else 0


def _ended(events: list[messages.NumberedEvent]) -> bool:
    return any(item["event"].get("type") == "done" for item in events)


def _renews(first: int, last: int) -> bool:
    """Whether a batch of events `first`..`last` sets its log's expiry: the first
    batch, and one every RENEW_EVERY events (a command fewer per batch, and a log
    Redis lost mid-turn gets its expiry again soon)."""
    return first == 1 or (first - 1) // RENEW_EVERY != last // RENEW_EVERY


def _envelope(sent: object) -> tuple[Target, Message] | None:
    """Where a publication goes and what it is, if it has the layer's shape."""
    if not isinstance(sent, dict):
        return None
    to, message = sent.get("to"), sent.get("message")
    if (
        not isinstance(to, list)
        or len(to) != 2
        or to[0] not in ("group", "channel")
        or not isinstance(to[1], str)
        or not isinstance(message, dict)
        or not isinstance(message.get("type"), str)
    ):
        return None
    if message["type"] == "turn.events" and turn_events(message) is None:
        return None
    return (to[0], to[1]), message


def turn_events(sent: object) -> messages.TurnEvents | None:
    """`sent` if it has the shape of a turn's events (chat.live.messages)."""
    if not isinstance(sent, dict) or sent.get("type") != "turn.events":
        return None
    events = sent.get("events")
    if not isinstance(sent.get("turn"), str) or not isinstance(events, list) or not events:
        return None
    if not all(
        isinstance(item, dict)
        and isinstance(item.get("seq"), int)
        and isinstance(item.get("event"), dict)
        for item in events
    ):
        return None
    return cast("messages.TurnEvents", sent)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
