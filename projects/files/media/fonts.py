"""Fonts (WOFF, WOFF2, TrueType, OpenType), read whole with fontTools, within bounds.

A font must hold the tables browsers require (their font sanitiser drops a font
without them); those tables must read whole, and its outlines (glyf and loca, or
CFF) must hold the glyphs they index.

Bounds: a WOFF or WOFF2 font is weighed and unpacked first (packed_fonts), so
fontTools reads at most what that allows; glyph programs are not decoded
(_missing_tables says why).
"""

from __future__ import annotations

import io
import struct
import zlib

import brotli
from fontTools.ttLib import TTFont, TTLibError

from projects.files.media.packed_fonts import FontRefused, woff2_weighed, woff_weighed
from projects.files.media.results import BinaryRefused, Sniffed

_REQUIRED = ("cmap", "head", "hhea", "hmtx", "maxp", "name", "OS/2", "post")
_NAMES = {
    "font/woff": "WOFF font",
    "font/woff2": "WOFF2 font",
    "font/ttf": "TrueType font",
    "font/otf": "OpenType font",
}
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


def font_checked(content_type: str, data: bytes) -> Sniffed | BinaryRefused:
    name = _NAMES[content_type]
    try:
        glyphs = None
        if content_type == "font/woff":
            woff_weighed(data)
        elif content_type == "font/woff2":
            glyphs = woff2_weighed(data)
        missing = _missing_tables(data, glyphs)
    except FontRefused as refused:
        return BinaryRefused(f"the {name} {refused}")
    except _UNREADABLE:
        return BinaryRefused(
            f"the {name} is damaged or cut short: it cannot be read whole. "
            "Export it again from a font tool and upload that."
        )
    if missing:
        return BinaryRefused(
            f"the {name} lacks the {', '.join(missing)} table{'s' if len(missing) > 1 else ''} "
            "browsers require: they would not use it. Export it again from a font tool."
        )
    return Sniffed(content_type)


def _missing_tables(data: bytes, packed_glyphs: int | None) -> list[str]:
    """The required tables the font lacks; those it has are read whole, and the
    outlines' index of glyphs must match their data. The glyphs' own programs are
    not decoded (browsers' font sanitisers check them as they load the font): in
    fontTools (plain Python) that costs seconds for a large font, and a WOFF2
    font's packed glyphs (`packed_glyphs` of them, their streams' sizes checked
    as they were unpacked) are not unpacked, nor the metrics packed with them:
    14 s for 60,000 glyphs a 404-byte file can declare (bench/binary_checks.py)."""
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
    for tag in _REQUIRED:
        if tag == "hmtx" and packed_glyphs is not None:
            continue
        table = font[tag]
        if hasattr(table, "ensureDecompiled"):
            table.ensureDecompiled(recurse=True)
    if packed_glyphs is not None and packed_glyphs != font["maxp"].numGlyphs:
        raise TTLibError("the packed glyphs are not as many as the font says")
    for tag in outlines:
        if tag == "glyf" and packed_glyphs is not None:
            continue
        table = font[tag]  # glyf: cut into glyphs by loca, each where loca says
        if tag != "glyf":
            _charstrings_indexed(table.cff)
    return []


def _charstrings_indexed(cff: object) -> None:
    """Reads each font's top dictionary and the index of its glyph programs."""
    for top in cff.topDictIndex:  # type: ignore[attr-defined]  # fontTools is untyped
        if len(top.CharStrings) == 0:
            raise TTLibError("a CFF font without glyphs")
