"""Images (PNG, JPEG, GIF, WebP, AVIF, ICO), decoded whole with Pillow, within bounds.

The file must open as the format its name says; its size is the decoder's; every
picture in it is decoded (each frame of an animation, each size of an icon), so a
damaged or cut file is refused. What decoding may cost is bounded first, from the
sizes the decoder reads in the headers, before any picture is decoded (figures:
bench/binary_checks.py and bench/README.md, Pillow 13 on a 2-core machine):

- memory: decoding holds a few bytes for each pixel of a picture (or of an
  animation's canvas), depending on the format (_BYTES_PER_PIXEL); a picture may
  need at most MAX_DECODE_BYTES, so at most MAX_PIXELS pixels for the cheapest
  format (8192 x 8192) and fewer for dearer ones (a WebP image: 4096 x 4096);
- time: each picture decoded costs about 15 ns a pixel; a file may make us decode
  at most MAX_FRAMES pictures and MAX_DECODED_PIXELS pixels in all, and files
  checked together (a ZIP import) MAX_SHARED_DECODED_PIXELS (projects.files.media.budget);
- a JPEG's scans: the decoder passes over the whole picture for each scan, and a
  scan can be a few bytes, so at most MAX_JPEG_SCANS.

Pillow's own decompression-bomb guard runs at MAX_PIXELS too, and refuses rather
than warns (pillow_configure, at start-up): it guards the sizes Pillow meets
before we can look (a GIF frame larger than its screen, an icon's pictures).
"""

from __future__ import annotations

import io
import math
import struct
import warnings
import zlib
from collections.abc import Callable, Iterator

from PIL import AvifImagePlugin, BmpImagePlugin, IcoImagePlugin, Image, PngImagePlugin

from projects.files.media.budget import MAX_FRAMES, DecodeBudget
from projects.files.media.results import BinaryRefused, Sniffed

MAX_DECODE_BYTES = 256 * 1024 * 1024
MAX_PIXELS = MAX_DECODE_BYTES // 4  # 67,108,864 (8192 x 8192): no picture may be larger
MAX_JPEG_SCANS = 100

# Pillow's format names for each type (a JPEG with several pictures opens as MPO).
_FORMATS = {
    "image/png": ("PNG",),
    "image/jpeg": ("JPEG", "MPO"),
    "image/gif": ("GIF",),
    "image/webp": ("WEBP",),
    "image/avif": ("AVIF",),
    "image/x-icon": ("ICO",),
}
_NAMES = {
    "image/png": "PNG image",
    "image/jpeg": "JPEG image",
    "image/gif": "GIF image",
    "image/webp": "WebP image",
    "image/avif": "AVIF image",
    "image/x-icon": "icon",
}
# Peak memory decoding takes per pixel, measured (bench/binary_checks.py) and rounded
# up. A JPEG is decoded at an eighth of its size (every coefficient is still read,
# so damage is still found); a progressive one keeps all its coefficients.
_BYTES_PER_PIXEL = {
    "PNG": 4,
    "GIF": 4,
    "ICO": 4,
    "JPEG": 1,
    "MPO": 4,
    "WEBP": 16,
    "AVIF": 10,
}
_ANIMATED_BYTES_PER_PIXEL = {"PNG": 12, "GIF": 12, "WEBP": 16, "AVIF": 24}
_PROGRESSIVE_JPEG_BYTES_PER_PIXEL = 6
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# What Pillow raises for a file it cannot read: a hostile file reaches many
# corners of its decoders, and each of these means "not a whole image".
_UNREADABLE = (
    OSError,
    SyntaxError,
    ValueError,
    EOFError,
    IndexError,
    KeyError,
    TypeError,
    ZeroDivisionError,
    OverflowError,
    struct.error,
    zlib.error,
)


def pillow_configure() -> None:
    """Pillow's process-wide settings for checking uploads (ProjectsConfig.ready)."""
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    # Pillow's warnings are about files we only check (a refusal says what matters),
    # except its decompression-bomb warning, which must stop the decoding: the
    # later filter is consulted first.
    warnings.filterwarnings("ignore", module=r"PIL\.")
    warnings.filterwarnings("error", category=Image.DecompressionBombWarning)
    AvifImagePlugin.DEFAULT_MAX_THREADS = 1  # one upload, one core


def image_checked(content_type: str, data: bytes) -> Sniffed | BinaryRefused:
    """`data` as the image `content_type` says, decoded whole within the bounds."""
    name = _NAMES[content_type]
    if content_type == "image/jpeg" and _jpeg_scans(data) > MAX_JPEG_SCANS:
        return BinaryRefused(
            f"the JPEG image has more than {MAX_JPEG_SCANS} scans, too many to check "
            "safely: save it again as an ordinary JPEG."
        )
    try:
        if content_type == "image/x-icon":
            return _icon_checked(data)
        return _opened_checked(content_type, data)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        return BinaryRefused(
            f"the {name} (or a picture in it) is larger than {MAX_PIXELS:,} pixels, "
            "too large to check and show safely."
        )
    except _UNREADABLE:
        return BinaryRefused(
            f"the {name} is damaged or cut short: it cannot be decoded whole. "
            "Open it in an image editor, save it again and upload that."
        )


def _opened_checked(content_type: str, data: bytes) -> Sniffed | BinaryRefused:
    formats = _FORMATS[content_type]
    if content_type == "image/png":
        with Image.open(io.BytesIO(data), formats=["PNG"]) as image:
            image.verify()  # every chunk's checksum, up to the end chunk
    with Image.open(io.BytesIO(data), formats=list(formats)) as image:
        if image.format not in formats:
            return BinaryRefused(f"the file is not a whole {_NAMES[content_type]}.")
        size = image.size
        limit = _pixel_limit(image)
        return _decoded(_frames(image), limit) or Sniffed(content_type, *size)


def _frames(image: Image.Image) -> Iterator[tuple[tuple[int, int], Callable[[], object]]]:
    """Each frame's size (an animation's canvas, which a GIF frame may widen) and
    how to decode it; a JPEG at an eighth of its size."""
    frame = 0
    while True:
        size = image.size
        if image.format == "JPEG":
            image.draft(None, (1, 1))
        yield size, image.load
        frame += 1
        try:
            image.seek(frame)
        except EOFError:
            return


def _icon_checked(data: bytes) -> Sniffed | BinaryRefused:
    # Pillow's ICO reader, not Image.open: that decodes the largest picture at once,
    # before its size could be weighed, and warns when a picture is not the size
    # the directory says (the picture's own header is what we weigh).
    icon = IcoImagePlugin.IcoFile(io.BytesIO(data))
    if not icon.entry:
        return BinaryRefused("the icon holds no picture.")
    if len(icon.entry) > MAX_FRAMES:
        return BinaryRefused(f"the icon holds more than {MAX_FRAMES:,} pictures.")
    sizes = [_icon_picture_size(icon, index) for index in range(len(icon.entry))]
    pictures = ((size, _icon_loader(icon, index)) for index, size in enumerate(sizes))
    problem = _decoded(pictures, MAX_PIXELS // _BYTES_PER_PIXEL["ICO"])
    return problem or Sniffed("image/x-icon", *max(sizes, key=lambda size: size[0] * size[1]))


def _icon_picture_size(icon: IcoImagePlugin.IcoFile, index: int) -> tuple[int, int]:
    """A picture's size from its own header (PNG or bitmap), read without decoding."""
    offset = icon.entry[index].offset
    icon.buf.seek(offset)
    is_png = icon.buf.read(8) == _PNG_SIGNATURE
    icon.buf.seek(offset)
    if is_png:
        return PngImagePlugin.PngImageFile(icon.buf).size
    width, height = BmpImagePlugin.DibImageFile(icon.buf).size
    return width, height // 2  # a bitmap's height counts its mask too


def _icon_loader(icon: IcoImagePlugin.IcoFile, index: int) -> Callable[[], object]:
    return lambda: icon.frame(index).load()


def _decoded(
    pictures: Iterator[tuple[tuple[int, int], Callable[[], object]]], limit: int
) -> BinaryRefused | None:
    """Decodes each picture once its size and the budget allow it."""
    budget = DecodeBudget()
    for (width, height), decode in pictures:
        if width <= 0 or height <= 0:
            return BinaryRefused("the image says it has no size.")
        if width * height > limit:
            return _too_large(width, height, limit)
        problem = budget.spend(width * height)
        if problem:
            return problem
        decode()
    return None


def _pixel_limit(image: Image.Image) -> int:
    """The most pixels a picture (or canvas) of this image may have: what its
    decoding would hold must fit MAX_DECODE_BYTES."""
    assert image.format is not None
    cost = _BYTES_PER_PIXEL[image.format]
    if getattr(image, "is_animated", False):
        cost = _ANIMATED_BYTES_PER_PIXEL.get(image.format, cost)
    elif image.format == "JPEG" and image.info.get("progressive"):
        cost = _PROGRESSIVE_JPEG_BYTES_PER_PIXEL
    return min(MAX_PIXELS, MAX_DECODE_BYTES // cost)


def _too_large(width: int, height: int, limit: int) -> BinaryRefused:
    return BinaryRefused(
        f"the image is {width:,} by {height:,} pixels, too large to check and show "
        f"safely: this kind of image may have at most {limit:,} pixels "
        f"(about {_side(limit):,} by {_side(limit):,}). Make it smaller."
    )


def _side(pixels: int) -> int:
    return math.isqrt(pixels)


def _jpeg_scans(data: bytes) -> int:
    """How many scans (SOS segments) a JPEG has, counted up to MAX_JPEG_SCANS + 1;
    what is not well formed is left to the decoder to refuse."""
    scans, at, end = 0, 2, len(data)
    while at + 4 <= end and scans <= MAX_JPEG_SCANS:
        if data[at] != 0xFF:
            return scans
        marker = data[at + 1]
        if marker == 0xFF:  # a fill byte before a marker
            at += 1
            continue
        if marker == 0xD9:  # end of image
            return scans
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # markers without a length
            at += 2
            continue
        at += 2 + int.from_bytes(data[at + 2 : at + 4], "big")
        if marker == 0xDA:
            scans += 1
            at = _after_entropy_data(data, at)
    return scans


def _after_entropy_data(data: bytes, at: int) -> int:
    """Where the next marker starts after a scan's coded data (in which 0xFF is
    followed by 0x00, a stuffed byte, or by a restart marker)."""
    while True:
        at = data.find(b"\xff", at)
        if at < 0 or at + 1 >= len(data):
            return len(data)
        following = data[at + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7:
            at += 2
        elif following == 0xFF:
            at += 1
        else:
            return at
