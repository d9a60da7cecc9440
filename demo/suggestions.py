"""The follow-up requests the offline demo ends an answer with (the chips under
a turn, chat.next_steps): chosen from the site as the turn left it
(demo.holds), never what it has already (a section or a page on the
same topic, the header's colour or one that reads the same, rounded buttons
on rounded buttons), and each one a change the demo would make if it were
sent now (the planner checks by working the change out on the site as read).

After each kind of turn a few kinds of change come first (`NEXT_STEPS`), one
chip of each kind, so the chips read as three different ideas; the rest of
the catalogue fills in where those have nothing left to offer. A look the
person chose in the conversation (a header colour, the buttons' shape, a
tone) is theirs: no other shade of it is offered after.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Literal

from demo.colours import COLOURS, difference
from demo.holds import Site
from demo.intents import Intent, intent_of
from demo.rules import Rules
from demo.site import kind_in

Kind = Literal["section", "page", "colour", "buttons", "tone"]
MAX_NEXT = 3
# Two colours closer than this read as the same kind of colour ("dark blue"
# and "navy"): a header colour is proposed only further than this from the
# header's and the instructions' main colour.
ALIKE = 30.0


@dataclass(frozen=True)
class Chip:
    text: str  # the request, as the demo understands it (demo.intents)
    kind: Kind
    topic: str  # a section id (demo.site.SECTIONS), a page's name, a colour's…


def _section(topic: str, words: str) -> Chip:
    article = "an" if words[:1].lower() in "aeiou" else "a"
    return Chip(f"Add {article} {words} section", "section", topic)


def _page(topic: str) -> Chip:
    article = "an" if topic[:1] in "aeiou" else "a"
    return Chip(f"Add {article} {topic} page", "page", topic)


# Everything the demo may offer, by kind, in the order it offers them.
SECTION_CHIPS = (
    _section("testimonials", "testimonials"),
    _section("faq", "FAQ"),
    _section("gallery", "gallery"),
    _section("services", "services"),
    _section("pricing", "pricing"),
    _section("team", "team"),
    _section("hours", "opening hours"),
    _section("location", "location"),
    _section("events", "events"),
)
PAGE_CHIPS = (_page("about"), _page("contact"), _page("blog"))
HEADER_COLOURS = ("navy", "teal", "burgundy", "dark green")
COLOUR_CHIPS = tuple(Chip(f"Make the header {name}", "colour", name) for name in HEADER_COLOURS)
BUTTON_CHIPS = (Chip("Make the buttons rounded", "buttons", "rounded"),)
TONE_CHIPS = (Chip("Make the tone friendlier", "tone", "friendly"),)
CHIPS: tuple[Chip, ...] = (
    *SECTION_CHIPS,
    *PAGE_CHIPS,
    *COLOUR_CHIPS,
    *BUTTON_CHIPS,
    *TONE_CHIPS,
)
# Sections that suit a kind of site (demo.site.KINDS), in the order they
# are offered; a kind not named here gets them all but events.
_FOOD = ("testimonials", "gallery", "faq", "hours", "location", "services", "team")
_SUITS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("bakery", "café", "coffee shop", "restaurant"), _FOOD),
    "wedding": ("gallery", "faq", "location", "events"),
    "band": ("gallery", "events", "testimonials", "faq", "team"),
    "blog": ("gallery", "events", "faq"),
    "portfolio": ("testimonials", "services", "pricing", "faq", "gallery", "team"),
    "photography studio": ("testimonials", "faq", "gallery", "services", "team"),
    "product": ("testimonials", "faq", "pricing", "services", "team"),
    "app": ("testimonials", "faq", "pricing", "services", "team"),
}
_USUAL = tuple(chip.topic for chip in SECTION_CHIPS if chip.topic != "events")
_NO_BLOG = {"wedding", "blog"}

# What to offer after each kind of turn: the kinds of change, first to last.
NEXT_STEPS: dict[Intent, tuple[Kind, ...]] = {
    "build": ("section", "colour", "page"),
    "colour": ("section", "page", "buttons"),
    "heading": ("section", "colour", "page"),
    "text": ("buttons", "section", "page"),
    "section": ("section", "page", "colour"),
    "page": ("section", "colour", "buttons"),
    "buttons": ("section", "colour", "page"),
    "fix": ("section", "buttons", "page"),
    "problems": ("section", "colour", "page"),
    "tone": ("section", "colour"),
    "remember": ("section", "page", "colour"),
    "rename": ("section", "colour", "page"),
    "translate": (),
    "help": (),
}
_FALLBACK: tuple[Kind, ...] = ("section", "page", "colour", "buttons", "tone")
# The kinds of change that are a look the person chooses, by the intent that chooses it.
_LOOKS: dict[Intent, Kind] = {"colour": "colour", "buttons": "buttons", "tone": "tone"}


def next_steps(
    intent: Intent,
    site: Site,
    rules: Rules,
    *,
    asked: Collection[Intent] = (),
    first: tuple[str, ...] = (),
    changes: Callable[[str], bool],
) -> tuple[str, ...]:
    """Up to three requests to offer after a turn of `intent` on `site`:
    `asked`, what the person asked for in the conversation before;
    `first`, the rest of their request, before the others;
    `changes(request)`: whether the demo would change the site if sent it."""
    chosen = list(dict.fromkeys(first))[:MAX_NEXT]
    if not NEXT_STEPS[intent]:
        return tuple(chosen)
    offered = fitting(site, rules, asked={intent, *asked, *map(intent_of, first)})
    # Nothing the rest of the request asks for already, in other words.
    said = " ".join(first).lower()
    # One of each kind, those that come first after this turn first: three
    # different ideas, never three shades of one.
    for kind in dict.fromkeys((*NEXT_STEPS[intent], *_FALLBACK)):
        if len(chosen) >= MAX_NEXT:
            break
        found = next((c for c in offered[kind] if c.topic not in said and changes(c.text)), None)
        if found is not None:
            chosen.append(found.text)
    return tuple(chosen)


def fitting(site: Site, rules: Rules, *, asked: Collection[Intent] = ()) -> dict[Kind, list[Chip]]:
    """The chips that `site` does not have already, by kind, in order;
    none of a look the person chose (`asked`: what they asked for)."""
    chosen = {_LOOKS[intent] for intent in asked if intent in _LOOKS}
    return {
        kind: ([] if kind in chosen else list(_FITTING[kind](site, rules))) for kind in _FALLBACK
    }


def _sections(site: Site, rules: Rules) -> Iterator[Chip]:
    suits = _SUITS.get(kind_in(site.home), _USUAL)
    chips = sorted(
        (chip for chip in SECTION_CHIPS if chip.topic in suits),
        key=lambda chip: suits.index(chip.topic),
    )
    return (chip for chip in chips if not site.has_topic(chip.topic))


def _pages(site: Site, rules: Rules) -> Iterator[Chip]:
    kind = kind_in(site.home)
    for chip in PAGE_CHIPS:
        if chip.topic == "blog" and kind in _NO_BLOG:
            continue
        if not site.has_topic(chip.topic):
            yield chip


def _colours(site: Site, rules: Rules) -> Iterator[Chip]:
    header = site.header_colour
    if header is None:
        return
    # The instructions' main colour is the one to offer, where the header has left it.
    names = (rules.colour[0],) if rules.colour else HEADER_COLOURS
    values = {name: COLOURS.get(name, name) for name in names}
    for name, value in values.items():
        if difference(value, header) >= ALIKE:
            yield Chip(f"Make the header {name}", "colour", name)


def _buttons(site: Site, rules: Rules) -> Iterator[Chip]:
    if site.has_buttons and not site.buttons_rounded:
        yield from BUTTON_CHIPS


def _tones(site: Site, rules: Rules) -> Iterator[Chip]:
    if rules.tone is None:  # never against the tone the instructions set
        yield from TONE_CHIPS


_FITTING: dict[Kind, Callable[[Site, Rules], Iterator[Chip]]] = {
    "section": _sections,
    "page": _pages,
    "colour": _colours,
    "buttons": _buttons,
    "tone": _tones,
}
