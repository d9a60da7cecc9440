"""A received pack's bound: what it would inflate to, counted from the entries'
own headers before any is kept in memory. A pack is compressed: twenty MiB of
body could declare gigabytes; dulwich holds each entry whole, to the size it
declares."""

from __future__ import annotations

import zlib

from common.sizes import human_size

_PIECE = 64 * 1024
MAX_OBJECTS = 200_000
_OFS_DELTA = 6
_REF_DELTA = 7


def pack_problem(data: bytes, *, limit: int) -> str | None:
    """Why the pack `data` is refused (its objects inflate past `limit` bytes, or
    there are too many); None when it is within bounds (or is no pack at all:
    dulwich says so)."""
    if data[:4] != b"PACK" or len(data) < 12:
        return None
    count = int.from_bytes(data[8:12], "big")
    if count > MAX_OBJECTS:
        return f"the push holds {count} objects; at most {MAX_OBJECTS} are taken."
    position, total = 12, 0
    try:
        for _ in range(count):
            position, size = _header(data, position)
            total += size
            if total > limit:
                return f"the push would unpack to more than {human_size(limit)}."
            position = _skipped(data, position, size)
    except (IndexError, zlib.error, ValueError):
        return None  # a broken pack: dulwich's reading of it says what is wrong
    return None


def _header(data: bytes, position: int) -> tuple[int, int]:
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
    return position, size


def _skipped(data: bytes, position: int, size: int) -> int:
    """Where the zlib stream at `position` ends; it may inflate to `size` bytes at
    most (what it yields is counted, never kept)."""
    stream = zlib.decompressobj()
    produced = 0
    while not stream.eof:
        piece = stream.unconsumed_tail
        if not piece:
            piece = data[position : position + _PIECE]
            position += len(piece)
            if not piece:
                raise ValueError("truncated")
        produced += len(stream.decompress(piece, _PIECE))
        if produced > size:
            raise ValueError("inflates past its declared size")
    return position - len(stream.unused_data)
