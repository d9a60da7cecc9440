"""A vague wish for a site that is there ("make it nicer", "improve the site",
"fix the design", "looks boring") made concrete by the offline demo's
Improve (demo.improving): one or two changes drawn from the site, each
one the demo would make when sent (demo.planner.would_change), in the
order that helps most:

- a colour pair that reads poorly (the header's text on the header, the
  buttons' text, the page's text on its background, the headings and links
  on the page), under the contrast text needs;
- for a wish about the look, a picture where the page has none, softer
  buttons, another header colour;
- for any other, a section a site of its kind has and this one lacks
  (demo.suggestions), then a picture.

Each is said the way the demo understands it; the two are different kinds of
change, so the second can follow the first as its own turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from demo.colours import COLOURS, contrast, difference
from demo.holds import Site
from demo.rules import Rules
from demo.suggestions import Kind, fitting

_VAGUE = re.compile(
    r"\b(?:nicer|better|prettier|improve\w*|polish\w*|boring|dull|bland|ugly|plain|"
    r"modern\w*|fresh\w*|sleek\w*|slick|clean(?:er|\s+up)?|spruce|tidy|beautiful|pretty|"
    r"attractive|appealing|stylish|fancy|cool|pop|design|looks?|professional|amateur\w*|"
    r"meh|wow|nice|good|great|lovely|sexy|dated|old-fashioned|ok|okay|work\s+on|"
    r"don'?t\s+like|do\s+not\s+like|not\s+happy|hate)\b",
    re.IGNORECASE,
)
_LOOK = re.compile(
    r"\b(?:boring|dull|bland|ugly|plain|design|look\w*|pretty|prettier|beautiful|"
    r"stylish|fancy|pop|sleek|modern\w*|dated|old-fashioned|attractive|colou?r\w*)\b",
    re.IGNORECASE,
)
# Text needs 4.5:1 against what is behind it; large headings 3:1 (WCAG AA).
_TEXT = 4.5
# (the text's variable, the one behind it, the request that makes them read
# well: the demo's recolouring sets the text on a colour to what reads best).
_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("--header-text", "--header-bg", "Keep the header {}, with text that reads well on it."),
    ("--accent-text", "--accent", "Keep the accent colour {}, with button text that reads well."),
    ("--text", "--page-bg", "Keep the background {}, with text that reads well on it."),
)


def is_vague(draft: str) -> bool:
    """Whether `draft` wishes the site better without saying how."""
    return _VAGUE.search(draft) is not None and len(draft.split()) <= 25


@dataclass(frozen=True)
class Idea:
    kind: str  # "contrast", or a kind of demo.suggestions.Chip
    request: str  # a contrast's in its final words; a chip's, for Improve to word


def concrete(
    draft: str, site: Site, rules: Rules, *, changes: Callable[[str], bool]
) -> tuple[Idea, ...]:
    """One or two changes drawn from `site` for the vague `draft`, each of a
    different kind and one the demo would carry out (`changes`); none when
    it finds nothing it could change."""
    chosen: list[Idea] = []
    kinds: set[str] = set()
    for idea in _ideas(draft, site, rules):
        if len(chosen) == 2 or idea.kind in kinds or not changes(idea.request):
            continue
        chosen.append(idea)
        # Contrast and another colour are both the colours: not two of them.
        kinds |= {"contrast", "colour"} if idea.kind in ("contrast", "colour") else {idea.kind}
    return tuple(chosen)


def _ideas(draft: str, site: Site, rules: Rules) -> list[Idea]:
    """Every change that would help, best first."""
    offered = fitting(site, rules)
    looks = _LOOK.search(draft) is not None
    kinds: tuple[Kind, ...] = (
        ("colour", "buttons", "section") if looks else ("section", "buttons", "colour")
    )
    ideas = [Idea("contrast", request) for request in _contrast(site)]
    if looks and not site.has_pictures:  # a picture first: what a plain page misses most
        ideas += [Idea("section", c.text) for c in offered["section"] if c.topic == "gallery"]
    for kind in (*kinds, "page", "tone"):
        ideas += [Idea(kind, chip.text) for chip in offered[kind]]
    return ideas


def _contrast(site: Site) -> Iterator[str]:
    """Requests that make a colour pair that reads poorly read well."""
    for front, behind, ask in _PAIRS:
        text, back = _hex(site.variable(front)), _hex(site.variable(behind))
        if text and back and contrast(text, back) < _TEXT:
            yield ask.format(back)
    accent, page = _hex(site.variable("--accent")), _hex(site.variable("--page-bg"))
    if accent and page and contrast(accent, page) < _TEXT:
        better = _readable_near(accent, page)
        if better is not None:
            yield (
                f"Make the accent colour {better} (the headings, links and buttons), "
                "so they read well on the page."
            )


def _readable_near(colour: str, page: str) -> str | None:
    """The named colour closest to `colour` that reads well on `page`."""
    readable = [
        name
        for name, value in COLOURS.items()
        if contrast(value, page) >= _TEXT and name not in ("white", "black")
    ]
    return min(readable, key=lambda name: difference(COLOURS[name], colour), default=None)


def _hex(value: str | None) -> str | None:
    if value is None or not re.fullmatch(r"#(?:[0-9a-fA-F]{3}){1,2}", value):
        return None
    return value.lower()
