"""What the offline demo chose when a description left it open, and the
suggestions that change it.

A description need not say everything: "a bakery" has no name, "a blog about
hiking" names no sections, "Crumb" says not what Crumb is. The demo builds
anyway, with a name to replace ("Your bakery"), the kind's usual sections or a
general one-page site, and its answer says so: one line each, and the first
suggestions under the answer change them (each a request the demo itself
understands: rename the site, replace it with a kind of place, add a page).
The other suggestions are chosen from what the site lacks (demo.suggestions).
"""

from __future__ import annotations

from demo.kinds import a_or_an
from demo.site import Brief

# A name to suggest when the person gave none, by what they called the place
# (the kind's own word); else "Riverside <what they called it>".
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


def _example_name(brief: Brief) -> str:
    # By what the person called it: a "repair shop" is of the kind "shop", but
    # a candle shop's name would read as a mistake for it.
    return _EXAMPLE_NAMES.get(brief.called) or "Riverside " + brief.called.title()


def _page_request(heading: str) -> str:
    return f"Add {a_or_an(heading.lower())} page"


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
