"""PDF documents, checked by their structure (ISO 32000-1, 7.5): a header, a
cross-reference section at the offset `startxref` gives, followed by its trailer
(or a cross-reference stream), sections chained by /Prev, a trailer naming the
document catalog (/Root), and the end-of-file marker. Each object a classic
cross-reference table says is in use must start where it says.

What a reader needs to open the file is there and consistent, so a page with a
PDF header, a cut file or one with a broken table is refused. Pages and their
content are not interpreted: browsers' PDF viewers do that, sandboxed.
Bounds: a pass over the file per section, at most MAX_SECTIONS sections, and a
cross-reference stream unpacked to at most MAX_XREF_STREAM_BYTES.
"""

from __future__ import annotations

import re
import zlib

from projects.files.media.results import BinaryRefused, Sniffed

MAX_SECTIONS = 64  # one per incremental update
MAX_XREF_STREAM_BYTES = 8 * 1024 * 1024
_TAIL = 1024  # where readers look for the end (startxref and %%EOF)
_DICTIONARY_BYTES = 64 * 1024  # the most a trailer or stream dictionary may take

_HEADER = re.compile(rb"%PDF-[12]\.\d")
_STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF")
_SUBSECTION = re.compile(rb"\s*(\d+) (\d+)[ \t]*(?:\r\n|\r|\n)")
# 20 bytes by the standard; some writers leave out the space before a lone EOL.
_ENTRY = re.compile(rb"(\d{10}) (\d{5}) ([fn]) ?(?:\r\n|\r|\n)")
_TRAILER = re.compile(rb"\s*trailer\s*<<")
_OBJECT = re.compile(rb"\s*(\d+)\s+(\d+)\s+obj\b")
_STREAM_START = re.compile(rb"\s*stream(?:\r\n|\n)")
_ENDSTREAM = re.compile(rb"\s*endstream\b")
_ROOT = re.compile(rb"/Root\s+\d+\s+\d+\s+R")
_PREV = re.compile(rb"/Prev\s+(\d+)")
_XREF_TYPE = re.compile(rb"/Type\s*/XRef\b")
_WIDTHS = re.compile(rb"/W\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s*\]")
_SIZE = re.compile(rb"/Size\s+(\d+)")
_INDEX = re.compile(rb"/Index\s*\[([\d\s]*)\]")
_LENGTH = re.compile(rb"/Length\s+(\d+)(?!\d)(?!\s+\d+\s+R)")
_FILTER = re.compile(rb"/Filter\s*(?:\[\s*)?/(\w+)")
_PREDICTOR = re.compile(rb"/Predictor\s+(\d+)")

_DAMAGED = "the PDF document is damaged: {}. Save or export it again as PDF and upload that."


class _Broken(Exception):
    """Why the structure is broken (a value again at the edge, pdf_checked)."""


def pdf_checked(data: bytes) -> Sniffed | BinaryRefused:
    if not _HEADER.match(data):
        return BinaryRefused("the file starts like a PDF document but has no PDF header.")
    ends = list(_STARTXREF.finditer(data, max(0, len(data) - _TAIL)))
    if not ends:
        return BinaryRefused(
            "the PDF document is cut short (or is not a PDF): it does not end as a PDF "
            "document ends (startxref, then %%EOF)."
        )
    try:
        has_root = _sections_read(data, int(ends[-1].group(1)))
    except _Broken as broken:
        return BinaryRefused(_DAMAGED.format(broken))
    if not has_root:
        return BinaryRefused(_DAMAGED.format("no trailer names its document catalog"))
    return Sniffed("application/pdf")


def _sections_read(data: bytes, offset: int) -> bool:
    """Reads the chain of cross-reference sections from `offset`; whether one of
    their trailers names the catalog."""
    seen: set[int] = set()
    has_root = False
    next_offset: int | None = offset
    while next_offset is not None:
        if next_offset in seen or len(seen) >= MAX_SECTIONS:
            raise _Broken("its cross-reference sections loop or are too many")
        seen.add(next_offset)
        if not 0 < next_offset < len(data):
            raise _Broken("a cross-reference offset points outside the file")
        if data.startswith(b"xref", next_offset):
            dictionary = _table_read(data, next_offset + 4)
        else:
            dictionary = _xref_stream_read(data, next_offset)
        has_root = has_root or bool(_ROOT.search(dictionary))
        prev = _PREV.search(dictionary)
        next_offset = int(prev.group(1)) if prev else None
    return has_root


def _table_read(data: bytes, at: int) -> bytes:
    """A classic cross-reference table from `at`: its subsections, each in-use
    object where its entry says; returns its trailer dictionary."""
    subsections = 0
    while subsection := _SUBSECTION.match(data, at):
        first, count = int(subsection.group(1)), int(subsection.group(2))
        at = subsection.end()
        if at + 19 * count > len(data):
            raise _Broken("a cross-reference table is cut short")
        for number in range(first, first + count):
            entry = _ENTRY.match(data, at)
            if entry is None:
                raise _Broken("a cross-reference entry is malformed")
            at = entry.end()
            if entry.group(3) == b"n":
                _object_at(data, int(entry.group(1)), number)
        subsections += 1
    if not subsections:
        raise _Broken("a cross-reference table is empty")
    trailer = _TRAILER.match(data, at)
    end = data.find(b"startxref", at, at + _DICTIONARY_BYTES) if trailer else -1
    if trailer is None or end < 0:
        raise _Broken("a cross-reference table has no trailer")
    return data[trailer.end() : end]


def _object_at(data: bytes, offset: int, number: int) -> None:
    found = _OBJECT.match(data, offset)
    if found is None or int(found.group(1)) != number:
        raise _Broken(f"object {number} is not where the cross-reference table says")


def _xref_stream_read(data: bytes, offset: int) -> bytes:
    """A cross-reference stream at `offset` (PDF 1.5): an object whose dictionary
    says /Type /XRef, and whose stream unpacks to one row per entry."""
    if _OBJECT.match(data, offset) is None:
        raise _Broken("startxref points at neither a cross-reference table nor a stream")
    window = data[offset : offset + _DICTIONARY_BYTES]
    stream = window.find(b"stream")
    dictionary = window[: max(stream, 0)]
    if stream < 0 or not _XREF_TYPE.search(dictionary):
        raise _Broken("startxref points at neither a cross-reference table nor a stream")
    start = _STREAM_START.match(data, offset + stream)
    length = _LENGTH.search(dictionary)
    if start is None or length is None:
        raise _Broken("its cross-reference stream has no length")
    body = data[start.end() : start.end() + int(length.group(1))]
    if not _ENDSTREAM.match(data, start.end() + len(body)):
        raise _Broken("its cross-reference stream is cut short")
    _rows_checked(dictionary, _unpacked(dictionary, body))
    return dictionary


def _unpacked(dictionary: bytes, body: bytes) -> bytes:
    kind = _FILTER.search(dictionary)
    if kind is None:
        return body
    if kind.group(1) != b"FlateDecode":
        raise _Broken("its cross-reference stream uses an unusual compression")
    unpacker = zlib.decompressobj()
    try:
        rows = unpacker.decompress(body, MAX_XREF_STREAM_BYTES + 1)
    except zlib.error as error:
        raise _Broken("its cross-reference stream does not unpack") from error
    if len(rows) > MAX_XREF_STREAM_BYTES:
        raise _Broken("its cross-reference stream is too large")
    return rows


def _rows_checked(dictionary: bytes, rows: bytes) -> None:
    widths, size = _WIDTHS.search(dictionary), _SIZE.search(dictionary)
    if widths is None or size is None:
        raise _Broken("its cross-reference stream lacks its field widths or size")
    index = _INDEX.search(dictionary)
    counts = index.group(1).split()[1::2] if index else [size.group(1)]
    entries = sum(int(count) for count in counts)
    predictor = _PREDICTOR.search(dictionary)
    row = sum(int(width) for width in widths.groups())
    row += 1 if predictor and int(predictor.group(1)) >= 10 else 0  # a PNG filter byte
    if len(rows) != entries * row:
        raise _Broken("its cross-reference stream does not hold the entries it declares")
