"""The offline demo's "Improve my request" (chat.agent.improving): the draft in
the message box rewritten the way the demo itself would like to read it.

For a new site: the kind of site and its name, the sections it gets with what
each should hold (in brackets, for the person to fill in: their own prices and
address, where the demo would write examples), a tone and the look the demo
builds for the kind (demo.looks), or the colour the person named. For a
small change: the change said the way the demo understands it; of a draft
with several parts, each part it understands rewritten and the others kept
word for word (demo.parts), so no part is lost. For a vague wish ("make
it nicer", "looks boring"): one or two concrete changes drawn from the site
the request shows (its home page and stylesheet: demo.vague), or a new
site where there is none yet. Deterministic, and worded so that sending the
rewrite asks the demo for the same thing it rewrote, which changes the site
(tests/demo/test_demo_improve.py holds it to that). Any other draft the demo
does not understand, or says plainly already, comes back as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from chat.asks import IMPROVE_TASK
from demo.colours import colour_in
from demo.holds import HOME, Site
from demo.intents import HEADING, PAGE, Intent, intent_of, section_asked
from demo.looks import look_for
from demo.parts import parts_of
from demo.planner import would_change
from demo.reading import text_of, tidy
from demo.rules import Rules
from demo.site import SECTIONS, Brief, brief_from
from demo.steps import Step
from demo.tones import TONE_NAMES, tone_asked
from demo.vague import concrete, is_vague
from projects.starter import STARTER_FILES

# What each section should hold, as the person's part to fill in; by section id.
# No word here may name another section or kind of site (demo.site reads them).
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
# Who a site is for, in the person's words: "for my dog walking business".
_FOR = re.compile(
    r"\bfor\s+(?:my|our|an?)\s+(?:[a-z][\w'\u2019-]*\s+){0,4}?[a-z][\w'\u2019-]*"
    r"(?=\s*(?:$|[,.;:!?]|\s(?:called|named|with|that|which|where|and|in|on|at|to|please)\b))",
    re.IGNORECASE,
)
# The name to fill in, where "[kind name]" does not read well.
_NAME_TO_FILL = {
    "site": "[site name]",
    "wedding": "[your names]",
    "product": "[product name]",
    "portfolio": "[your name]",
}
# A site's words that make a colour request a new site's ("a green site for my bakery").
_SITE = re.compile(r"\b(site|website|landing|portfolio)\b")
# What the request shows of the project (chat.agent.improving._context): its
# files, and its home page and stylesheet, each framed by its path.
_FILES = re.compile(r"^Its files: (?P<paths>.*?)(?: and \d+ more)?\.$", re.MULTILINE)
_SHOWN = re.compile(
    r"^--- (?P<path>/\S+) ---\n(?P<text>.*?)\n--- end of (?P=path) ---$", re.MULTILINE | re.DOTALL
)
# When the site has everything the demo could add: the one change left to say.
_ANY_COLOUR = "Make the header [a colour you like], keeping its text easy to read."


def improve_step(body: dict[str, Any]) -> Step | None:
    """The demo's answer when `body` asks to improve a request; None otherwise."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    system = next((m.get("content") for m in messages if m.get("role") == "system"), "")
    if not isinstance(system, str) or not system.startswith(IMPROVE_TASK):
        return None
    draft = next((text_of(m) for m in reversed(messages) if m.get("role") == "user"), "")
    return Step(
        "Rewriting the request so that it says what to build, in words I understand.",
        improved(draft.strip(), site_shown(system)),
    )


def site_shown(system: str) -> Site:
    """The project as the request shows it: its files, and the texts of those shown."""
    listed = _FILES.search(system)
    paths = listed.group("paths").split(", ") if listed else []
    texts = {found.group("path"): found.group("text") for found in _SHOWN.finditer(system)}
    return Site(tuple(dict.fromkeys([*paths, *texts])), texts)


def improved(draft: str, site: Site | None = None) -> str:
    """`draft` as the demo would like to read it; as it was when the demo
    cannot tell. A draft asking for several changes has each part the demo
    understands rewritten and the others kept word for word (demo.parts);
    a vague wish becomes changes drawn from `site` (the project as shown)."""
    draft = tidy(draft)  # as the demo reads every message (demo.reading)
    site = site or Site((), {})
    parts = parts_of(draft) if _intent(draft) != "build" else [draft]
    if len(parts) > 1:
        return "\n".join(_sentence(_part_improved(part, site)) for part in parts)
    return _part_improved(draft, site)


def _part_improved(part: str, site: Site) -> str:
    if _intent(part) == "help" and is_vague(part):
        return _made_concrete(part, site)
    return _improved_part(part)


def _made_concrete(draft: str, site: Site) -> str:
    """A vague wish as changes to the site there is, or as a new site."""
    home = site.texts.get(HOME)
    starter = (home or "").split() == STARTER_FILES[HOME].split()
    if starter or (home is None and not site.pages):
        return _site(brief_from(draft), None, "")
    rules = Rules()  # the request shows no instructions: the demo's own defaults
    ideas = concrete(draft, site, rules, changes=lambda idea: would_change(idea, site, rules))
    if not ideas:
        return _ANY_COLOUR
    return "\n".join(
        _sentence(idea.request if idea.kind == "contrast" else _improved_part(idea.request))
        for idea in ideas
    )


def _sentence(part: str) -> str:
    return part if part.endswith((".", "!", "?")) else part + "."


def _improved_part(draft: str) -> str:
    """One request rewritten; a wish to keep, said plainly already, or one the
    demo cannot do comes back as it was."""
    rewrite = _REWRITES.get(_intent(draft))
    return rewrite(draft) if rewrite is not None else draft


def _retone(draft: str) -> str:
    tone = TONE_NAMES[tone_asked(draft) or "plain"]
    return f"Reword the site's headings and texts in {tone}, keeping the name and all else as is."


def _intent(draft: str) -> Intent:
    intent = intent_of(draft)
    if intent == "colour" and _SITE.search(draft.lower()):
        return "build"
    return intent


def _for_whom(draft: str) -> str:
    """Who the site is for, in the person's words ("for my dog walking
    business", "for a photographer"); "" when the draft does not say."""
    found = _FOR.search(draft)
    return " ".join(found.group(0).split()).lower() if found else ""


def _site(brief: Brief, colour: tuple[str, str] | None, for_whom: str) -> str:
    kind = brief.kind
    mine = "for our" if " our " in f" {for_whom} " else "for my"
    what = "a one-page website" + (f" {mine} {kind}" if kind != "site" else "")
    if kind == "product":  # the demo knows a product's site as a landing page
        what = "a one-page landing site " + (for_whom or "for my product")
    elif kind == "portfolio":
        what = "a one-page portfolio website" + (f" {for_whom}" if for_whom else "")
    elif for_whom and (kind == "site" or kind in for_whom):
        what = f"a one-page website {for_whom}"
    named = not brief.name.startswith("Your ")
    name = f"“{brief.name}”" if named else _NAME_TO_FILL.get(kind, f"[{kind} name]")
    sections = "\n".join(
        f"- {heading}: {_HOLDS.get(sid, '[what it says]')}"
        for sid, heading in _in_order(brief.sections)
    )
    # The demo builds in its own colours: a colour asked for is a second request.
    # How the demo's build looks for the kind (demo.looks), said as a request.
    look = f"{colour[0]} as the main colour" if colour else look_for(kind, font=brief.font).words
    return (
        f"Build {what}, called {name}.\n\n"
        f"Sections:\n{sections}\n\n"
        f"Tone: {_TONES.get(kind, 'friendly and clear')}; short sentences.\n"
        f"Look: {look}; easy to read on phones."
    )


def _in_order(sections: tuple[tuple[str, str, str], ...]) -> list[tuple[str, str]]:
    """The sections, contact last, each named by its id: the word the demo
    finds again when the rewrite is sent (demo.site.SECTIONS)."""
    ids = sorted((sid for sid, _, _ in sections), key=lambda sid: sid == "contact")
    return [(sid, sid.upper() if sid == "faq" else sid.capitalize()) for sid in ids]


def _recolour(lowered: str) -> str:
    colour = (colour_in(lowered) or ("", ""))[0]
    # Where, as the demo's recolouring reads it (demo.planner._recolour).
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
        return "Add a section called [its name] to the home page."
    if asked.named:  # its name ends the request, for the demo to read it whole
        return f"Add a section called “{asked.words}”."
    word = "FAQ" if asked.words == "faq" else asked.words
    sid = next((v[0] for key, v in SECTIONS.items() if word.lower().startswith(key)), "")
    holds = _HOLDS.get(sid, "[what it should say]")
    article = "an" if word[:1] in "aeiou" else "a"
    return f"Add {article} {word} section to the home page, with {holds}."


def _page(lowered: str) -> str:
    found = PAGE.search(lowered)
    slug = found.group(1) if found else "new"
    article = "an" if slug[:1] in "aeiou" else "a"
    return (
        f"Add {article} {slug} page, linked from the navigation of every page, "
        f"with [what the {slug} page should say]."
    )


_REWRITES: dict[Intent, Callable[[str], str]] = {
    "build": lambda d: _site(brief_from(d), colour_in(d.lower()), _for_whom(d)),
    "colour": lambda d: _recolour(d.lower()),
    "heading": _reheading,
    "section": _section,
    "page": lambda d: _page(d.lower()),
    "tone": _retone,
}
