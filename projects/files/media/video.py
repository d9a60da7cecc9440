"""MP4 and WebM videos, checked by their structure, not decoded (browsers decode
them, sandboxed).

- MP4 (ISO base media file format, ISO 14496-12): a run of boxes whose sizes add up
  to the file's, the first a file type box (ftyp), one of them the movie box (moov)
  holding a movie header (mvhd) and at least one track (trak).
- WebM (a Matroska profile on EBML): an EBML header whose DocType is "webm", then a
  Segment whose elements add up to it and include the segment's Info and Tracks.

Bounds: one pass over the boxes or elements named, at most MAX_ELEMENTS of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from projects.files.media.results import BinaryRefused, Sniffed

MAX_ELEMENTS = 100_000

_EBML = 0x1A45DFA3
_DOC_TYPE = 0x4282
_SEGMENT = 0x18538067
_INFO = 0x1549A966
_TRACKS = 0x1654AE6B
_CLUSTER = 0x1F43B675
_UNKNOWN = -1  # an element whose size is "unknown": it runs to its parent's end


class _Broken(Exception):
    """Why the structure is broken (a value again at the edge)."""


@dataclass(frozen=True)
class _Part:
    """A box or an element: its type and where its content lies."""

    kind: bytes | int
    start: int
    end: int


def mp4_checked(data: bytes) -> Sniffed | BinaryRefused:
    try:
        boxes = list(_boxes(data, 0, len(data)))
        if not boxes or boxes[0].kind != b"ftyp":
            raise _Broken("it does not begin with a file type box")
        movie = next((box for box in boxes if box.kind == b"moov"), None)
        if movie is None:
            raise _Broken("it has no movie box (moov): no player could read it")
        inside = {box.kind for box in _boxes(data, movie.start, movie.end)}
        if b"mvhd" not in inside or b"trak" not in inside:
            raise _Broken("its movie box has no header or no track")
    except _Broken as broken:
        return BinaryRefused(f"the MP4 video is damaged or cut short: {broken}.")
    return Sniffed("video/mp4")


def _boxes(data: bytes, start: int, end: int) -> Iterator[_Part]:
    """The boxes from `start` to `end`, which their sizes must fill exactly."""
    at, count = start, 0
    while at < end:
        count += 1
        if count > MAX_ELEMENTS:
            raise _Broken(f"it has more than {MAX_ELEMENTS:,} boxes")
        if at + 8 > end:
            raise _Broken("a box is cut short")
        size, kind, header = int.from_bytes(data[at : at + 4], "big"), data[at + 4 : at + 8], 8
        if size == 1:  # the size follows as 64 bits
            size, header = int.from_bytes(data[at + 8 : at + 16], "big"), 16
        elif size == 0:  # the last box runs to the end
            size = end - at
        if kind == b"uuid":
            header += 16
        if size < header or at + size > end:
            raise _Broken("a box's size does not fit the file")
        yield _Part(kind, at + header, at + size)
        at += size


def webm_checked(data: bytes) -> Sniffed | BinaryRefused:
    try:
        elements = _elements(data, 0, len(data))
        header = next(elements, None)
        if header is None or header.kind != _EBML:
            raise _Broken("it does not begin with an EBML header")
        doc_type = next(
            (e for e in _elements(data, header.start, header.end) if e.kind == _DOC_TYPE), None
        )
        if doc_type is None or data[doc_type.start : doc_type.end].rstrip(b"\x00") != b"webm":
            raise _Broken("its header does not say it is WebM")
        segment = next(elements, None)
        if segment is None or segment.kind != _SEGMENT:
            raise _Broken("it has no segment after its header")
        _segment_checked(data, segment)
    except _Broken as broken:
        return BinaryRefused(f"the WebM video is damaged or cut short: {broken}.")
    return Sniffed("video/webm")


def _segment_checked(data: bytes, segment: _Part) -> None:
    """The segment's elements up to its first cluster include Info and Tracks."""
    seen: set[bytes | int] = set()
    for element in _elements(data, segment.start, segment.end):
        seen.add(element.kind)
        if element.kind == _CLUSTER or element.end == segment.end:
            break
    if _INFO not in seen or _TRACKS not in seen:
        raise _Broken("its segment has no Info or no Tracks before its first cluster")


def _elements(data: bytes, start: int, end: int) -> Iterator[_Part]:
    """The EBML elements from `start` to `end`, which their sizes must fill (one of
    unknown size runs to `end`)."""
    at, count = start, 0
    while at < end:
        count += 1
        if count > MAX_ELEMENTS:
            raise _Broken(f"it has more than {MAX_ELEMENTS:,} elements")
        kind, at = _vint(data, at, end, keep_marker=True)
        size, at = _vint(data, at, end, keep_marker=False)
        stop = end if size == _UNKNOWN else at + size
        if stop > end:
            raise _Broken("an element's size does not fit the file")
        yield _Part(kind, at, stop)
        at = stop


def _vint(data: bytes, at: int, end: int, *, keep_marker: bool) -> tuple[int, int]:
    """An EBML variable-length integer at `at`: its value and where it ends. An ID
    keeps its length marker; a size whose bits are all ones is unknown."""
    if at >= end or data[at] == 0:
        raise _Broken("an element header is malformed or cut short")
    length = 9 - data[at].bit_length()
    if at + length > end:
        raise _Broken("an element header is cut short")
    value = int.from_bytes(data[at : at + length], "big")
    if keep_marker:
        return value, at + length
    value &= (1 << (7 * length)) - 1
    if value == (1 << (7 * length)) - 1:
        return _UNKNOWN, at + length
    return value, at + length
