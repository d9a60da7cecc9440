"""What checking an uploaded binary file costs: the worst
files the checks accept and hostile ones, each checked by `projects.files.binaries.checked`
in a fresh process.

Not a test: prints figures. Run with `.venv/bin/python bench/binary_checks.py`
(building the inputs takes a minute or two; they are kept in a temporary folder).
Memory is the growth of the checking process's peak RSS (VmHWM) over its RSS just
before the check, with the file already read; time is the process's CPU time
and the wall time of the check.
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import django

django.setup()

import brotli
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont
from fontTools.ttLib.woff2 import WOFF2DirectoryEntry, woff2DirectorySize
from PIL import Image, ImageFilter

from fakes.images import woff2
from projects.files.binaries import checked

Image.MAX_IMAGE_PIXELS = None  # making the inputs; the checks set their own bound

MiB = 1024 * 1024


def _rss(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def _one(path: str) -> None:
    """In the child: check one file, print what it cost."""
    data = Path(path).read_bytes()
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM starts again from VmRSS
    before = _rss("VmRSS")
    cpu, wall = time.process_time(), time.perf_counter()
    found = checked("/f." + path.rsplit(".", 1)[1], path.rsplit(".", 1)[1], data)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    verdict = getattr(found, "message", None) or "accepted"
    print(
        json.dumps(
            {"mb": (_rss("VmHWM") - before) / MiB, "cpu": cpu, "wall": wall, "verdict": verdict}
        )
    )


# --- the inputs ---------------------------------------------------------------------


def _pillow(frames: list[Image.Image], kind: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    if len(frames) > 1:
        options.update(save_all=True, append_images=frames[1:], duration=80, loop=0)
    frames[0].save(buffer, kind, **options)
    return buffer.getvalue()


def _photo(width: int, height: int, seed: int = 0) -> Image.Image:
    """A picture with detail (noise, blurred), so encoders cannot make it tiny."""
    small = Image.effect_noise((max(1, width // 16), max(1, height // 16)), 80 + seed)
    rgb = Image.merge(
        "RGB", (small, small.rotate(90 + seed), small.transpose(Image.Transpose.FLIP_LEFT_RIGHT))
    )
    return rgb.resize((width, height)).filter(ImageFilter.BLUR)


def _flat(width: int, height: int, shade: int = 0, mode: str = "RGBA") -> Image.Image:
    return Image.new(mode, (width, height), (shade * 37 % 256, 90, 160, 255)[: len(mode)])


def _png_claiming(width: int, height: int) -> bytes:
    data = bytearray(_pillow([_flat(2, 2)], "PNG"))
    data[16:24] = struct.pack(">II", width, height)
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
    return bytes(data)


def _jpeg_scans(width: int, height: int, scans: int) -> bytes:
    data = _pillow([_photo(width, height)], "JPEG", progressive=True, quality=80)
    starts = [at for at in range(len(data) - 1) if data[at : at + 2] == b"\xff\xda"]
    smallest = min(
        (data[a:b] for a, b in zip(starts, [*starts[1:], len(data) - 2], strict=True)), key=len
    )
    return data[:-2] + smallest * (scans - len(starts)) + b"\xff\xd9"


def _gif_tiny_frames(width: int, height: int, frames: int) -> bytes:
    """A big screen and many 1 x 1 frames: a few bytes each."""
    first = bytearray(_pillow([_flat(width, height, mode="P")], "GIF"))
    frame = b"\x21\xf9\x04\x00\x01\x00\x00\x00" + b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00"
    frame += b"\x02\x02\x44\x01\x00"
    return bytes(first[:-1]) + frame * frames + b";"


def _icon(pictures: int) -> bytes:
    png = _pillow([_photo(256, 256)], "PNG")
    header = struct.pack("<HHH", 0, 1, pictures)
    offset = 6 + 16 * pictures
    entry = struct.pack("<BBBBHHII", 0, 0, 0, 0, 1, 32, len(png), offset)
    return header + entry * pictures + png


def _big_font(glyphs: int, points: int) -> bytes:
    names = [".notdef", *(f"g{index}" for index in range(1, glyphs))]
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap({0x4E00 + index: name for index, name in enumerate(names[1:])})
    pen = TTGlyphPen(None)
    for step in range(points // 2):
        pen.moveTo((step * 7 % 900, step * 13 % 900))
        pen.lineTo((step * 11 % 900, 900 - step * 5 % 900))
        pen.lineTo((step * 3 % 900, 10))
        pen.closePath()
    glyph = pen.glyph()
    builder.setupGlyf({name: glyph for name in names})
    builder.setupHorizontalMetrics({name: (1000, 0) for name in names})
    builder.setupHorizontalHeader(ascent=900, descent=-100)
    builder.setupNameTable({"familyName": "Bench", "styleName": "Regular"})
    builder.setupOS2()
    builder.setupPost(keepGlyphNames=False)
    buffer = io.BytesIO()
    builder.save(buffer)
    return buffer.getvalue()


def _woff2_bomb(unpacked: int) -> bytes:
    """A WOFF2 whose directory declares a small font but whose compressed stream
    unpacks to `unpacked` bytes."""
    data = woff2()
    reader = io.BytesIO(data)
    reader.seek(woff2DirectorySize)
    for _ in range(struct.unpack_from(">H", data, 12)[0]):
        WOFF2DirectoryEntry().fromFile(reader)
    bomb = brotli.compress(b"\x00" * unpacked, quality=5)
    out = bytearray(data[: reader.tell()] + bomb)
    out[8:12] = struct.pack(">I", len(out))
    out[20:24] = struct.pack(">I", len(bomb))
    return bytes(out)


def _woff2_of(font: bytes) -> bytes:
    packed = TTFont(io.BytesIO(font))
    packed.flavor = "woff2"
    buffer = io.BytesIO()
    packed.save(buffer)
    return buffer.getvalue()


def _pdf_objects(objects: int) -> bytes:
    """A PDF of `objects` small objects and a classic cross-reference table."""
    parts, offsets, at = [b"%PDF-1.7\n"], [], 9
    for number in range(1, objects + 1):
        offsets.append(at)
        content = b"/Type /Catalog /Pages 2 0 R" if number == 1 else b"/Type /Pages /Count 0"
        parts.append(b"%d 0 obj\n<< %s >>\nendobj\n" % (number, content))
        at += len(parts[-1])
    table = [b"xref\n0 %d\n0000000000 65535 f \n" % (objects + 1)]
    table += [b"%010d 00000 n \n" % offset for offset in offsets]
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (objects + 1, at)
    return b"".join(parts + table) + trailer


def _mp4_boxes(boxes: int) -> bytes:
    header = struct.pack(">I", 16) + b"ftypisom\x00\x00\x02\x00"
    return header + (struct.pack(">I", 8) + b"free") * boxes


CASES: list[tuple[str, str, Callable[[], bytes]]] = [
    (
        "worst accepted: PNG 8192 x 8192 (67 Mpx), RGBA",
        "png",
        lambda: _pillow([_flat(8192, 8192)], "PNG"),
    ),
    (
        "worst accepted: baseline JPEG 8192 x 8192, a photo",
        "jpg",
        lambda: _pillow([_photo(8192, 8192)], "JPEG", quality=70),
    ),
    (
        "worst accepted: progressive JPEG 8192 x 5460 (44.7 Mpx), 100 scans",
        "jpg",
        lambda: _jpeg_scans(8192, 5460, 100),
    ),
    (
        "worst accepted: GIF 8192 x 8192",
        "gif",
        lambda: _pillow([_flat(8192, 8192, mode="P")], "GIF"),
    ),
    (
        "worst accepted: WebP 4096 x 4096 (16.7 Mpx), a photo",
        "webp",
        lambda: _pillow([_photo(4096, 4096)], "WEBP", quality=80),
    ),
    (
        "worst accepted: AVIF 6000 x 4470 (26.8 Mpx), a photo",
        "avif",
        lambda: _pillow([_photo(6000, 4470)], "AVIF", speed=10, quality=50),
    ),
    (
        "worst accepted: animated GIF 4000 x 4000, 12 frames (192 Mpx)",
        "gif",
        lambda: _pillow([_flat(4000, 4000, n, "P") for n in range(12)], "GIF"),
    ),
    (
        "worst accepted: animated PNG 4000 x 4000, 12 frames",
        "png",
        lambda: _pillow([_flat(4000, 4000, n) for n in range(12)], "PNG"),
    ),
    (
        "worst accepted: animated WebP 4096 x 4096, 11 frames (185 Mpx)",
        "webp",
        lambda: _pillow([_flat(4096, 4096, n) for n in range(11)], "WEBP", lossless=True),
    ),
    (
        "worst accepted: animated AVIF 3000 x 3000, 20 frames (180 Mpx)",
        "avif",
        lambda: _pillow([_flat(3000, 3000, n, "RGB") for n in range(20)], "AVIF", speed=10),
    ),
    ("worst accepted: icon, 1,000 pictures of 256 x 256", "ico", lambda: _icon(1000)),
    ("worst accepted: TrueType font, 60,000 glyphs (4.7 MB)", "ttf", lambda: _big_font(60_000, 10)),
    ("worst accepted: PDF, 300,000 objects (20 MB)", "pdf", lambda: _pdf_objects(300_000)),
    ("hostile: 77-byte PNG claiming 8192 x 8193", "png", lambda: _png_claiming(8192, 8193)),
    (
        "hostile: 77-byte PNG claiming 8192 x 8192 (within bounds, no pixels)",
        "png",
        lambda: _png_claiming(8192, 8192),
    ),
    (
        "hostile: progressive JPEG 8192 x 5460 with 101 scans",
        "jpg",
        lambda: _jpeg_scans(8192, 5460, 101),
    ),
    (
        "hostile: GIF 8000 x 8000 screen, 400,000 frames of 1 x 1",
        "gif",
        lambda: _gif_tiny_frames(8000, 8000, 400_000),
    ),
    (
        "hostile: GIF 1,000 x 1,000 screen, 100,000 frames of 1 x 1",
        "gif",
        lambda: _gif_tiny_frames(1000, 1000, 100_000),
    ),
    ("hostile: icon, 5,000 pictures", "ico", lambda: _icon(5000)),
    (
        "hostile: 404-byte WOFF2 declaring 60,000 packed glyphs",
        "woff2",
        lambda: _woff2_of(_big_font(60_000, 10)),
    ),
    ("hostile: WOFF2 unpacking to 1 GB", "woff2", lambda: _woff2_bomb(1024 * MiB)),
    ("hostile: MP4, 1.3 million empty boxes", "mp4", lambda: _mp4_boxes(1_300_000)),
]


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="builtit-binaries-"))
    print("| case | bytes | peak memory | CPU | wall | verdict |")
    print("| --- | --- | --- | --- | --- | --- |")
    for index, (name, extension, make) in enumerate(CASES):
        path = folder / f"{index}.{extension}"
        path.write_bytes(make())
        ran = subprocess.run(  # noqa: S603  (this script, our interpreter)
            [sys.executable, __file__, "--one", str(path)],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        row = json.loads(ran.stdout.strip().splitlines()[-1])
        verdict = (
            row["verdict"]
            if row["verdict"] == "accepted"
            else "refused: " + row["verdict"].split(": ", 1)[1][:90]
        )
        print(
            f"| {name} | {path.stat().st_size:,} | {row['mb']:.0f} MB | {row['cpu']:.2f} s "
            f"| {row['wall']:.2f} s | {verdict} |",
            flush=True,
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        _one(sys.argv[2])
    else:
        main()
