"""The colours the offline demo knows by name, how it finds one in a sentence,
and which text colour stays readable on it."""

from __future__ import annotations

import re

COLOURS = {
    "dark green": "#1f5f3a",
    "forest green": "#1f5f3a",
    "light green": "#86c99a",
    "green": "#2f855a",
    "olive": "#556b2f",
    "mint": "#98d8c0",
    "dark blue": "#1e3a8a",
    "light blue": "#93c5fd",
    "sky blue": "#7dd3fc",
    "navy": "#1e2a5a",
    "blue": "#2563eb",
    "teal": "#0f766e",
    "turquoise": "#14b8a6",
    "dark red": "#7f1d1d",
    "burgundy": "#7f1d1d",
    "maroon": "#7f1d1d",
    "red": "#c53030",
    "coral": "#f26d5b",
    "orange": "#dd6b20",
    "yellow": "#d69e2e",
    "gold": "#b7791f",
    "brown": "#7b4a2a",
    "pink": "#d53f8c",
    "purple": "#6b46c1",
    "indigo": "#4338ca",
    "lavender": "#b8a9e3",
    "black": "#111111",
    "charcoal": "#333f48",
    "white": "#ffffff",
    "grey": "#6b7280",
    "gray": "#6b7280",
}
# Longest names first, so "dark green" is found before "green".
_NAMES = sorted(COLOURS, key=len, reverse=True)
_HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")
_WHITE = "#ffffff"
_DARK_TEXT = "#111111"


def colour_in(text: str) -> tuple[str, str] | None:
    """The first colour `text` names, as (the words it used, a CSS value)."""
    lowered = text.lower()
    hex_value = _HEX.search(lowered)
    if hex_value:
        return hex_value.group(0), hex_value.group(0)
    for name in _NAMES:
        if re.search(rf"\b{name}\b", lowered):
            return name, COLOURS[name]
    return None


def text_colour_on(background: str) -> str:
    """White or near-black, whichever reads better on `background`."""
    on_white = contrast(background, _WHITE)
    return _WHITE if on_white >= contrast(background, _DARK_TEXT) else _DARK_TEXT


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two hex colours (1 to 21)."""
    lighter, darker = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _luminance(value: str) -> float:
    digits = value.lstrip("#")
    if len(digits) == 3:
        digits = "".join(digit * 2 for digit in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def difference(first: str, second: str) -> float:
    """How different two hex colours look (CIE76 ΔE in CIELAB): about 2 is
    just noticeable, under 25 reads as "the same kind of colour"."""
    one, two = _lab(first), _lab(second)
    return float(sum((a - b) ** 2 for a, b in zip(one, two, strict=True)) ** 0.5)


def _lab(value: str) -> tuple[float, float, float]:
    digits = value.lstrip("#")
    if len(digits) == 3:
        digits = "".join(digit * 2 for digit in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    # sRGB (D65) to XYZ, scaled by the white point.
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    fx, fy, fz = (t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)
