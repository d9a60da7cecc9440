"""The sections the offline demo writes, and which of them a description asks
for: by their words ("a menu", "opening hours", "prices"), by the ways people
say them ("class times", "find us", "book a table"), and any other named as a
section ("with a reservations section"), in the order they are asked. Pages
asked for are sections of the one page the demo builds, and it says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Section = tuple[str, str, str]  # (id, heading, first line), in the demo's plain tone

# Sections by the words that name them (a word, or the start of one: demo.
# intents reads "add testimonials", demo.tweaks "add a pricing section").
SECTIONS: dict[str, Section] = {
    "menu": ("menu", "Menu", "Today's favourites, made fresh every morning."),
    "contact": ("contact", "Contact", "Write to us or drop by; we answer every message."),
    "about": ("about", "About", "Who we are, and why we do what we do."),
    "gallery": ("gallery", "Gallery", "A few pictures of our work."),
    "photo": ("gallery", "Gallery", "A few pictures of our work."),
    "picture": ("gallery", "Gallery", "A few pictures of our work."),
    "pricing": ("pricing", "Pricing", "Simple prices, no surprises."),
    "price": ("pricing", "Pricing", "Simple prices, no surprises."),
    "testimonial": ("testimonials", "What people say", "A few kind words from our customers."),
    "review": ("testimonials", "What people say", "A few kind words from our customers."),
    "service": ("services", "Services", "What we can do for you."),
    "team": ("team", "Our team", "The people behind it all."),
    "faq": ("faq", "Questions", "Answers to what people ask most."),
    "question": ("faq", "Questions", "Answers to what people ask most."),
    "hours": ("hours", "Opening hours", "When you can find us, week by week."),
    "opening": ("hours", "Opening hours", "When you can find us, week by week."),
    "location": ("location", "Find us", "In the heart of town, by the old square."),
    "direction": ("location", "Find us", "In the heart of town, by the old square."),
    "project": ("projects", "Projects", "A selection of recent work."),
    "work": ("projects", "Projects", "A selection of recent work."),
    "blog": ("blog", "News", "What we have been up to lately."),
    "post": ("posts", "Latest posts", "Notes and stories, newest first."),
    "article": ("posts", "Latest posts", "Notes and stories, newest first."),
    "event": ("events", "Events", "What is coming up next."),
    "gig": ("events", "Events", "What is coming up next."),
    "schedule": ("schedule", "Schedule", "Times and details, at a glance."),
    "timetable": ("schedule", "Schedule", "Times and details, at a glance."),
    "programme": ("schedule", "Schedule", "Times and details, at a glance."),
    "product": ("products", "Products", "A few favourites, chosen with care."),
    "ticket": ("tickets", "Tickets", "Book early: places are limited."),
    "rsvp": ("rsvp", "RSVP", "Let us know if you can come."),
}
# How a description says a section besides its words: (pattern, key of SECTIONS).
_SAID: tuple[tuple[str, str], ...] = (
    (r"class\s+(?:times|schedule)|agenda|line-?up|program", "schedule"),
    (r"find\s+us|where\s+(?:we\s+are|to\s+find\s+us)|map", "location"),
    (r"get\s+in\s+touch|reach\s+(?:us|me)|book(?:ing)?s?\s+a\s+table|reservations?", "contact"),
    (r"bookings?|appointments?|enquir(?:y|ies)|inquir(?:y|ies)|contact\s+form", "contact"),
    (r"opening\s+times|open\s+times|when\s+we(?:'re|\s+are)\s+open", "hours"),
    (r"our\s+story|who\s+we\s+are|about\s+(?:us|me)", "about"),
    (r"what\s+we\s+do|what\s+i\s+do|what\s+we\s+offer", "service"),
    (r"(?:tour|gig|live)\s+dates|upcoming\s+(?:dates|shows|gigs)", "event"),
    (r"catalogu?e|collection", "product"),
    (r"news|updates", "blog"),
)
# How each word is found: the word, its plural, or its -ing form; these need more.
_WORD_RULES = {
    # "about, contact", "an about page": not "a blog about hiking".
    "about": r"about(?=\s*(?:$|[,.;:!&+/)]|(?:page|section|part|and|or|us|me)\b))",
    "opening": r"opening\s+hours",
    "work": r"work(?!\s+(?:with|for|on|in|as|at|from|out|together|hard)\b)",
    "question": r"questions",
    "event": r"events|upcoming\s+event",
    "product": r"products",
}
_PAGE_WORD = re.compile(r"\bpages?\b")
_NOT_A_SECTION_PAGE = {"landing", "home", "web", "one", "single", "menu", "main", "index", "a"}
_SECTION_WORD = re.compile(r"\bsections?\b")
_NAME_BEFORE = 60  # characters: a section's name is a few words
_CLAUSE = re.compile(r"[,.;:!?()\[\]\n\u2014\u2013]")  # where the words before end
_MOST_NAMED = 12  # sections or pages named: a page holds at most 8 (demo.site)
_NOT_A_NAME = {
    *("a", "an", "the", "with", "and", "plus", "some", "our", "my", "of", "for", "also"),
    *("one", "each", "every", "new", "another", "big", "small", "short", "little", "own"),
    *("two", "three", "four", "five", "few", "several", "more", "many", "other", "extra"),
}


@dataclass(frozen=True)
class Asked:
    """What a description asks of the page's sections."""

    sections: tuple[Section, ...]  # in the order asked
    as_pages: tuple[str, ...] = ()  # headings of sections asked for as pages


def sections_asked(lowered: str, *, skip: tuple[int, int] = (0, 0)) -> Asked:
    """The sections `lowered` (a description in lower case) asks for; words in
    `skip` (where it names its kind: "a blog", "an event") are not asked."""
    found: dict[Section, int] = {}
    for key, at in _said(lowered):
        if skip[0] <= at < skip[1] and skip != (0, 0):
            continue
        section = SECTIONS[key]
        found[section] = min(found.get(section, at), at)
    for words, at in _named(lowered, set(found)):
        found.setdefault(_custom(words), at)
    ordered = tuple(sorted(found, key=lambda section: found[section]))
    pages = [
        page for page in _words_before(lowered, _PAGE_WORD, 1) if page not in _NOT_A_SECTION_PAGE
    ]
    as_pages = tuple(dict.fromkeys(s[1] for s in ordered for page in pages if _names(page, s)))
    return Asked(ordered, as_pages)


def known_section(words: str) -> Section | None:
    """The section `words` (a name someone gave it) is, when the demo knows it."""
    return next(
        (v for key, v in SECTIONS.items() if any(w.startswith(key) for w in words.split())),
        None,
    )


def _said(lowered: str) -> list[tuple[str, int]]:
    """Each key of SECTIONS the text says, with where."""
    said = []
    for key in SECTIONS:
        rule = _WORD_RULES.get(key, rf"{key}(?:s|es|ing)?")
        said += [(key, m.start()) for m in re.finditer(rf"\b(?:{rule})\b", lowered)]
    for rule, key in _SAID:
        said += [(key, m.start()) for m in re.finditer(rf"\b(?:{rule})\b", lowered)]
    return said


def _named(lowered: str, known: set[Section]) -> list[tuple[str, int]]:
    """Sections named by a name the demo does not know ("a reservations section")."""
    named = []
    places = list(_SECTION_WORD.finditer(lowered))[:_MOST_NAMED]
    for name, at in zip(_words_before(lowered, _SECTION_WORD, 3), places, strict=True):
        words = name.split()
        while words and words[0] in _NOT_A_NAME:
            words = words[1:]
        if not words or known_section(" ".join(words)) or _said(" ".join(words)):
            continue
        named.append((" ".join(words), at.start()))
    return named


def _words_before(lowered: str, word: re.Pattern[str], most: int) -> list[str]:
    """For each place `word` is found, the `most` words before it (in its part
    of the sentence). Read back from each place, not forwards from every
    word, so the time taken grows with the text, not with its square."""
    found = []
    for at in list(word.finditer(lowered))[:_MOST_NAMED]:
        before = _CLAUSE.split(lowered[max(0, at.start() - _NAME_BEFORE) : at.start()])[-1]
        words = re.findall(r"[a-z][\w'\u2019-]*", before)[-most:]
        found.append(" ".join(w.strip("-'\u2019") for w in words))
    return found


def _custom(words: str) -> Section:
    section_id = re.sub(r"[^a-z0-9]+", "-", words).strip("-")[:40] or "more"
    return (section_id, words[:1].upper() + words[1:], "")


def _names(page: str, section: Section) -> bool:
    known = known_section(page)
    return (known is not None and known[0] == section[0]) or page == section[0]
