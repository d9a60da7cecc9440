"""The offline demo's "Improve my request" (chat.agent.improving): the draft in
the message box rewritten the way the demo itself would like to read it.

For a new site: the kind of site and its name, the sections it gets with what
each should hold (in brackets, for the person to fill in: their own prices and
address, where the demo would write examples), a tone and the look the demo
builds for the kind (chat.demo.looks), or the colour the person named. For a
small change: the change said the way the demo understands it. Deterministic,
and worded so that sending the rewrite asks the demo for the same thing it
rewrote (tests/demo/test_demo_improve.py holds it to that). A draft the demo
does not understand, or says plainly already, comes back as it was.
"""

from __future__ import annotations

import re
from typing import Any

from chat.demo.colours import colour_in
from chat.demo.intents import HEADING, PAGE, Intent, intent_of, section_asked
from chat.demo.looks import look_for
from chat.demo.reading import text_of
from chat.demo.site import SECTIONS, Brief, brief_from
from chat.demo.steps import Step

# The opening words of the improve request's system message, written there
# (chat.agent.improving) and recognised here.
IMPROVE_MARKER = (
    "You rewrite a person's request to Built-It, a website builder, before they send it."
)

# What each section should hold, as the person's part to fill in; by section id.
# No word here may name another section or kind of site (chat.demo.site reads them).
_HOLDS = {
    "menu": "[what you sell, and what each costs]",
    "contact": "[address, phone and email]",
    "about": "[who you are and how it began]",
    "gallery": "[six to eight photos]",
    "pricing": "[your prices or packages]",
    "testimonials": "[two or three quotes from customers, with their names]",
    "services": "[what you offer, one line each]",
    "team": "[names, roles and a photo of each person]",
    "faq": "[the questions people ask most, with answers]",
    "hours": "[the days and times you are open]",
    "location": "[address and how to get there]",
    "projects": "[three to six recent pieces, with a line on each]",
    "blog": "[your latest news]",
    "events": "[dates, places and what is on]",
}
_TONES = {
    "bakery": "warm and welcoming",
    "café": "relaxed and friendly",
    "coffee shop": "relaxed and friendly",
    "restaurant": "inviting, with a taste of the food in every line",
    "portfolio": "confident and simple",
    "photography studio": "calm, letting the pictures speak",
    "band": "bold and lively",
    "wedding": "joyful and personal",
    "product": "clear and confident",
    "blog": "personal and easy to read",
}
# A site's words that make a colour request a new site's ("a green site for my bakery").
_SITE = re.compile(r"\b(site|website|landing|portfolio)\b")


def improve_step(body: dict[str, Any]) -> Step | None:
    """The demo's answer when `body` asks to improve a request; None otherwise."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    system = next((text_of(m) for m in messages if m.get("role") == "system"), "")
    if not system.startswith(IMPROVE_MARKER):
        return None
    draft = next((text_of(m) for m in reversed(messages) if m.get("role") == "user"), "")
    return Step(
        "Rewriting the request so that it says what to build, in words I understand.",
        improved(draft.strip()),
    )


def improved(draft: str) -> str:
    """`draft` as the demo would like to read it; as it was when the demo cannot tell."""
    match _intent(draft):
        case "build":
            return _site(brief_from(draft), colour_in(draft.lower()))
        case "colour":
            return _recolour(draft.lower())
        case "heading":
            return _reheading(draft)
        case "section":
            return _section(draft)
        case "page":
            return _page(draft.lower())
        case "remember" | "text" | "buttons" | "fix" | "translate" | "help":
            return draft  # a wish to keep, said plainly already, or one it cannot do


def _intent(draft: str) -> Intent:
    intent = intent_of(draft)
    if intent == "colour" and _SITE.search(draft.lower()):
        return "build"
    return intent


def _site(brief: Brief, colour: tuple[str, str] | None) -> str:
    kind = brief.kind
    what = "a one-page website" if kind == "site" else f"a one-page website for my {kind}"
    if kind == "product":  # the demo knows a product's site as a landing page
        what = "a one-page landing site for my product"
    named = not brief.name.startswith("Your ")
    name = f"“{brief.name}”" if named else f"[{'site' if kind == 'site' else kind} name]"
    sections = "\n".join(
        f"- {heading}: {_HOLDS.get(sid, '[what it says]')}"
        for sid, heading in _in_order(brief.sections)
    )
    # The demo builds in its own colours: a colour asked for is a second request.
    # How the demo's build looks for the kind (chat.demo.looks), said as a request.
    look = f"{colour[0]} as the main colour" if colour else look_for(kind, font=brief.font).words
    return (
        f"Build {what}, called {name}.\n\n"
        f"Sections:\n{sections}\n\n"
        f"Tone: {_TONES.get(kind, 'friendly and clear')}; short sentences.\n"
        f"Look: {look}; easy to read on phones."
    )


def _in_order(sections: tuple[tuple[str, str, str], ...]) -> list[tuple[str, str]]:
    """The sections, contact last, each named by its id: the word the demo
    finds again when the rewrite is sent (chat.demo.site.SECTIONS)."""
    ids = sorted((sid for sid, _, _ in sections), key=lambda sid: sid == "contact")
    return [(sid, sid.upper() if sid == "faq" else sid.capitalize()) for sid in ids]


def _recolour(lowered: str) -> str:
    colour = (colour_in(lowered) or ("", ""))[0]
    # Where, as the demo's recolouring reads it (chat.demo.planner._recolour).
    if "header" in lowered:
        return f"Make the header {colour}, keeping its text easy to read."
    if "background" in lowered:
        # Not "make the page …": the demo would read that as a page to add.
        return f"Make the background {colour}, keeping the text easy to read."
    return f"Make the accent colour {colour} (the headings and links)."


def _reheading(draft: str) -> str:
    found = HEADING.search(draft)
    new = found.group(1).strip() if found else "[the new heading]"
    return f"Change the main heading of the home page to “{new}”."


def _section(draft: str) -> str:
    asked = section_asked(draft)
    if asked is None or not asked.words:
        return "Add a section called [its name] at the end of the home page."
    if asked.named:  # its name ends the request, for the demo to read it whole
        return f"Add a section called “{asked.words}”."
    word = asked.words
    sid = next((v[0] for key, v in SECTIONS.items() if word.startswith(key)), "")
    holds = _HOLDS.get(sid, "[what it should say]")
    return f"Add a {word} section at the end of the home page, with {holds}."


def _page(lowered: str) -> str:
    found = PAGE.search(lowered)
    slug = found.group(1) if found else "new"
    article = "an" if slug[:1] in "aeiou" else "a"
    return (
        f"Add {article} {slug} page, linked from the navigation of every page, "
        f"with [what the {slug} page should say]."
    )
