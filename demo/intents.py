"""What the person asks the offline demo for, read from their own words (the
preview's context taken off: demo.asking).

Each intent has words of its own. A change to a site (a colour, a section, a
page, a tone…) is read first; then a request to build, said plainly ("build
a site for my bakery", "a website for our wedding") or by describing what the
site is for ("a bakery called Crumb with a menu", "my yoga studio, with class
times", "I run a plumbing business": demo.describing). What is neither
(a greeting, a question about Built-It, a change the demo cannot make) is
"help": the demo changes nothing and says what it can do. Building could
replace a whole site, so on a site that is there it asks first
(demo.planner); a leftover "make", "site" or "page" is no description
("make the buttons rounded", "translate the site to French").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from demo.colours import colour_in
from demo.describing import describes
from demo.remember import asks_to_remember
from demo.renaming import renamed_to
from demo.sections import SECTIONS
from demo.tones import tone_asked

Intent = Literal[
    "build",
    "colour",
    "heading",
    "text",
    "section",
    "page",
    "buttons",
    "tone",
    "fix",
    "problems",
    "translate",
    "remember",
    "rename",
    "help",
]
# The first line of "Fix with the assistant" (chat.render.transcript.Footer.fix_prompt,
# which the demo cannot import: tests/demo/test_demo_asking.py checks they agree).
FIX_PROMPT = "Fix what the site check found:"

_SITE = r"(?:web\s?site|site|landing\s+page|home\s?page|portfolio|one-pager)"
# "build/create/design … a site": any determiner; "make/need … a site": a new one.
_BUILD = re.compile(
    rf"\b(?:build|create|design|start|set\s+up)\b(?:\s+[\w'\u2019-]+){{0,6}}?\s+{_SITE}\b"
    rf"|\b(?:make|want|need|give|get|like)\b(?:\s+[\w'\u2019-]+){{0,2}}?\s+"
    rf"(?:an?|new|one-page|single-page)\b(?:\s+[\w'\u2019-]+){{0,4}}?\s+{_SITE}\b"
    rf"|^\s*(?:an?|new)\s+(?:[\w'\u2019-]+\s+){{0,3}}?{_SITE}\b"
    rf"|\b{_SITE}\s+for\s+(?:my|our|an?|the)\b"
    # "make a page for my dog walking business": a site, not one more page.
    r"|\b(?:make|build|create|design|want|need|get)\b(?:\s+(?:me|us))?\s+(?:an?|one|new|single)\s+"
    r"page\s+for\s+(?:my|our|an?)\b"
)
_NEW_SITE = re.compile(
    rf"\b(?:an?|new|one-page|single-page)\s+(?:[\w'\u2019-]+\s+){{0,3}}?{_SITE}\b"
    rf"|^\s*{_SITE}\s+for\b"
)
_REPLACE = re.compile(
    rf"\breplace\s+(?:the|this|my|our)\s+(?:whole\s+)?{_SITE}\b"
    r"|\bstart\s+(?:over|again|afresh)\b|\bfrom\s+scratch\b"
)
_TRANSLATE = re.compile(
    r"\btranslat(?:e|ion)\b|\b(?:in|into)\s+(?:french|german|spanish|italian|portuguese|dutch"
    r"|polish|swedish|danish|norwegian|finnish|greek|turkish|russian|ukrainian|arabic|hebrew"
    r"|hindi|japanese|chinese|korean)\b"
)
_RECOLOUR = re.compile(r"\b(colou?r|header|background|make|turn|paint|accent)\b")
# "use my brand colour": the colour the instructions name.
_MAIN_COLOUR = re.compile(r"\b(?:my|our|the)\s+(?:brand|main|primary|house)\s+colou?r\b")
PAGE = re.compile(r"\b(?:add|create|make)\b(?:\s+(?:an?|the|one|new))*\s+([\w-]+)\s+page\b")
# "a landing page", "a one-page site": the whole site, not one more page; "make
# this page faster": a page that is there.
_NOT_A_NEW_PAGE = {
    *("landing", "home", "web", "one", "single", "new", "first", "main", "index", "a", "an"),
    *("this", "that", "my", "our", "your", "whole", "entire", "each", "every", "same"),
}
_NAMED_SECTION = re.compile(
    r"\badd\b(?:\s+(?:an?|the|one|new|another))*\s+section\s+"
    r"(?:called|named|titled|headed|about|on|for|with\s+the\s+(?:title|heading))\s+"
    r"[\"“']?(?P<name>[^\"”\n]+?)[\"”']?\s*[.!]?$",
    re.IGNORECASE,
)
SECTION = re.compile(
    r"\badd\b(?:\s+(?:an?|the|one|new|another))*\s+(?P<words>(?:[\w'\u2019-]+\s+){0,3}?[\w'\u2019-]+)"
    r"\s+section\b",
    re.IGNORECASE,
)
# "add testimonials", "add a FAQ": a section the demo knows, named without the word.
_BARE_SECTION = re.compile(
    r"\badd\b(?:\s+(?:an?|the|some|our|my|a\s+few))*\s+"
    rf"(?P<words>(?:{'|'.join(SECTIONS)})[\w'\u2019-]*)\s*(?:[.!]\s*)?$",
    re.IGNORECASE,
)
HEADING = re.compile(
    r"\b(?:heading|title|headline)\b.*?\bto\s+[\"“']?(.+?)[\"”']?\s*[.!]?$", re.IGNORECASE
)
# With an element picked: "change this to …", "make it say …".
_TO_TEXT = re.compile(
    r"\b(?:to|say|says|read|reads)\s*:?\s+[\"“']?(?P<text>.+?)[\"”']?\s*[.!]?$", re.IGNORECASE
)
_CHANGE = re.compile(r"\b(?:change|rename|replace|set|make|update|turn|edit|reword|call)\b", re.I)
_BUTTONS = re.compile(
    r"\b(?:round(?:ed|er)?|pill|square(?:d|r)?|sharp(?:er)?|curv(?:ed|y))\b.*\b(?:buttons?|corners?)\b"
    r"|\b(?:buttons?|corners?)\b.*\b(?:round(?:ed|er)?|pills?|square(?:d|r)?|sharp(?:er)?|curved)\b"
)


_DETERMINERS = {"a", "an", "the", "one", "new", "another"}


@dataclass(frozen=True)
class SectionAsked:
    words: str  # the section's name as asked ("faq", "Opening hours"); "" for none
    named: bool  # asked by its name ("called Opening hours"): the heading it gets


def intent_of(request: str, *, picked: bool = False) -> Intent:
    """What `request` (the person's own words) asks for; `picked`: they
    picked an element in the preview to go with it."""
    lowered = request.lower()
    return next((intent for intent, asks in _ASKS if asks(request, lowered, picked)), "help")


def _page_asked(lowered: str) -> bool:
    page = PAGE.search(lowered)
    return page is not None and page.group(1) not in _NOT_A_NEW_PAGE


def _retone_asked(request: str, lowered: str) -> bool:
    return tone_asked(request) is not None and not _NEW_SITE.search(lowered)


def _colour_asked(lowered: str) -> bool:
    return bool(colour_in(lowered) and _RECOLOUR.search(lowered)) or bool(
        _MAIN_COLOUR.search(lowered)
    )


# In order, the first that matches wins: (intent, asks(request, lowered, picked)).
_ASKS: tuple[tuple[Intent, Callable[[str, str, bool], bool]], ...] = (
    ("fix", lambda request, lowered, picked: request.lstrip().startswith(FIX_PROMPT)),
    ("remember", lambda request, lowered, picked: asks_to_remember(request)),
    ("rename", lambda request, lowered, picked: renamed_to(request) is not None),
    ("build", lambda request, lowered, picked: _REPLACE.search(lowered) is not None),
    ("translate", lambda request, lowered, picked: _TRANSLATE.search(lowered) is not None),
    ("page", lambda request, lowered, picked: _page_asked(lowered)),
    ("section", lambda request, lowered, picked: section_asked(request) is not None),
    ("buttons", lambda request, lowered, picked: _BUTTONS.search(lowered) is not None),
    # Before "build": "create a friendlier tone for the site" rewords, it never
    # rebuilds; "build a site with a friendly tone" names a new site.
    ("tone", lambda request, lowered, picked: _retone_asked(request, lowered)),
    ("build", lambda request, lowered, picked: _BUILD.search(lowered) is not None),
    ("colour", lambda request, lowered, picked: _colour_asked(lowered)),
    ("text", lambda request, lowered, picked: picked and bool(new_text(request, picked=True))),
    ("heading", lambda request, lowered, picked: HEADING.search(request) is not None),
    # Last: what asks for nothing above but describes a site is one to build
    # (a site that is there is never replaced without asking: demo.planner).
    ("build", lambda request, lowered, picked: not picked and describes(request)),
)


def asks_to_replace(request: str) -> bool:
    """Whether the request says to replace the site there is."""
    return _REPLACE.search(request.lower()) is not None


def section_asked(request: str) -> SectionAsked | None:
    named = _NAMED_SECTION.search(request)
    if named:
        return SectionAsked(" ".join(named.group("name").split())[:60], True)
    found = SECTION.search(request) or _BARE_SECTION.search(request)
    if found is None:
        return None
    words = found.group("words").lower()
    return SectionAsked("" if words in _DETERMINERS else words, False)


def new_text(request: str, *, picked: bool) -> str | None:
    """The new text a request gives: of a picked element ("change this to
    Visit us") or, with none picked, of the main heading."""
    found = HEADING.search(request)
    if found is None and picked and _CHANGE.search(request):
        found = _TO_TEXT.search(request)
    if found is None:
        return None
    return found.group(found.lastindex or 1).strip() or None
