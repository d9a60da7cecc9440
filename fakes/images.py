"""Small binary files for tests, made in memory: valid ones (images with Pillow,
fonts with fontTools, a PDF with Pillow, an MP4 and a WebM box by box) and
hostile ones, each made by changing a few bytes of a valid file."""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Sequence

from fontTools.fontBuilder import FontBuilder
from fontTools.pens.t2CharStringPen import T2CharStringPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import newTable
from PIL import Image

# --- images -------------------------------------------------------------------------


def _saved(image: Image.Image | Sequence[Image.Image], kind: str, **options: object) -> bytes:
    frames = [image] if isinstance(image, Image.Image) else list(image)
    buffer = io.BytesIO()
    if len(frames) > 1:
        options.update(save_all=True, append_images=frames[1:], duration=100, loop=0)
    frames[0].save(buffer, kind, **options)
    return buffer.getvalue()


def _picture(width: int, height: int, shade: int = 0) -> Image.Image:
    image = Image.new("RGB", (width, height), (200, shade * 47 % 256, shade * 89 % 256))
    image.putpixel((0, 0), (shade % 256, 0, 255))
    return image


def png(width: int = 2, height: int = 1) -> bytes:
    return _saved(_picture(width, height), "PNG")


def jpeg(width: int = 3, height: int = 2) -> bytes:
    return _saved(_picture(width, height), "JPEG", quality=90)


def gif(width: int = 4, height: int = 5) -> bytes:
    return _saved(_picture(width, height), "GIF")


def webp(width: int = 6, height: int = 4) -> bytes:
    return _saved(_picture(width, height), "WEBP", lossless=True)


def avif(width: int = 8, height: int = 6) -> bytes:
    return _saved(_picture(width, height), "AVIF", speed=10)


def ico(sizes: Sequence[int] = (16, 32)) -> bytes:
    return _saved(_picture(64, 64), "ICO", sizes=[(size, size) for size in sizes])


def animated(kind: str, frames: int, width: int = 8, height: int = 8) -> bytes:
    """An animation (GIF, WEBP, PNG, AVIF) whose frames differ."""
    return _saved([_picture(width, height, shade) for shade in range(frames)], kind)


def png_claiming(width: int, height: int) -> bytes:
    """A small PNG whose header claims another size (a decompression bomb's trick)."""
    data = bytearray(png())
    data[16:24] = struct.pack(">II", width, height)
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))  # a consistent lie
    return bytes(data)


def jpeg_with_fill_byte(width: int, height: int) -> bytes:
    """A JPEG claiming `width` x `height`, with a fill byte (0xFF, allowed before any
    marker) before its frame header: a reader that does not skip fill bytes misses
    the size."""
    data = bytearray(jpeg())
    frame = data.index(b"\xff\xc0")
    data[frame + 5 : frame + 9] = struct.pack(">HH", height, width)
    return bytes(data[:frame] + b"\xff" + data[frame:])


def jpeg_with_scans(scans: int) -> bytes:
    """A progressive JPEG whose last scan is repeated until it has `scans` scans
    (each scan makes a decoder pass over the whole picture)."""
    data = _saved(_picture(16, 16), "JPEG", progressive=True)
    starts = [at for at in range(len(data) - 1) if data[at : at + 2] == b"\xff\xda"]
    last = data[starts[-1] : -2]
    return data[:-2] + last * (scans - len(starts)) + b"\xff\xd9"


def webp_with_chunk_first(width: int = 16383, height: int = 16383) -> bytes:
    """A WebP whose first chunk is not the image header (the format requires it),
    followed by an extended header claiming `width` x `height`."""
    extended = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00"
    extended += (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    body = b"WEBP" + b"XTRA" + struct.pack("<I", 4) + b"junk" + extended + webp()[12:]
    return b"RIFF" + struct.pack("<I", len(body)) + body


def gif_frame_larger_than_screen(width: int, height: int) -> bytes:
    """A GIF whose logical screen is 1 x 1 and whose frame is `width` x `height`."""
    data = bytearray(gif(1, 1))
    data[6:10] = struct.pack("<HH", 1, 1)
    descriptor = data.index(b"\x2c\x00\x00\x00\x00")  # the frame, at (0, 0)
    data[descriptor + 5 : descriptor + 9] = struct.pack("<HH", width, height)
    return bytes(data)


def ico_with_html() -> bytes:
    """An icon header over a web page."""
    return b"\x00\x00\x01\x00" + b"<html><script>alert(document.cookie)</script></html>"


# --- fonts ----------------------------------------------------------------------------

_GLYPHS = (".notdef", "space", "A")
_NAMES = {"familyName": "Test Sans", "styleName": "Regular", "psName": "TestSans-Regular"}


def _outline(pen: TTGlyphPen | T2CharStringPen, curve: str) -> None:
    pen.moveTo((100, 0))
    pen.lineTo((100, 700))
    getattr(pen, curve)((200, 800), (400, 800), (500, 700))
    pen.lineTo((500, 0))
    pen.closePath()


def _font(*, truetype: bool, leave_out: str = "") -> FontBuilder:
    builder = FontBuilder(1000, isTTF=truetype)
    builder.setupGlyphOrder(list(_GLYPHS))
    builder.setupCharacterMap({32: "space", 65: "A"})
    if truetype:
        pen = TTGlyphPen(None)
        _outline(pen, "qCurveTo")
        builder.setupGlyf({name: pen.glyph() for name in _GLYPHS})
    else:
        t2 = T2CharStringPen(600, None)
        _outline(t2, "curveTo")
        charstrings = {name: t2.getCharString() for name in _GLYPHS}
        builder.setupCFF(_NAMES["psName"], {"FullName": "Test Sans"}, charstrings, {})
    builder.setupHorizontalMetrics({name: (600, 100) for name in _GLYPHS})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable(_NAMES)
    builder.setupOS2(sTypoAscender=800, usWinAscent=800, usWinDescent=200)
    builder.setupPost()
    if leave_out:
        del builder.font[leave_out]
    return builder


def _font_bytes(builder: FontBuilder, flavor: str | None = None) -> bytes:
    builder.font.flavor = flavor
    buffer = io.BytesIO()
    builder.save(buffer)
    return buffer.getvalue()


def ttf(leave_out: str = "") -> bytes:
    return _font_bytes(_font(truetype=True, leave_out=leave_out))


def otf() -> bytes:
    return _font_bytes(_font(truetype=False))


def woff() -> bytes:
    return _font_bytes(_font(truetype=True), "woff")


def woff2(padding: int = 0) -> bytes:
    """A WOFF2 font; with `padding` bytes of zeros in a table of its own (they
    unpack from a few bytes)."""
    builder = _font(truetype=True)
    if padding:
        table = newTable("zPad")
        table.data = bytes(padding)
        builder.font["zPad"] = table
    return _font_bytes(builder, "woff2")


def woff_claiming(size: int) -> bytes:
    """A WOFF whose first table declares it unpacks to `size` bytes."""
    data = bytearray(woff())
    data[44 + 12 : 44 + 16] = struct.pack(">I", size)
    return bytes(data)


def woff_bomb(unpacked: int) -> bytes:
    """A WOFF whose first table declares a few bytes but unpacks to `unpacked`."""
    data = bytearray(woff())
    tag, _offset, _packed, size, checksum = struct.unpack_from(">4sIIII", data, 44)
    bomb = zlib.compress(b"\x00" * unpacked, 9)
    data[44:64] = struct.pack(">4sIIII", tag, len(data), len(bomb), size, checksum)
    data += bomb
    data[8:12] = struct.pack(">I", len(data))
    return bytes(data)


# --- documents and video ------------------------------------------------------------


def pdf() -> bytes:
    return _saved(_picture(10, 10), "PDF")


def pdf_with_xref_stream() -> bytes:
    """A PDF 1.5 whose cross-reference section is a compressed stream (PNG Up rows)."""
    head = b"%PDF-1.5\n"
    objects = [
        b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n",
        b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n",
    ]
    offsets = [len(head), len(head) + len(objects[0])]
    xref_at = offsets[1] + len(objects[1])
    rows = [(0, 0, 255), (1, offsets[0], 0), (1, offsets[1], 0), (1, xref_at, 0)]
    raw = b"".join(b"\x00" + struct.pack(">BHB", *row) for row in rows)  # filter byte 0
    packed = zlib.compress(raw)
    stream = (
        b"3 0 obj\n<< /Type /XRef /Size 4 /W [1 2 1] /Root 1 0 R /Filter /FlateDecode "
        b"/DecodeParms << /Predictor 12 /Columns 4 >> /Length %d >>\nstream\n" % len(packed)
    )
    stream += packed + b"\nendstream\nendobj\n"
    return head + b"".join(objects) + stream + b"startxref\n%d\n%%%%EOF\n" % xref_at


def pdf_prefixed_html() -> bytes:
    return b"%PDF-1.7\n<html><body><script>alert(document.domain)</script></body></html>\n"


def _box(kind: bytes, payload: bytes = b"") -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def mp4(*, movie: bool = True) -> bytes:
    """An MP4's boxes: the file type, a movie (its header and a track), media data."""
    header = _box(b"ftyp", b"isom\x00\x00\x02\x00isomiso2avc1mp41")
    track = _box(b"trak", _box(b"tkhd", bytes(84)) + _box(b"mdia", _box(b"mdhd", bytes(24))))
    moov = _box(b"moov", _box(b"mvhd", bytes(100)) + track) if movie else b""
    return header + moov + _box(b"mdat", bytes(64))


def _element(element_id: int, payload: bytes) -> bytes:
    size = len(payload) | (1 << 56)  # an 8-byte size
    return (
        element_id.to_bytes((element_id.bit_length() + 7) // 8, "big")
        + size.to_bytes(8, "big")
        + payload
    )


def webm(doc_type: bytes = b"webm") -> bytes:
    """A WebM's elements: the EBML header, a segment with Info, Tracks and a cluster."""
    header = _element(0x1A45DFA3, _element(0x4286, b"\x01") + _element(0x4282, doc_type))
    info = _element(0x1549A966, _element(0x2AD7B1, b"\x0f\x42\x40"))
    tracks = _element(0x1654AE6B, _element(0xAE, _element(0xD7, b"\x01")))
    cluster = _element(0x1F43B675, _element(0xE7, b"\x00"))
    return header + _element(0x18538067, info + tracks + cluster)
