"""Who has a project open now (issue 45): a registry of the project's chat
sockets, each with its person, their name and role and the file open in its
editor, and the changed list sent to every tab of the project through its
group on the channel layer (chat.live.consumers: `presence.changed`).

Without Redis it is this process's own registry. With Redis each project has a
sorted set, `builtit:presence:<project>`, with a member per socket scored with
the time it lapses, and a hash beside it with what each member is. They lapse
as the socket counts' places do (chat.live.socket_counts.Lapsing: this process
renews all its members in one script every RENEW seconds), so a dead process's
people drop out within LAPSE. The process keeps its own entries too, and the
renewal puts back any Redis lost (a restart, an outage longer than LAPSE),
then sends the project the list with them. Each change is one script: it writes, drops what
lapsed, and returns the list and a version (never lower than the last one), so
a tab that gets two lists out of order keeps the newer. After each renewal the
process sweeps its projects (one pipeline): where a dead process's people
lapsed, the project's tabs are sent the list without them. Presence is a help, not
a rule: if Redis cannot be reached, no list is sent and nothing else fails.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
import uuid
import weakref
from dataclasses import asdict, dataclass
from typing import Protocol

from channels.layers import get_channel_layer
from django.conf import settings
from redis.asyncio import Redis
from redis.exceptions import RedisError

from chat.live import messages
from chat.live.socket_counts import LAPSE, RENEW, Lapsing
from chat.live.turns import group_name

logger = logging.getLogger(__name__)

NAME_CHARS = 60  # a name longer than this is cut (with "…")
PATH_CHARS = 300  # an open file's path longer than this is not shown
LISTED = 20  # people a list carries at most (each tab then shows a few and "and N more")


@dataclass(frozen=True)
class Here:
    """One socket on a project: whose, and the file open in its editor ("" none)."""

    user: int
    name: str
    role: str
    path: str = ""
    at: float = 0.0  # when the socket opened or changed its file: a person's latest tab wins


@dataclass(frozen=True)
class Seat:
    """One socket's entry in its project's registry."""

    project: uuid.UUID
    member: str


def here_of(*, user: int, name: str, role: str, path: str = "") -> Here:
    """An entry, bounded: a long name cut, a long path left out."""
    name = name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"
    return Here(user, name, role, path if len(path) <= PATH_CHARS else "", time.time())


def people_of(entries: list[Here]) -> tuple[list[messages.Person], int]:
    """Each person once (their latest tab's file), by name, at most LISTED; and
    how many people there are in all."""
    latest: dict[int, Here] = {}
    for entry in entries:
        kept = latest.get(entry.user)
        if kept is None or entry.at >= kept.at:
            latest[entry.user] = entry
    ordered = sorted(latest.values(), key=lambda entry: (entry.name.casefold(), entry.user))
    listed: list[messages.Person] = [
        {"user": entry.user, "name": entry.name, "role": entry.role, "path": entry.path}
        for entry in ordered[:LISTED]
    ]
    return listed, len(latest)


class Registry(Protocol):
    async def join(self, project: uuid.UUID, here: Here) -> tuple[Seat, list[Here], int]:
        """The socket's seat, and the project's entries and version after it."""
        ...

    async def change(self, seat: Seat, here: Here | None) -> tuple[list[Here], int] | None:
        """The socket's entry changed (None: it left); the entries and version
        after, or None when they could not be read."""
        ...

    async def aclose(self) -> None: ...


class LocalRegistry:
    """This process's sockets, by project."""

    def __init__(self) -> None:
        self._entries: dict[uuid.UUID, dict[str, Here]] = {}
        self._serial = itertools.count(1)
        self._version = 0

    async def join(self, project: uuid.UUID, here: Here) -> tuple[Seat, list[Here], int]:
        seat = Seat(project, str(next(self._serial)))
        found = await self.change(seat, here)
        assert found is not None
        return seat, *found

    async def change(self, seat: Seat, here: Here | None) -> tuple[list[Here], int] | None:
        entries = self._entries.setdefault(seat.project, {})
        if here is None:
            entries.pop(seat.member, None)
        else:
            entries[seat.member] = here
        if not entries:
            del self._entries[seat.project]
        self._version += 1
        return list(entries.values()), self._version

    async def aclose(self) -> None:
        self._entries.clear()


# The two scripts' shared parts. KEYS: the project's set, its hash, its
# version; ARGV[1]: the lapse. First the members that lapsed (`gone`) ...
_LAPSED = """
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local lapse = tonumber(ARGV[1])
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
"""
# ... dropped, with what they were ...
_DROP_LAPSED = """
for _, member in ipairs(gone) do redis.call('HDEL', KEYS[2], member) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
"""
# ... and at the end a new version (never lower than the last), returned with
# the members' JSON.
_LISTED = """
local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
-- As digits (Lua would write a number this large as 1.7e+15).
local last = tonumber(redis.call('GET', KEYS[3]) or '0')
local version = string.format('%.0f', math.max(micros, last + 1))
redis.call('SET', KEYS[3], version, 'EX', math.ceil(lapse))
local found = {version}
for _, about in ipairs(redis.call('HVALS', KEYS[2])) do table.insert(found, about) end
return found
"""

# A socket's entry changed. ARGV: the lapse, the member, what it is (JSON; ""
# when it left). Returns the version, then the members' JSON.
_CHANGE = (
    _LAPSED
    + _DROP_LAPSED
    + """
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[2])
  redis.call('HDEL', KEYS[2], ARGV[2])
else
  redis.call('ZADD', KEYS[1], now + lapse, ARGV[2])
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
end
for k = 1, 2 do redis.call('EXPIRE', KEYS[k], math.ceil(lapse)) end
"""
    + _LISTED
)

# After a renewal. ARGV: the lapse, and '1' when the renewal put back an entry
# Redis had lost. Drops what lapsed; only if something did, or with '1',
# returns the version and the members' JSON, as _CHANGE does.
_SWEEP = (
    _LAPSED
    + """
if #gone == 0 and ARGV[2] ~= '1' then return {} end
"""
    + _DROP_LAPSED
    + _LISTED
)


def key_of(project: uuid.UUID) -> str:
    return f"builtit:presence:{project.hex}"


def _companions(key: str) -> list[str]:
    return [f"{key}:about", f"{key}:version"]


class RedisRegistry:
    """Every process's sockets, by project, in Redis."""

    def __init__(self, url: str, *, lapse: float = LAPSE, renew: float = RENEW) -> None:
        self._redis = Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
        self._change = self._redis.register_script(_CHANGE)
        self._sweep = self._redis.register_script(_SWEEP)
        self._seats = Lapsing(
            self._redis,
            lapse=lapse,
            every=renew,
            companions=_companions,
            details=lambda key: _companions(key)[0],
            what="presence",
            after=self._swept,
        )
        self._origin = uuid.uuid4().hex  # this process, in its members' names
        self._serial = itertools.count()

    async def join(self, project: uuid.UUID, here: Here) -> tuple[Seat, list[Here], int]:
        seat = Seat(project, f"{self._origin}:{next(self._serial)}")
        found = await self.change(seat, here)
        return (seat, *found) if found is not None else (seat, [here], 0)

    async def change(self, seat: Seat, here: Here | None) -> tuple[list[Here], int] | None:
        key = key_of(seat.project)
        about = "" if here is None else json.dumps(asdict(here), ensure_ascii=False)
        if here is None:
            self._seats.drop(key, seat.member)
        else:
            # Kept here too: the renewal puts it back if Redis loses it.
            self._seats.hold(key, seat.member, about)
        try:
            found = await self._change(
                keys=[key, *_companions(key)], args=[self._seats.lapse, seat.member, about]
            )
        except (RedisError, OSError) as error:
            logger.warning("Presence not shared: Redis said %s", error)
            return None
        version, *entries = found
        return [_entry(raw) for raw in entries], int(version)

    async def renew(self) -> None:
        """This process's entries renewed (and put back where Redis lost them),
        then `_swept`; every RENEW seconds, on its own."""
        await self._seats.renew()

    async def _swept(self, restored: set[str]) -> None:
        """After each renewal: in the projects this process has tabs on, the
        people of a process that died lapsed; their tabs are sent the list
        without them (by whichever process saw it first: one list each). Where
        the renewal put back entries Redis had lost (`restored`), the list with
        them, since the tabs may have been sent one without them meanwhile."""
        keys = self._seats.keys()
        if not keys:
            return
        async with self._redis.pipeline(transaction=False) as pipe:
            for key in keys:
                again = "1" if key in restored else "0"
                await self._sweep(
                    keys=[key, *_companions(key)], args=[self._seats.lapse, again], client=pipe
                )
            found = await pipe.execute()
        layer = get_channel_layer()
        for key, result in zip(keys, found, strict=True):
            if result and layer is not None:
                version, *entries = result
                project = uuid.UUID(key.rsplit(":", 1)[1])
                message = changed([_entry(raw) for raw in entries], int(version))
                await layer.group_send(group_name(project), message)

    async def aclose(self) -> None:
        await self._seats.aclose()
        await self._redis.aclose()


def _entry(raw: bytes | str) -> Here:
    return Here(**json.loads(raw))


_REGISTRIES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Registry] = (
    weakref.WeakKeyDictionary()
)


def registry() -> Registry:
    """The running event loop's registry (daphne runs one loop; each test has its own)."""
    loop = asyncio.get_running_loop()
    found = _REGISTRIES.get(loop)
    if found is None:
        url = settings.BUILTIT_LIVE_REDIS_URL
        lapse = settings.BUILTIT_PRESENCE_LAPSE
        found = _REGISTRIES[loop] = (
            RedisRegistry(url, lapse=lapse, renew=lapse / 3) if url else LocalRegistry()
        )
    return found


def changed(entries: list[Here], version: int) -> messages.PresenceChanged:
    """The message that carries the project's people to each of its tabs."""
    people, total = people_of(entries)
    return {"type": "presence.changed", "version": version, "people": people, "total": total}


async def close_registry() -> None:
    """Close the running loop's registry, if it has one."""
    found = _REGISTRIES.pop(asyncio.get_running_loop(), None)
    if found is not None:
        await found.aclose()
