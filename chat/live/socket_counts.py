"""How many chat sockets each address holds: in this process, or, with Redis,
in every process of the deployment (chat.live.socket_limit bounds them).

With Redis each address has a sorted set, `builtit:sockets:<address>`, with a
member per socket scored with the time its place lapses (Redis's own clock,
so the servers' clocks need not agree). A process renews its own sockets'
places every `renew` seconds; those of a process that died are not renewed
and lapse within `lapse` seconds, and counting an address first drops what
has lapsed. Taking a place is one script, counting and adding at once, so two
processes cannot both take the last one. If Redis cannot be reached, this
process's own count bounds the address meanwhile, and its places are written
at the next renewal.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings
from redis.asyncio import Redis
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

LAPSE = 90.0  # seconds a place outlives its last renewal (its process's death)
RENEW = 30.0  # seconds between two renewals of a process's places

# KEYS[1]: the address's set. ARGV: the limit, the lapse, the socket's member.
_TAKE = """
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])))
return 1
"""
# KEYS: the sets, then for each set the hash of what its members are (when
# `details`; chat.live.presence), then keys that only live as long as the sets.
# ARGV: the lapse, the number of sets, whether there are hashes, then for each
# set its number of members and, for each, the member and what it is. Returns
# the numbers of the sets (from 1) whose hash lacked a member (Redis lost it:
# a restart, an outage longer than the lapse), each put back.
_RENEW = """
local time = redis.call('TIME')
local lapses = tonumber(time[1]) + tonumber(time[2]) / 1000000 + tonumber(ARGV[1])
local sets = tonumber(ARGV[2])
local details = ARGV[3] == '1'
local restored = {}
local at = 4
for k = 1, sets do
  local count = tonumber(ARGV[at])
  local lost = false
  for i = 1, count do
    local member = ARGV[at + 2 * i - 1]
    redis.call('ZADD', KEYS[k], lapses, member)
    if details and redis.call('HSETNX', KEYS[sets + k], member, ARGV[at + 2 * i]) == 1 then
      lost = true
    end
  end
  if lost then table.insert(restored, k) end
  at = at + 2 * count + 1
end
for k = 1, #KEYS do redis.call('EXPIRE', KEYS[k], math.ceil(tonumber(ARGV[1]))) end
return restored
"""


class Lapsing:
    """This process's members of Redis sorted sets, each scored with the time it
    lapses (Redis's clock), all renewed in one script every `every` seconds
    while it holds any: one timer per process, never one per socket. The sets'
    `companions` (keys that live as long as a set) have their lifetime renewed
    with them. With `details` (a set's hash of what each member is), each
    member's is kept here too and put back by the renewal where Redis lost it,
    and `after` hears which sets had one put back. Shared by the socket counts
    and the project's presence (chat.live.presence), so the rule of lapsing
    lives here only."""

    def __init__(
        self,
        redis: Redis,
        *,
        lapse: float,
        every: float,
        companions: Callable[[str], list[str]] = lambda key: [],
        details: Callable[[str], str] | None = None,
        what: str = "chat sockets' places",
        after: Callable[[set[str]], Awaitable[None]] | None = None,
    ) -> None:
        self._redis, self.lapse, self._every = redis, lapse, every
        self._script = redis.register_script(_RENEW)
        self._companions, self._details = companions, details
        self._what, self._after = what, after
        self._held: dict[str, dict[str, str]] = {}  # by set's key: each member's details
        self._renewing: asyncio.Task[None] | None = None

    def held(self, key: str) -> set[str]:
        return set(self._held.get(key, {}))

    def keys(self) -> list[str]:
        """The sets this process holds members of."""
        return list(self._held)

    def hold(self, key: str, member: str, about: str = "") -> None:
        """Hold `member` of `key` (what it is now: `about`, with `details`)."""
        self._held.setdefault(key, {})[member] = about
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.get_running_loop().create_task(self._renew_all())

    def drop(self, key: str, member: str) -> None:
        # At once: a member renewed no more lapses even if its removal from
        # Redis never comes (a cancellation, Redis down).
        mine = self._held.get(key, {})
        mine.pop(member, None)
        if not mine:
            self._held.pop(key, None)

    async def renew(self) -> None:
        """Every member this process holds, renewed for another `lapse` seconds
        (and what it is, where Redis lost that); then `after`."""
        held = {key: dict(members) for key, members in self._held.items() if members}
        if held:
            args: list[str | float | int] = [self.lapse, len(held), int(self._details is not None)]
            for members in held.values():
                args.append(len(members))
                for member, about in sorted(members.items()):
                    args += [member, about]
            keys = list(held)
            hashes = [self._details(key) for key in keys] if self._details is not None else []
            companions = [extra for key in keys for extra in self._companions(key)]
            found = await self._script(keys=[*keys, *hashes, *companions], args=args)
            restored = {keys[int(k) - 1] for k in found}
        else:
            restored = set()
        if self._after is not None:
            await self._after(restored)

    async def _renew_all(self) -> None:
        while self._held:
            await asyncio.sleep(self._every)
            try:
                await self.renew()
            except (RedisError, OSError) as error:
                logger.warning("Could not renew the %s in Redis: %s", self._what, error)

    async def aclose(self) -> None:
        if self._renewing is not None:
            self._renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewing


@dataclass(frozen=True)
class Place:
    """One socket's place in its address's count."""

    address: str
    member: str


class SocketCounts(Protocol):
    async def take(self, address: str, limit: int) -> Place | None:
        """A place for one more socket of `address`; None when it holds `limit`."""
        ...

    async def give_back(self, place: Place) -> None: ...

    async def aclose(self) -> None: ...


class LocalCounts:
    """This process's sockets, by address."""

    def __init__(self) -> None:
        self._held: Counter[str] = Counter()

    async def take(self, address: str, limit: int) -> Place | None:
        if self._held[address] >= limit:
            return None
        self._held[address] += 1
        return Place(address, "")

    async def give_back(self, place: Place) -> None:
        self._held[place.address] -= 1
        if self._held[place.address] <= 0:
            del self._held[place.address]

    async def aclose(self) -> None:
        self._held.clear()


def key_of(address: str) -> str:
    return f"builtit:sockets:{address}"


class RedisCounts:
    """Every process's sockets, by address, in Redis."""

    def __init__(self, url: str, *, lapse: float = LAPSE, renew: float = RENEW) -> None:
        self._redis = Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
        self._take = self._redis.register_script(_TAKE)
        self._places = Lapsing(self._redis, lapse=lapse, every=renew)
        self._origin = uuid.uuid4().hex  # this process, in its members' names
        self._serial = itertools.count()

    async def take(self, address: str, limit: int) -> Place | None:
        key = key_of(address)
        member = f"{self._origin}:{next(self._serial)}"
        try:
            taken = bool(await self._take(keys=[key], args=[limit, self._places.lapse, member]))
        except (RedisError, OSError) as error:
            logger.warning("Chat sockets counted in this process only: Redis said %s", error)
            taken = len(self._places.held(key)) < limit
        if not taken:
            return None
        self._places.hold(key, member)
        return Place(address, member)

    async def give_back(self, place: Place) -> None:
        self._places.drop(key_of(place.address), place.member)
        try:
            await self._redis.zrem(key_of(place.address), place.member)
        except (RedisError, OSError) as error:
            logger.warning("A chat socket's place stays in Redis until it lapses: %s", error)

    async def renew(self) -> None:
        """Every place this process holds, renewed for another `lapse` seconds."""
        await self._places.renew()

    async def aclose(self) -> None:
        await self._places.aclose()
        await self._redis.aclose()


_COUNTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SocketCounts] = (
    weakref.WeakKeyDictionary()
)


def socket_counts() -> SocketCounts:
    """The running event loop's counts (daphne runs one loop; each test has its own)."""
    loop = asyncio.get_running_loop()
    found = _COUNTS.get(loop)
    if found is None:
        url = settings.BUILTIT_LIVE_REDIS_URL
        found = _COUNTS[loop] = RedisCounts(url) if url else LocalCounts()
    return found


async def close_socket_counts() -> None:
    """Close the running loop's counts, if it has any."""
    found = _COUNTS.pop(asyncio.get_running_loop(), None)
    if found is not None:
        await found.aclose()
