"""A received pack's bound: what it would inflate to, counted from the entries'
own headers before any is kept in memory. A pack is compressed: twenty MiB of
body could declare gigabytes; dulwich holds each entry whole, to the size it
declares. A delta entry declares only the size of its instructions: what it
builds is the target size written at the start of those instructions (a copy of
64 KiB costs a few bytes), so that is what is counted for it."""

from __future__ import annotations

import zlib

from common.sizes import human_size

_PIECE = 64 * 1024
MAX_OBJECTS = 200_000
_OFS_DELTA = 6
_REF_DELTA = 7
# A delta's two leading sizes (base, then target) as varints: 10 bytes each at
# most for any size that fits in 64 bits.
_DELTA_HEAD = 20


def pack_problem(data: bytes, *, limit: int, object_limit: int) -> str | None:
    """Why the pack `data` is refused (its objects inflate past `limit` bytes, one
    of them past `object_limit`, or there are too many); None when it is within
    bounds (or is no pack at all: dulwich says so)."""
    if data[:4] != b"PACK" or len(data) < 12:
        return None
    count = int.from_bytes(data[8:12], "big")
    if count > MAX_OBJECTS:
        return f"the push holds {count} objects; at most {MAX_OBJECTS} are taken."
    position, total = 12, 0
    try:
        for _ in range(count):
            position, kind, size = _header(data, position)
            delta = kind in (_OFS_DELTA, _REF_DELTA)
            total += size  # the entry itself, held whole (a delta's instructions too)
            built = 0 if delta else size
            if total > limit or built > object_limit:
                break
            position, head = _skipped(data, position, size)
            if delta:
                built = _delta_target(head)
                total += built  # the object the delta builds
                if total > limit or built > object_limit:
                    break
        else:
            return None
    except (IndexError, zlib.error, ValueError):
        return None  # a broken pack: dulwich's reading of it says what is wrong
    if total > limit:
        return f"the push would unpack to more than {human_size(limit)}."
    return (
        f"one object of the push would unpack to more than {human_size(object_limit)}, "
        "past the largest file a project may hold."
    )


def _header(data: bytes, position: int) -> tuple[int, int, int]:
    byte = data[position]
    position += 1
    kind, size, shift = (byte >> 4) & 7, byte & 0x0F, 4
    while byte & 0x80:
        byte = data[position]
        position += 1
        size |= (byte & 0x7F) << shift
        shift += 7
    if kind == _OFS_DELTA:
        byte = data[position]
        position += 1
        while byte & 0x80:
            byte = data[position]
            position += 1
    elif kind == _REF_DELTA:
        position += 20
    return position, kind, size


def _delta_target(head: bytes) -> int:
    """The target size of a delta whose inflated data begins with `head`: the
    second of its two leading little-endian varints (the first is the base's)."""
    position = 0
    for _ in range(2):
        value, shift = 0, 0
        while True:
            byte = head[position]  # IndexError: a delta too short for its sizes
            position += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
    return value


def _skipped(data: bytes, position: int, size: int) -> tuple[int, bytes]:
    """Where the zlib stream at `position` ends, and the first bytes it inflates
    to; it may inflate to `size` bytes at most (the rest of what it yields is
    counted, never kept)."""
    stream = zlib.decompressobj()
    produced = 0
    head = b""
    while not stream.eof:
        piece = stream.unconsumed_tail
        if not piece:
            piece = data[position : position + _PIECE]
            position += len(piece)
            if not piece:
                raise ValueError("truncated")
        out = stream.decompress(piece, _PIECE)
        if len(head) < _DELTA_HEAD:
            head += out[: _DELTA_HEAD - len(head)]
        produced += len(out)
        if produced > size:
            raise ValueError("inflates past its declared size")
    return position - len(stream.unused_data), head
