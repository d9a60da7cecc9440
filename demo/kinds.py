"""What kind of place a description is about, read from its words: a bakery, a
yoga studio, a plumber, a running club… Each kind has an id (what the looks,
the contents and the taglines are chosen by: demo.looks, content,
tones), a label (how the page and the answer name it) and the sections it gets
when the person names none, its first one the section that kind is never
without (a bakery's menu, a portfolio's work).

The table is in order: the first entry whose words a description holds wins,
so "a coffee shop" is a café before it is a shop, "a yoga studio" a class
before a design studio, and "I'm a wedding photographer" a photographer.

The demo finds the kind of a site it built again by its tagline, which names
the label (demo.tones.tagline): `kind_found_in`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    id: str
    label: str
    words: re.Pattern[str]  # found in lower-case text
    sections: tuple[str, ...]  # keys of demo.sections.SECTIONS, the essential first
    # Its label takes the word before it in the description: "a running club",
    # "an online shop", "a primary school".
    qualified: bool = False


@dataclass(frozen=True)
class Found:
    kind: Kind
    label: str
    span: tuple[int, int]  # where its words are in the description


def _kind(
    kind_id: str, label: str, words: str, sections: tuple[str, ...], *, qualified: bool = False
) -> Kind:
    return Kind(kind_id, label, re.compile(rf"\b(?:{words})\b"), sections, qualified)


_FOOD = ("menu", "hours", "contact")
_CLASSES = ("schedule", "pricing", "contact")
_TRADE = ("service", "testimonial", "contact")
_EVENT = ("schedule", "location", "faq")
_SHOP = ("product", "about", "contact")
_CLUB = ("about", "event", "contact")

KINDS: tuple[Kind, ...] = (
    _kind(
        "bakery",
        "bakery",
        r"bakery|bakeries|bakehouse|bakers?|patisserie|pâtisserie|cake\s+shop|cakes|cupcakes?"
        r"|doughnuts?|donuts?",
        ("menu", "about", "contact"),
    ),
    _kind("café", "café", r"caf[eé]s?|tea\s?rooms?|tea\s+shop", _FOOD),
    _kind(
        "coffee shop",
        "coffee shop",
        r"coffee(?:\s+shop|\s+bar|\s+house)?|roaster(?:y|ies)?",
        _FOOD,
    ),
    _kind(
        "restaurant",
        "restaurant",
        r"restaurants?|eatery|diner|brasserie|trattoria|taqueria|steakhouse|tapas\s+bar"
        r"|sushi\s+bar|ramen\s+bar|noodle\s+bar|supper\s+club",
        _FOOD,
    ),
    _kind("restaurant", "pizzeria", r"pizzerias?|pizza(?:\s+place|\s+shop)?", _FOOD),
    _kind("restaurant", "bistro", r"bistros?", _FOOD),
    _kind("restaurant", "pub", r"pubs?|gastropub|tavern|inn", _FOOD),
    _kind("restaurant", "food truck", r"food\s+trucks?|food\s+vans?|street\s+food", _FOOD),
    _kind("blog", "blog", r"blogs?|vlogs?|journal|diary|newsletter", ("post", "about", "contact")),
    _kind(
        "portfolio",
        "portfolio",
        r"portfolios?|designers?|illustrators?|artists?|painters?|architects?|copywriters?"
        r"|writers?|authors?|developers?|freelancers?|freelance|cv|résumé|resume"
        r"|personal\s+(?:site|website|page)|about\s+me",
        ("project", "about", "contact"),
    ),
    _kind(
        "photography studio",
        "photography studio",
        r"photograph\w*|photo\s+studio",
        ("gallery", "pricing", "contact"),
    ),
    _kind(
        "wedding",
        "wedding",
        r"weddings?|elopement|(?:getting|get|got)\s+married|engagement",
        ("event", "location", "faq"),
    ),
    _kind("class", "yoga studio", r"yoga", _CLASSES),
    _kind("class", "pilates studio", r"pilates|barre", _CLASSES),
    _kind("class", "dance studio", r"danc(?:e|es|ing)|ballet|salsa", _CLASSES),
    _kind(
        "class",
        "fitness studio",
        r"fitness|gym|personal\s+train(?:er|ing)|bootcamp|crossfit|spin\s+class(?:es)?",
        _CLASSES,
    ),
    _kind(
        "class",
        "martial arts school",
        r"karate|judo|taekwondo|jiu[\s-]?jitsu|kickboxing|boxing|martial\s+arts?",
        _CLASSES,
    ),
    _kind(
        "class",
        "music school",
        r"(?:music|piano|guitar|violin|singing|drum)\s+(?:lessons?|classes|teacher|tutor|school)",
        _CLASSES,
    ),
    _kind("class", "pottery studio", r"pottery|ceramics\s+(?:classes|studio)", _CLASSES),
    _kind("class", "cookery school", r"cook(?:ing|ery)\s+(?:classes|school|lessons)", _CLASSES),
    _kind(
        "class",
        "class studio",
        r"class(?:es)?|lessons?|courses|online\s+course|workshops?|tutoring|coaching",
        _CLASSES,
    ),
    _kind("shop", "flower shop", r"florists?|flower\s+shop", ("product", "about", "contact")),
    _kind("shop", "shop", r"shops?|stores?", _SHOP, qualified=True),
    _kind("shop", "boutique", r"boutiques?", _SHOP, qualified=True),
    _kind("shop", "online shop", r"e-?commerce|webshop|sell(?:s|ing)?|etsy", _SHOP),
    _kind(
        "studio",
        "studio",
        r"studios?|design\s+agency|creative\s+agency",
        ("service", "about", "contact"),
        qualified=True,
    ),
    _kind(
        "band",
        "band",
        r"bands?|duo|trio|quartet|orchestra|ensemble",
        ("event", "gallery", "contact"),
    ),
    _kind(
        "band",
        "musician",
        r"musicians?|singers?|songwriters?|rappers?|djs?|composers?",
        ("event", "gallery", "contact"),
    ),
    _kind("event", "conference", r"conferences?|summit|symposium|hackathon", _EVENT),
    _kind("event", "festival", r"festivals?|fest", _EVENT),
    _kind("event", "party", r"part(?:y|ies)|birthday|anniversary|celebration", _EVENT),
    _kind("event", "meetup", r"meet-?ups?", _EVENT),
    _kind("event", "fundraiser", r"fundrais\w*|gala|charity\s+(?:ball|night|event)", _EVENT),
    _kind("event", "exhibition", r"exhibitions?|art\s+show", _EVENT),
    # Not "fair prices": an adjective.
    _kind(
        "event",
        "fair",
        r"fairs?(?!\s+(?:prices?|rates?|trade|deals?|play|share|wages?|and))|f[eê]tes?|markets?",
        _EVENT,
    ),
    _kind("event", "race", r"races?|marathon|fun\s+run|5k|10k", _EVENT),
    _kind("event", "retreat", r"retreats?|reunion", _EVENT),
    _kind("event", "concert", r"concerts?|recital", _EVENT),
    _kind("event", "event", r"events?|launch\s+(?:party|night|event)", _EVENT),
    _kind("app", "app", r"apps?|mobile\s+app", ("service", "pricing", "faq")),
    _kind(
        "product",
        "product",
        r"product|startup|start-up|saas|software|platform|landing",
        ("service", "pricing", "contact"),
    ),
    _kind("business", "plumber", r"plumb(?:er|ers|ing)", _TRADE),
    _kind("business", "electrician", r"electricians?|electrical", _TRADE),
    _kind("business", "builder", r"builders?|building\s+(?:firm|company|contractor)", _TRADE),
    _kind("business", "carpenter", r"carpent(?:er|ers|ry)|joiners?|joinery", _TRADE),
    _kind("business", "roofer", r"roof(?:er|ers|ing)", _TRADE),
    _kind("business", "decorator", r"decorators?|decorating", _TRADE),
    _kind("business", "gardener", r"gardeners?|gardening|landscap(?:er|ers|ing)", _TRADE),
    _kind("business", "cleaning service", r"cleaners?|cleaning", _TRADE),
    _kind("business", "locksmith", r"locksmiths?", _TRADE),
    _kind("business", "handyman", r"handym[ae]n|odd\s+jobs", _TRADE),
    _kind("business", "mechanic", r"mechanics?|garage|car\s+repairs?", _TRADE),
    _kind("business", "removals firm", r"removals?|movers|moving\s+company", _TRADE),
    _kind("business", "dog walker", r"dog\s+walk(?:er|ers|ing)|pet\s+sitt(?:er|ing)", _TRADE),
    _kind("business", "dog groomer", r"dog\s+groom(?:er|ers|ing)|pet\s+groom(?:er|ing)", _TRADE),
    _kind(
        "business",
        "hair salon",
        r"hair(?:dressers?|dressing|\s+salon)?|barbers?(?:hop)?|salons?",
        _TRADE,
    ),
    _kind("business", "beauty salon", r"beauty|nails?|spa|massage|beautician", _TRADE),
    _kind("business", "clinic", r"clinics?|dentists?|dental|physio\w*|therap(?:y|ist)", _TRADE),
    _kind("business", "vet", r"vets?|veterinary", _TRADE),
    _kind("business", "accountant", r"accountants?|accounting|bookkeep(?:er|ing)", _TRADE),
    _kind("business", "law firm", r"lawyers?|solicitors?|law\s+firm|attorneys?", _TRADE),
    _kind("business", "tutor", r"tutors?", _TRADE),
    _kind("club", "club", r"clubs?", _CLUB, qualified=True),
    _kind("club", "choir", r"choirs?", _CLUB, qualified=True),
    _kind("club", "society", r"societ(?:y|ies)", _CLUB, qualified=True),
    _kind("club", "association", r"associations?", _CLUB, qualified=True),
    _kind("club", "league", r"leagues?", _CLUB, qualified=True),
    _kind("club", "scout group", r"scouts|guides|brownies|cubs", _CLUB),
    _kind(
        "club",
        "sports team",
        r"(?:football|soccer|rugby|cricket|hockey|netball|basketball|tennis|sports?)\s+teams?",
        _CLUB,
    ),
    _kind("school", "school", r"schools?", _CLUB, qualified=True),
    _kind("school", "academy", r"academy|academies", _CLUB, qualified=True),
    _kind("school", "nursery", r"nurser(?:y|ies)|kindergarten|preschool", _CLUB),
    _kind("school", "college", r"colleges?", _CLUB, qualified=True),
    _kind(
        "business",
        "business",
        r"business(?:es)?|compan(?:y|ies)|firm|agency|consult(?:ant|ancy|ing)|services?",
        ("service", "about", "contact"),
    ),
)
# Where a description's head ends and its details begin.
_HEAD = re.compile(r"\b(?:with|including|featuring|plus)\b|:")
SITE = Kind("site", "site", re.compile(r"(?!)"), ("about", "contact"))

# Words before a kind that are not part of its label ("a small shop", "my club").
_NOT_A_QUALIFIER = {
    *("a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "this", "that"),
    *("new", "small", "little", "tiny", "big", "local", "great", "good", "best", "nice", "own"),
    *("lovely", "simple", "family", "independent", "cosy", "cozy", "friendly", "modern", "one"),
    *("first", "single", "whole", "for", "of", "and", "or", "with", "to", "in", "at", "is", "i"),
    *("we", "run", "have", "own", "open", "start", "starting", "about", "called", "named"),
}


def kind_of(lowered: str) -> Found | None:
    """The kind of place `lowered` (a description, in lower case) is about, or
    None when it names none. What comes before "with" says it first: "a
    portfolio site with a gallery and a blog" is a portfolio."""
    head = _HEAD.split(lowered, maxsplit=1)[0]
    for text in dict.fromkeys((head, lowered)):
        for kind in KINDS:
            found = kind.words.search(text)
            if found is not None:
                return Found(kind, _label(kind, lowered, found.start()), found.span())
    return None


def _label(kind: Kind, lowered: str, start: int) -> str:
    if not kind.qualified:
        return kind.label
    before = re.search(r"([a-z][a-z-]{2,19})\s+$", lowered[:start])
    word = before.group(1) if before else ""
    if not word or word in _NOT_A_QUALIFIER or word.endswith("'s"):
        return kind.label
    return f"{word} {kind.label}"


def kind_found_in(page_text: str) -> Found:
    """The kind of place a page the demo built is for, as its tagline or its
    title names it: the general site when they name none."""
    said = re.findall(r'class="tagline"[^>]*>([^<]*)<|<title>([^<]*)<', page_text)
    words = " ".join(" ".join(found) for found in said).lower()
    # By its label first, the longest first: "a running club" before "club".
    for kind in sorted(KINDS, key=lambda k: len(k.label), reverse=True):
        at = re.search(rf"\b{re.escape(kind.label)}\b", words)
        if at is not None:
            return Found(kind, _label(kind, words, at.start()), at.span())
    return kind_of(words) or Found(SITE, SITE.label, (0, 0))


def a_or_an(words: str) -> str:
    """`words` after "a" or "an", as it is said."""
    return f"{'an' if words[:1].lower() in 'aeiou' else 'a'} {words}"
