"""What the offline demo chose when a description left it open, and what to
ask next after a build.

A description need not say everything: "a bakery" has no name, "a blog about
hiking" names no sections, "Crumb" says not what Crumb is. The demo builds
anyway, with a name to replace ("Your bakery"), the kind's usual sections or a
general one-page site, and its answer says so: one line each, and the first
suggestions under the answer change them (each a request the demo itself
understands: rename the site, replace it with a kind of place, add a page).
The other suggestions are next steps the site does not have yet: a section,
another header colour, a page.
"""

from __future__ import annotations

import re

from chat.demo.colours import COLOURS
from chat.demo.kinds import a_or_an
from chat.demo.looks import look_for
from chat.demo.rules import Rules
from chat.demo.site import Brief

_MOST = 3  # suggestions, as chat.next_steps keeps
_LONGEST = 150  # characters: a suggestion is cut at 160
# A name to put in when the person gave none, by kind; else "Riverside <label>".
_EXAMPLE_NAMES = {
    "bakery": "Crumb",
    "café": "Morning Cup",
    "coffee shop": "Bean There",
    "restaurant": "Casa Verde",
    "portfolio": "Ada Park",
    "photography studio": "Ana Lima Photography",
    "wedding": "Sam & Alex",
    "shop": "Wick & Wax",
    "band": "Static",
    "blog": "Trail Notes",
    "app": "Tally",
    "product": "Tally",
    "site": "Crumb",
}
# Sections worth adding next, by kind, the first one the site lacks offered.
_MORE_SECTIONS = {
    "bakery": ("testimonials", "gallery", "faq"),
    "café": ("testimonials", "gallery", "faq"),
    "coffee shop": ("testimonials", "gallery", "faq"),
    "restaurant": ("testimonials", "gallery", "faq"),
    "class": ("testimonials", "faq", "team"),
    "event": ("faq", "gallery", "team"),
    "wedding": ("gallery", "faq", "location"),
    "band": ("gallery", "testimonials", "about"),
    "blog": ("gallery", "about", "contact"),
}
_USUAL_MORE = ("testimonials", "faq", "gallery", "team", "pricing")
_SECTION_WORDS = {"testimonials": "testimonials", "faq": "FAQ"}
_HEADER_COLOURS = ("dark green", "navy", "teal", "burgundy")


def assumed_note(brief: Brief) -> str:
    """What the answer says the demo chose itself; "" when the words said it all."""
    chosen = []
    if not brief.named:
        chosen.append(f"you gave no name, so I called it “{brief.name}” for now")
    if not brief.kind_named:
        chosen.append("I couldn't tell what kind of place it is, so it is a general one-page site")
    if not brief.sections_named:
        usual = _listed([heading.lower() for _, heading, _ in brief.sections])
        whose = "a general site's" if not brief.kind_named else f"{a_or_an(brief.called)}'s"
        chosen.append(f"you named no sections, so it has {whose} usual ones: {usual}")
    if brief.added:
        chosen.append(
            f"it also has {a_or_an(brief.added.lower())} section, which no "
            f"{brief.called} site should be without"
        )
    if brief.as_pages:
        pages = _listed([heading.lower() for heading in brief.as_pages])
        chosen.append(
            f"it is one page: the {pages} you asked for as pages are sections of it (ask "
            f"“{_page_request(brief.as_pages[0])}” for a page of its own)"
        )
    if not chosen:
        return ""
    lines = "\n".join(f"- {line[:1].upper()}{line[1:]}." for line in chosen)
    return f"What I assumed (a suggestion below changes it, or say it your way):\n{lines}"


def build_next(brief: Brief, rules: Rules) -> tuple[str, ...]:
    """The suggestions after a build: changing what was assumed first, then
    what the site does not have yet."""
    offers = list(assumed_next(brief))
    present = {section_id for section_id, _, _ in brief.sections}
    # A way to reach them first, where the site has none.
    reach = () if present & {"contact", "rsvp"} else ("contact",)
    wanted = (*reach, *_MORE_SECTIONS.get(brief.kind, _USUAL_MORE))
    more = next((s for s in wanted if s not in present), None)
    if more is not None:
        offers.append(f"Add {a_or_an(_SECTION_WORDS.get(more, more))} section")
    offers.append(_header_colour(brief, rules))
    offers.append("Add an about page")
    return tuple(offer[:_LONGEST] for offer in dict.fromkeys(offers))[:_MOST]


def assumed_next(brief: Brief) -> tuple[str, ...]:
    """The suggestions that change what the demo assumed: the name it chose,
    a general site for a kind of place, a section for a page asked for."""
    offers = []
    if not brief.named:
        offers.append(f"Rename the site to {_example_name(brief)}")
    if not brief.kind_named:
        called = f" called {brief.name}" if brief.named else ""
        offers.append(f"Replace the site with a shop{called}")
    if brief.as_pages:
        offers.append(_page_request(brief.as_pages[0]))
    return tuple(offers)


def site_next(read: dict[str, str]) -> tuple[str, str]:
    """Two changes for the site there is (its files as read): a section it
    does not have, and a header colour it does not have."""
    page = read.get("/index.html", "")
    header = re.search(r"--header-bg:\s*([^;]+);", read.get("/styles.css", ""))
    more = next((s for s in _USUAL_MORE if f'id="{s}"' not in page), "faq")
    current = header.group(1).strip().lower() if header else ""
    name = next(n for n in (*_HEADER_COLOURS, "dark blue") if COLOURS[n] != current)
    return f"Add {a_or_an(_SECTION_WORDS.get(more, more))} section", f"Make the header {name}"


def _example_name(brief: Brief) -> str:
    return _EXAMPLE_NAMES.get(brief.kind) or "Riverside " + brief.called.title()


def _header_colour(brief: Brief, rules: Rules) -> str:
    header = look_for(brief.kind, colour=brief.colour).header_bg
    taken = {header, rules.colour[1] if rules.colour else ""}
    name = next(n for n in _HEADER_COLOURS if COLOURS[n] not in taken)
    return f"Make the header {name}"


def _page_request(heading: str) -> str:
    return f"Add {a_or_an(heading.lower())} page"


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
