"""What decoding may cost: the pictures and pixels one file may make us decode,
and, for several files checked together (a ZIP import), all of them.

Decoding costs about 15 ns a pixel for each picture (each frame of an animation
is composed on its whole canvas), so pixels decoded measure time: 200 million
take about 3 s on the 2-core machine of bench/binary_checks.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from projects.files.media.results import BinaryRefused

MAX_FRAMES = 1000  # pictures in one file: an animation's frames, an icon's sizes
MAX_DECODED_PIXELS = 200_000_000  # in one file
MAX_SHARED_DECODED_PIXELS = 600_000_000  # in all the files checked together


@dataclass
class DecodeBudget:
    """What decoding one file has cost so far: pictures and pixels."""

    frames: int = 0
    pixels: int = 0

    def spend(self, pixels: int) -> BinaryRefused | None:
        self.frames += 1
        self.pixels += pixels
        shared = _SHARED.get()
        if shared is not None:
            shared.pixels += pixels
        if self.frames > MAX_FRAMES:
            return BinaryRefused(
                f"the image has more than {MAX_FRAMES:,} pictures (frames or sizes); "
                "make it shorter or save it as a video."
            )
        if self.pixels > MAX_DECODED_PIXELS:
            return BinaryRefused(
                f"the image's pictures hold more than {MAX_DECODED_PIXELS // 1_000_000:,} "
                "million pixels in all, too many to check and show safely: make it "
                "smaller or shorter, or save it as a video."
            )
        if shared is not None and shared.pixels > MAX_SHARED_DECODED_PIXELS:
            return BinaryRefused(
                f"the images uploaded together hold more than "
                f"{MAX_SHARED_DECODED_PIXELS // 1_000_000:,} million pixels in all, too many "
                "to check at once: upload this one on its own."
            )
        return None


_SHARED: ContextVar[DecodeBudget | None] = ContextVar("shared_decode_budget", default=None)


@contextmanager
def decoding_shared() -> Iterator[None]:
    """Within it, the images checked share MAX_SHARED_DECODED_PIXELS: one request
    that brings many files (a ZIP import) cannot make us decode for long."""
    token = _SHARED.set(DecodeBudget())
    try:
        yield
    finally:
        _SHARED.reset(token)
