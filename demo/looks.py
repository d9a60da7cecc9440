"""How a site the offline demo builds looks, chosen by the kind of place: a
palette and a pair of fonts each (a bakery's warm cream and brown with serif
headings, a portfolio's black and white, a band's dark page…), and the
stylesheet they fill in.

Every colour and font is a CSS custom property at the top of styles.css, so a
later "make the header dark green" or "make the buttons rounded" is a one-line
edit (demo.tweaks), and the owner's instructions (a main colour, a font:
demo.rules) only change which values go in.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from demo.colours import contrast, text_colour_on
from demo.rules import Font
from demo.stylesheet import RULES, VARIABLES

SANS = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'
SERIF = 'Georgia, "Iowan Old Style", "Times New Roman", serif'
_HUMANIST = '"Avenir Next", "Segoe UI", "Trebuchet MS", system-ui, sans-serif'
_BOOK = '"Palatino Linotype", Palatino, "Book Antiqua", Georgia, serif'
_BOLD = 'Impact, Haettenschweiler, "Arial Narrow Bold", system-ui, sans-serif'


@dataclass(frozen=True)
class Look:
    words: str  # how it looks, in a few words for the person
    header_bg: str
    accent: str  # headings, links and buttons: readable on page_bg
    page_bg: str
    text: str
    muted: str
    surface: str  # cards and quotes
    line: str  # rules between sections
    heading_font: str = SANS
    body_font: str = SANS
    button_radius: str = "0.375rem"


_WARM = Look(
    "warm cream and chocolate brown, with terracotta serif headings",
    header_bg="#4a2c1d",
    accent="#a4471f",
    page_bg="#fdf6ec",
    text="#2d1f16",
    muted="#6b5444",
    surface="#fffaf3",
    line="#ecdcc8",
    heading_font=SERIF,
    button_radius="0.5rem",
)
LOOKS: dict[str, Look] = {
    "bakery": _WARM,
    "café": Look(
        "cinnamon headings on an oat page under a deep green top bar",
        header_bg="#23392d",
        accent="#9c4a1a",
        page_bg="#f7f2ea",
        text="#22231f",
        muted="#5f5a50",
        surface="#fffdf8",
        line="#e3d9c9",
        heading_font=_HUMANIST,
        body_font=_HUMANIST,
        button_radius="1.5rem",
    ),
    "restaurant": Look(
        "deep red serif headings on an ivory page under a burgundy top bar",
        header_bg="#3b0d14",
        accent="#8c1c2b",
        page_bg="#fbf8f3",
        text="#231a17",
        muted="#5e534d",
        surface="#ffffff",
        line="#e8dfd4",
        heading_font=_BOOK,
        body_font=_BOOK,
        button_radius="0.25rem",
    ),
    "portfolio": Look(
        "bold black type on white, with blue links",
        header_bg="#111111",
        accent="#1d4ed8",
        page_bg="#ffffff",
        text="#111111",
        muted="#52525b",
        surface="#f4f4f5",
        line="#e4e4e7",
        button_radius="0",
    ),
    "photography studio": Look(
        "quiet charcoal and stone, with burnt-orange headings",
        header_bg="#1c1917",
        accent="#b4410f",
        page_bg="#f5f5f4",
        text="#1c1917",
        muted="#57534e",
        surface="#ffffff",
        line="#e7e5e4",
        heading_font=_HUMANIST,
    ),
    "shop": Look(
        "teal headings on pale mint under a dark teal top bar",
        header_bg="#134e4a",
        accent="#0f766e",
        page_bg="#f3fbf9",
        text="#12302c",
        muted="#4b635f",
        surface="#ffffff",
        line="#d3ebe6",
        button_radius="0.75rem",
    ),
    "studio": Look(
        "violet headings on a soft lilac page under an ink-blue top bar",
        header_bg="#272462",
        accent="#6d28d9",
        page_bg="#faf7ff",
        text="#1e1b3a",
        muted="#5b5775",
        surface="#ffffff",
        line="#e6e0f5",
        heading_font=_HUMANIST,
        body_font=_HUMANIST,
    ),
    "band": Look(
        "hot pink on a black stage, with big condensed headings",
        header_bg="#000000",
        accent="#f472b6",
        page_bg="#121212",
        text="#f4f4f5",
        muted="#a1a1aa",
        surface="#1f1f23",
        line="#2e2e33",
        heading_font=_BOLD,
        button_radius="0",
    ),
    "wedding": Look(
        "rose serif headings on a blush page under a sage top bar",
        header_bg="#4d6150",
        accent="#95434f",
        page_bg="#fcf7f5",
        text="#2e2a28",
        muted="#6a605c",
        surface="#ffffff",
        line="#eddfd9",
        heading_font=_BOOK,
        body_font=_BOOK,
        button_radius="2rem",
    ),
    "product": Look(
        "indigo headings and buttons on cool white, clean and modern",
        header_bg="#1e1b4b",
        accent="#4338ca",
        page_bg="#f8fafc",
        text="#0f172a",
        muted="#475569",
        surface="#ffffff",
        line="#e2e8f0",
        button_radius="0.5rem",
    ),
    "blog": Look(
        "ink-blue serif type on paper, made for reading",
        header_bg="#1f2a44",
        accent="#9a3412",
        page_bg="#fffdf7",
        text="#1f2937",
        muted="#57534e",
        surface="#ffffff",
        line="#ece6d9",
        heading_font=SERIF,
        body_font=SERIF,
    ),
    "class": Look(
        "sage green and sand, calm and light, with soft rounded buttons",
        header_bg="#2f4a3a",
        accent="#3d6b52",
        page_bg="#f6f7f2",
        text="#1f2a24",
        muted="#55615a",
        surface="#ffffff",
        line="#dfe5da",
        heading_font=_HUMANIST,
        body_font=_HUMANIST,
        button_radius="2rem",
    ),
    "event": Look(
        "deep plum and berry on a warm page, with bold headings",
        header_bg="#3b1c4a",
        accent="#8a2f6e",
        page_bg="#fffaf2",
        text="#27172e",
        muted="#62536a",
        surface="#ffffff",
        line="#efe2d3",
        heading_font=_BOLD,
        button_radius="0.25rem",
    ),
    "club": Look(
        "pitch green and chalk white, with bold headings",
        header_bg="#14532d",
        accent="#166534",
        page_bg="#f6faf6",
        text="#142419",
        muted="#4b5e51",
        surface="#ffffff",
        line="#d9e8dc",
        heading_font=_BOLD,
    ),
    "school": Look(
        "navy and cherry red on a warm white page, like a school jumper",
        header_bg="#1e3a5f",
        accent="#b42318",
        page_bg="#fbfaf7",
        text="#1c2431",
        muted="#535b66",
        surface="#ffffff",
        line="#e6e1d8",
        heading_font=SERIF,
    ),
}
LOOKS |= {"coffee shop": LOOKS["café"], "app": LOOKS["product"]}
# A business the demo has no kind for: calm slate blue and copper.
PLAIN = Look(
    "copper headings on a light page under a slate-blue top bar",
    header_bg="#1f3a56",
    accent="#a64b12",
    page_bg="#f8fafc",
    text="#1e293b",
    muted="#526074",
    surface="#ffffff",
    line="#e2e8f0",
)


def look_for(kind: str, *, colour: str | None = None, font: Font | None = None) -> Look:
    """The look of a `kind` of site, with the main `colour` and the `font` the
    person asked for, where they did."""
    look = LOOKS.get(kind, PLAIN)
    if colour:
        look = replace(look, header_bg=colour)
        if contrast(colour, look.page_bg) >= 3:  # the heading is large text: 3:1 reads
            look = replace(look, accent=colour)
    if font == "serif":
        look = replace(look, heading_font=SERIF, body_font=SERIF)
    elif font == "sans":
        look = replace(look, heading_font=SANS, body_font=SANS)
    return look


def stylesheet(look: Look) -> str:
    return (
        VARIABLES.format(
            header_bg=look.header_bg,
            header_text=text_colour_on(look.header_bg),
            accent=look.accent,
            accent_text=text_colour_on(look.accent),
            page_bg=look.page_bg,
            surface=look.surface,
            text=look.text,
            muted=look.muted,
            line=look.line,
            button_radius=look.button_radius,
            heading_font=look.heading_font,
            body_font=look.body_font,
        )
        + RULES
    )
