"""A turn's batch published only where another process listens to its group
(chat.live.relay; DESIGN §7).

In the common case every tab follows a turn on the turn's own process, and
each publication was heard by nobody but its sender: its PUBLISH and its echo
were work for nothing (bench/README.md, "A turn's publications only where
another process listens").

Each relay adds itself to its group's set of listeners in Redis before it
subscribes to the group, and takes itself out once it has unsubscribed. A
turn's batch goes out as one script that Redis runs at once: append the batch
to the turn's log, then publish it unless the set holds no relay but the
sender's. Redis runs that script and a new listener's SADD one after the other,
never interleaved, so for a listener each batch is either

- logged before it joined the set: it subscribes after joining and reads the
  log once Redis confirmed the subscription, so it reads the batch there; or
- published after it joined: heard if the subscription had taken, else logged
  before the subscription and read there too.

No announcement, and nothing the sender must remember. The script also
publishes while the group's Redis channel has a subscriber besides the sender
that is in no set: a process of an earlier version (during a rolling deploy),
or one whose entry Redis lost (a FLUSHALL, an eviction). A turn's last batch
(its `done`) is published whatever the set says. A process that dies leaves its
entry behind: that group's batches are published again, as before this, and
nothing is lost; the entries go with Redis's data (a restart), after which each
listener adds itself again as it subscribes again.
"""

from __future__ import annotations

from typing import Any

# KEYS: the turn's log, the group's listeners. ARGV: the log entry's id, the
# batch's JSON, the log's new expiry in seconds (0: leave it), the Redis channel,
# what comes before the JSON in a publication, the sender's name in the set,
# "1" to publish whoever listens.
_LOG_AND_PUBLISH = """
redis.pcall('XADD', KEYS[1], ARGV[1], 'm', ARGV[2])
if ARGV[3] ~= '0' then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
local mine = redis.call('SISMEMBER', KEYS[2], ARGV[6])
if ARGV[7] == '1' or redis.call('SCARD', KEYS[2]) > mine
    or redis.call('PUBSUB', 'NUMSUB', ARGV[4])[2] > mine then
  return redis.call('PUBLISH', ARGV[4], ARGV[5] .. ARGV[2] .. '}')
end
return -1
"""


def listeners_of(channel: str) -> str:
    """The set of relays subscribed to a group's Redis channel."""
    return f"{channel}:listeners"


def log_and_publish(
    pipe: Any,
    *,
    log: str,
    entry: str,
    body: str,
    expiry: int,
    channel: str,
    head: str,
    sender: str,
    always: bool,
) -> None:
    """Queue on `pipe` a batch's append to its log and, where another relay
    listens to `channel` (or `always`), its publication `head` + `body` + "}".
    The log's append failing (an entry id not above the last) still publishes."""
    pipe.eval(
        _LOG_AND_PUBLISH,
        2,
        log,
        listeners_of(channel),
        entry,
        body,
        expiry,
        channel,
        head,
        sender,
        "1" if always else "0",
    )
