"""Packed fonts (WOFF, WOFF2), weighed before fontTools reads them.

A few kilobytes of a packed font can unpack to gigabytes, and fontTools unpacks
before it compares with the sizes the font declares. So the declared sizes are
weighed first (at most MAX_FONT_BYTES unpacked, MAX_TABLES tables), and each
packed part is unpacked here, a step at a time and keeping nothing, stopping past
its declared size. A WOFF2 font's packed glyphs are left packed (fontTools would
take seconds to unpack them): their streams' sizes are checked against the
glyph table's.
"""

from __future__ import annotations

import io
import struct
import zlib

import brotli
from fontTools.misc import sstruct
from fontTools.ttLib.woff2 import WOFF2DirectoryEntry, woff2DirectoryFormat, woff2DirectorySize

from common.sizes import human_size

MAX_FONT_BYTES = 32 * 1024 * 1024  # a font's tables, unpacked
MAX_TABLES = 128
_WOFF_HEADER = struct.Struct(">4s4sIHHIHHIIIII")
_WOFF_ENTRY = struct.Struct(">4sIIII")
# A WOFF2 packed glyph table's header: counts, then the sizes of its 7 streams.
_GLYF_HEADER = struct.Struct(">HHHH7I")
_UNPACK_STEP = 1024 * 1024


class FontRefused(Exception):
    """Why a packed font is refused, in words that follow "the <kind> font"."""


def woff_weighed(data: bytes) -> None:
    """A WOFF font's declared sizes, and each compressed table unpacked up to them."""
    if len(data) < _WOFF_HEADER.size:
        raise FontRefused("is cut short.")
    header = _WOFF_HEADER.unpack_from(data)
    length, tables, total, meta_offset, meta_length, meta_size = (
        header[2],
        header[3],
        header[5],
        header[8],
        header[9],
        header[10],
    )
    if length != len(data):
        raise FontRefused("is cut short or has bytes after its end.")
    _weigh(tables, total)
    unpacked = 0
    for index in range(tables):
        entry = _WOFF_ENTRY.unpack_from(data, _WOFF_HEADER.size + index * _WOFF_ENTRY.size)
        _tag, offset, packed, size, _checksum = entry
        unpacked += size
        _weigh(tables, unpacked)
        _zlib_part(data[offset : offset + packed], size, packed)
    if meta_length:
        _weigh(tables, unpacked + meta_size)
        _zlib_part(data[meta_offset : meta_offset + meta_length], meta_size, meta_length)


def _zlib_part(packed: bytes, size: int, declared: int) -> None:
    if len(packed) != declared:
        raise FontRefused("is cut short.")
    if declared == size:  # stored as is
        return
    unpacker = zlib.decompressobj()
    if len(unpacker.decompress(packed, size + 1)) != size or not unpacker.eof:
        raise FontRefused("is damaged: a table does not unpack to its declared size.")


def woff2_weighed(data: bytes) -> int | None:
    """A WOFF2 font's declared sizes, and its packed tables unpacked up to them;
    how many glyphs its packed glyph table holds (None when it is not packed)."""
    if len(data) < woff2DirectorySize:
        raise FontRefused("is cut short.")
    header = sstruct.unpack(woff2DirectoryFormat, data[:woff2DirectorySize])
    if header["length"] != len(data):
        raise FontRefused("is cut short or has bytes after its end.")
    if header["sfntVersion"] == "ttcf":
        raise FontRefused("is a font collection; upload each font of it on its own.")
    _weigh(header["numTables"], header["totalSfntSize"])
    reader = io.BytesIO(data)
    reader.seek(woff2DirectorySize)
    unpacked, glyphs = 0, None
    for _ in range(header["numTables"]):
        entry = WOFF2DirectoryEntry()
        entry.fromFile(reader)
        if entry.tag == "glyf" and entry.transformed:
            glyphs = (unpacked, entry.length)
        unpacked += entry.length
    _weigh(header["numTables"], unpacked + header["metaOrigLength"])
    start = reader.tell()
    packed = data[start : start + header["totalCompressedSize"]]
    kept = _brotli_part(packed, unpacked, glyphs[0] if glyphs else None)
    if header["metaLength"]:
        meta = data[header["metaOffset"] : header["metaOffset"] + header["metaLength"]]
        _brotli_part(meta, header["metaOrigLength"], None)
    return _glyph_streams_checked(kept, glyphs[1]) if glyphs else None


def _brotli_part(packed: bytes, size: int, keep: int | None) -> bytes:
    """Unpacks `packed` a step at a time until it ends or passes `size`, keeping
    only the packed glyph table's header, which starts at `keep`."""
    unpacker = brotli.Decompressor()
    chunk = unpacker.process(packed, output_buffer_limit=_UNPACK_STEP)
    seen, kept = 0, b""
    while True:
        if keep is not None and seen + len(chunk) > keep and len(kept) < _GLYF_HEADER.size:
            kept += chunk[max(0, keep - seen) :][: _GLYF_HEADER.size - len(kept)]
        seen += len(chunk)
        if seen > size or unpacker.is_finished():
            break
        chunk = unpacker.process(b"", output_buffer_limit=_UNPACK_STEP)
        if not chunk:  # it wants more than there is
            raise FontRefused("is cut short.")
    if seen != size or not unpacker.is_finished():
        raise FontRefused("is damaged: its tables do not unpack to their declared size.")
    return kept


def _glyph_streams_checked(header: bytes, length: int) -> int:
    if len(header) < _GLYF_HEADER.size:
        raise FontRefused("is damaged: its glyph table is cut short.")
    _reserved, _options, glyphs, _index, *streams = _GLYF_HEADER.unpack(header)
    if streams[0] != 2 * glyphs or _GLYF_HEADER.size + sum(streams) > length:
        raise FontRefused("is damaged: its glyph table's parts do not fit it.")
    return int(glyphs)


def _weigh(tables: int, unpacked: int) -> None:
    if tables > MAX_TABLES:
        raise FontRefused(f"has more than {MAX_TABLES} tables.")
    if unpacked > MAX_FONT_BYTES:
        raise FontRefused(
            f"unpacks to more than {human_size(MAX_FONT_BYTES)}, "
            "too large to check and serve safely."
        )
