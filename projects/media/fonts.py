"""Fonts (WOFF, WOFF2, TrueType, OpenType), read whole with fontTools, within bounds.

A font must hold the tables browsers require (their font sanitiser drops a font
without them), and those tables, every glyph outline included, must read whole.

Bounds: a WOFF or WOFF2 font is compressed, and a few kilobytes can unpack to
gigabytes, which fontTools would unpack before comparing with the sizes the font
declares. So the declared sizes are weighed first (at most MAX_FONT_BYTES unpacked)
and each compressed part is unpacked here, stopping past its declared size, before
fontTools reads the font. Reading then costs time in proportion to those bytes
(bench/binary_checks.py: about 0.4 s for the largest font a 10 MiB upload holds).
"""

from __future__ import annotations

import io
import struct
import zlib

import brotli
from fontTools.misc import sstruct
from fontTools.ttLib import TTFont, TTLibError
from fontTools.ttLib.woff2 import WOFF2DirectoryEntry, woff2DirectoryFormat, woff2DirectorySize

from projects.media.results import BinaryProblem, Sniffed

MAX_FONT_BYTES = 32 * 1024 * 1024  # a font's tables, unpacked
MAX_TABLES = 128
_REQUIRED = ("cmap", "head", "hhea", "hmtx", "maxp", "name", "OS/2", "post")
_NAMES = {
    "font/woff": "WOFF font",
    "font/woff2": "WOFF2 font",
    "font/ttf": "TrueType font",
    "font/otf": "OpenType font",
}
_WOFF_HEADER = struct.Struct(">4s4sIHHIHHIIIII")
_WOFF_ENTRY = struct.Struct(">4sIIII")
_UNPACK_STEP = 1024 * 1024
# What fontTools raises for a font it cannot read: it is plain Python that trusts
# the tables it walks, so a hostile font can end in any of these.
_UNREADABLE = (
    TTLibError,
    AssertionError,
    AttributeError,
    EOFError,
    IndexError,
    KeyError,
    OverflowError,
    RecursionError,
    TypeError,
    ValueError,
    struct.error,
    zlib.error,
    brotli.error,
)


class _Refused(Exception):
    """A font refused before fontTools reads it (a value again at the edge)."""


def font_checked(content_type: str, data: bytes) -> Sniffed | BinaryProblem:
    name = _NAMES[content_type]
    try:
        if content_type == "font/woff":
            _woff_weighed(data)
        elif content_type == "font/woff2":
            _woff2_weighed(data)
        missing = _missing_tables(data)
    except _Refused as refused:
        return BinaryProblem(f"the {name} {refused}")
    except _UNREADABLE:
        return BinaryProblem(
            f"the {name} is damaged or cut short: it cannot be read whole. "
            "Export it again from a font tool and upload that."
        )
    if missing:
        return BinaryProblem(
            f"the {name} lacks the {', '.join(missing)} table{'s' if len(missing) > 1 else ''} "
            "browsers require: they would not use it. Export it again from a font tool."
        )
    return Sniffed(content_type)


def _missing_tables(data: bytes) -> list[str]:
    """The required tables the font lacks; those it has (and its outlines) are read
    whole, every glyph included."""
    font = TTFont(
        io.BytesIO(data),
        lazy=True,
        recalcBBoxes=False,
        recalcTimestamp=False,
        ignoreDecompileErrors=False,  # else a broken table is logged and kept raw
    )
    missing = [tag for tag in _REQUIRED if tag not in font]
    outlines = [tag for tag in ("glyf", "CFF ", "CFF2") if tag in font]
    if not outlines:
        missing.append("glyf (or CFF)")
    if missing:
        return missing
    for tag in (*_REQUIRED, *outlines):
        table = font[tag]
        if tag in ("CFF ", "CFF2"):
            _charstrings_read(table.cff)
        elif hasattr(table, "ensureDecompiled"):
            table.ensureDecompiled(recurse=True)
    return []


def _charstrings_read(cff: object) -> None:
    for top in cff.topDictIndex:  # type: ignore[attr-defined]  # fontTools is untyped
        for charstring in top.CharStrings.values():
            charstring.decompile()


def _woff_weighed(data: bytes) -> None:
    """A WOFF font's declared sizes, and each compressed table unpacked up to them."""
    if len(data) < _WOFF_HEADER.size:
        raise _Refused("is cut short.")
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
        raise _Refused("is cut short or has bytes after its end.")
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
        raise _Refused("is cut short.")
    if declared == size:  # stored as is
        return
    unpacker = zlib.decompressobj()
    if len(unpacker.decompress(packed, size + 1)) != size or not unpacker.eof:
        raise _Refused("is damaged: a table does not unpack to its declared size.")


def _woff2_weighed(data: bytes) -> None:
    """A WOFF2 font's declared sizes, and its compressed tables unpacked up to them."""
    if len(data) < woff2DirectorySize:
        raise _Refused("is cut short.")
    header = sstruct.unpack(woff2DirectoryFormat, data[:woff2DirectorySize])
    if header["length"] != len(data):
        raise _Refused("is cut short or has bytes after its end.")
    if header["sfntVersion"] == "ttcf":
        raise _Refused("is a font collection; upload each font of it on its own.")
    _weigh(header["numTables"], header["totalSfntSize"])
    reader = io.BytesIO(data)
    reader.seek(woff2DirectorySize)
    unpacked = 0
    for _ in range(header["numTables"]):
        entry = WOFF2DirectoryEntry()
        entry.fromFile(reader)
        unpacked += entry.length
    _weigh(header["numTables"], unpacked + header["metaOrigLength"])
    start = reader.tell()
    _brotli_part(data[start : start + header["totalCompressedSize"]], unpacked)
    if header["metaLength"]:
        meta = data[header["metaOffset"] : header["metaOffset"] + header["metaLength"]]
        _brotli_part(meta, header["metaOrigLength"])


def _brotli_part(packed: bytes, size: int) -> None:
    """Unpacks `packed` a step at a time, keeping nothing, until it ends or passes `size`."""
    unpacker = brotli.Decompressor()
    seen = len(unpacker.process(packed, output_buffer_limit=_UNPACK_STEP))
    while seen <= size and not unpacker.is_finished():
        if unpacker.can_accept_more_data():  # it wants more than there is
            raise _Refused("is cut short.")
        seen += len(unpacker.process(b"", output_buffer_limit=_UNPACK_STEP))
    if seen != size or not unpacker.is_finished():
        raise _Refused("is damaged: its tables do not unpack to their declared size.")


def _weigh(tables: int, unpacked: int) -> None:
    if tables > MAX_TABLES:
        raise _Refused(f"has more than {MAX_TABLES} tables.")
    if unpacked > MAX_FONT_BYTES:
        raise _Refused(
            f"unpacks to more than {MAX_FONT_BYTES // (1024 * 1024)} MB, "
            "too large to check and serve safely."
        )
