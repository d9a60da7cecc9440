"""The name a description gives its site, read as a person would: in quotes,
after "called" or "named" (also in lower case: "called the daily grind" is
The Daily Grind), "I'm Ada", a name before the rest ("Crumb, a bakery in
Leith", "Static — a band"), or a capitalised name anywhere ("a landing page
for my app Tally", "Riverside Primary School"). A capital that only starts a
sentence is no name ("Tech conference in Berlin"), nor a place ("in Lisbon"),
a day or a month.
"""

from __future__ import annotations

import re

from demo.kinds import KINDS

LONGEST_NAME = 60  # characters, of a name the demo reads from a request
# A word of a name: letters and digits, with what names hold (&, apostrophes, -, .).
_PART = r"[^\W_][\w'\u2019.&-]*|&"
_QUOTED = re.compile(r"[\"“]([^\"”\n]{2,40})[\"”]|(?:^|\s)'([^'\n]{2,40})'(?=$|[\s,.;:!?])")
_CALLED = re.compile(
    r"\b(?:called|named|name\s+is|name's|call\s+it|name\s+it)\s*:?\s+"
    rf"(?P<name>(?:{_PART})(?:\s+(?:{_PART})){{0,4}})",
    re.IGNORECASE,
)
_I_AM = re.compile(
    r"\b(?i:i'm|i\s+am|i\u2019m|we're|we\s+are|we\u2019re|this\s+is)\s+"
    r"(?P<name>[A-Z][\w'\u2019.&-]*(?:\s+[A-Z][\w'\u2019.&-]*){0,3})"
)
# "Crumb, a bakery…", "Static — a band", "Kiln & Co: pottery classes".
_LEADING = re.compile(
    rf"^\s*(?P<name>(?:{_PART})(?:\s+(?:{_PART})){{0,3}})\s*"
    r"(?:,\s*(?:an?|the)\s|\s[\u2014\u2013-]\s*|:\s)"
)
_FOR = re.compile(r"\bfor\s+(?P<name>[A-Z][\w'\u2019.&-]*(?:\s+(?:[A-Z][\w'\u2019.&-]*|&)){0,3})")
_CAPITALISED = re.compile(r"[A-Z][\w'\u2019.&-]*(?:\s+(?:(?:&|of|de|la)\s+)?[A-Z][\w'\u2019.&-]*)*")
# Where a name's words end: a word of the description's own.
_ENDS = {
    *("with", "and", "in", "at", "for", "that", "which", "who", "from", "on", "near", "by"),
    *("selling", "serving", "offering", "where", "to", "is", "are", "was", "has", "have"),
    *("a", "an", "the", "my", "our", "its", "it", "we", "i", "please", "plus", "or", "but"),
    *("website", "site", "page", "web", "landing", "portfolio", "blog", "shop", "app", "about"),
}
# Capitalised words that are not a name by themselves.
_COMMON = {
    *("a", "an", "the", "my", "our", "your", "i", "i'm", "i\u2019m", "we", "we're", "hi"),
    *("hello", "hey", "please", "build", "make", "create", "design", "need", "want", "website"),
    *("site", "page", "landing", "online", "new", "small", "local", "simple", "just", "help"),
    *("can", "could", "would", "something", "some", "this", "that", "it", "its", "for", "with"),
    *("and", "or", "one", "single", "home", "about", "contact", "menu", "faq", "rsvp", "cv"),
    *("dj", "ok", "okay", "yes", "no", "thanks", "also", "then", "here", "there", "if"),
    *("family", "little", "tiny", "big", "modern", "cosy", "cozy", "friendly", "independent"),
    *("tech", "vegan", "italian", "french", "indian", "chinese", "japanese", "thai", "mexican"),
    *("greek", "spanish", "english", "british", "american", "local", "weekly", "monthly"),
    *("built-it", "builtit"),
}
_DATES = {
    *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    *("january", "february", "march", "april", "may", "june", "july", "august"),
    *("september", "october", "november", "december", "christmas", "easter"),
}
_PLACE_BEFORE = re.compile(
    r"\b(?:in|at|from|near|on|of|to|by|around|across|outside)\s+(?:the\s+)?$"
)
_SMALL_WORDS = {"and", "of", "the", "de", "la", "on", "in", "at", "&"}


def name_in(request: str) -> str | None:
    """The name `request` gives, or None."""
    for reader in (_quoted, _called, _i_am, _leading, _for, _capitalised):
        found = reader(request)
        if found:
            return found[:LONGEST_NAME].strip(" .,;:-")
    return None


def _quoted(request: str) -> str | None:
    found = _QUOTED.search(request)
    return (found.group(1) or found.group(2)).strip() if found else None


def _called(request: str) -> str | None:
    found = _CALLED.search(request)
    return as_name(_until_end(found.group("name"))) if found else None


def _i_am(request: str) -> str | None:
    found = _I_AM.search(request)
    if found is None:
        return None
    return _proper(_until_end(found.group("name")))


def _leading(request: str) -> str | None:
    found = _LEADING.match(request)
    if found is None:
        return None
    words = found.group("name").split()
    named = words[1:] if words[0].lower() == "the" and len(words) > 1 else words
    if any(_word_of_description(word) for word in named):
        return None
    return as_name(" ".join(words))


def _for(request: str) -> str | None:
    found = _FOR.search(request)
    return _proper(_until_end(found.group("name"))) if found else None


def _capitalised(request: str) -> str | None:
    for found in _CAPITALISED.finditer(request):
        words = _until_end(found.group(0)).split()
        while words and words[0].lower().strip(".,") in _COMMON | _DATES:
            words = words[1:]  # "The Green Fork" keeps its "The" below
        if not words or _PLACE_BEFORE.search(request[: found.start()]):
            continue
        if _starts_sentence(request, found.start()) and not _named_alone(request, found):
            continue
        name = _proper(" ".join(_with_the(found.group(0), words)))
        if name:
            return name
    return None


def _named_alone(request: str, found: re.Match[str]) -> bool:
    """Whether a capitalised run that starts a sentence is a name: several
    capitalised words ("The Green Fork"), one on its own ("Crumb",
    "Crumb."), or one before the kind ("Crumb bakery")."""
    words = found.group(0).split()
    if len(words) > 1 and words[0].lower() not in _COMMON - {"the"}:
        return True
    if words[0].lower() in _COMMON | _DATES:
        return False
    rest = request[found.end() :].lstrip()
    if not rest or rest[0] in ",.;!?\u2014\u2013-":
        return True
    return any(kind.words.match(rest.lower()) for kind in KINDS)


def _with_the(run: str, words: list[str]) -> list[str]:
    first = run.split(maxsplit=1)[0]
    return ["The", *words] if first == "The" and len(run.split()) > len(words) else words


def _starts_sentence(text: str, at: int) -> bool:
    """Whether `at` starts a sentence, a line or an item of a list."""
    before = text[:at].rstrip(" \t")
    return not before.strip() or before[-1] in ".!?\n-*\u2022"


def _until_end(words: str) -> str:
    """A name's words up to the first word of the description around it."""
    kept: list[str] = []
    for word in words.split():
        if kept and word.lower().strip(".,;:!?") in _ENDS:
            break
        kept.append(word)
        if word[-1:] in ",.;:!?":
            break
    return " ".join(kept).strip(" .,;:!?")


def _word_of_description(word: str) -> bool:
    """A word that says what the site is, not what it is called ("bakery: menu")."""
    lowered = word.lower().strip(".,;:!?")
    if lowered in _COMMON or lowered in _ENDS:
        return True
    return any(kind.words.fullmatch(lowered) for kind in KINDS)


def _proper(name: str) -> str | None:
    words = [w for w in name.split() if w.lower() not in _DATES]
    if not words or all(w.lower() in _COMMON for w in words):
        return None
    return " ".join(words)


def as_name(name: str) -> str | None:
    """A name as typed; in lower case, with capitals as a name has them."""
    if not name or name.lower() in _COMMON:
        return None
    if name != name.lower():
        return name
    words = name.split()
    return " ".join(
        w if (i and w in _SMALL_WORDS) else w[:1].upper() + w[1:] for i, w in enumerate(words)
    )
