"""A project's name made from the request that started it ("A landing page for
my bakery called Crumb…" and "I need a website for my bakery Crumb: …" →
"Crumb bakery"): short, from the person's own words, and renamable like any
other."""

from __future__ import annotations

import re

NAME_WORDS = 4  # at most, from the request's significant words
NAME_CHARS = 60  # well under a project name's limit (projects.lifecycle.MAX_NAME)
FALLBACK = "New site"

# "called Crumb", "named “Casa Verde”": the name the person gave, capitalised words.
_WORD = r"[A-Z0-9][\w'\u2019&.-]*"
_CALLED = re.compile(rf"\b(?:called|named)\s+[\"\u201c'\u2018]?({_WORD}(?:\s+{_WORD}){{0,3}})")
# "my bakery Crumb", "our restaurant Casa Verde": a kind of place, then its name.
_KIND_NAMED = re.compile(
    rf"\b(?:my|our|a|an|the)\s+([a-z][a-z-]+)\s+({_WORD}(?:\s+{_WORD}){{0,3}})"
)
# Where a request's first clause ends ("…Crumb: our menu, …", "…, with a gallery"):
# its words name the site; the rest lists what goes in it.
_CLAUSE_END = re.compile(r"[:;,(\u2013\u2014]|\s-\s|\.\s|\s+with\s")
# Words that say nothing about which site this is.
_FILLER_WORDS = """a an the i we me my our your you it this that please can could would like want
need build make create design start set up some simple nice new for of with and to in on at by
about from is are be site website web page one landing one-page single-page homepage"""
_FILLER = frozenset(_FILLER_WORDS.split())
# Words before "called X" that, besides the filler, say no kind of site worth adding.
_GENERIC = frozenset(["app", "thing", "something"])


def project_name_from(request: str) -> str:
    """A short name for the project `request` starts."""
    called = _CALLED.search(request)
    if called:
        name = called.group(1).rstrip(".")
        before = request[: called.start()].split()
        return _with_kind(name, before[-1].strip(",.;:").lower() if before else "")
    first = _CLAUSE_END.split(request, maxsplit=1)[0]
    named = _KIND_NAMED.search(first)
    if named:
        return _with_kind(named.group(2).rstrip("."), named.group(1))
    significant = _significant(first) or _significant(request)
    if not significant:
        return FALLBACK
    name = " ".join(significant[:NAME_WORDS])[:NAME_CHARS]
    return name[0].upper() + name[1:]


def _with_kind(name: str, kind: str) -> str:
    """ "Crumb bakery"; just "Crumb" when the word before says no kind ("a site called Crumb")."""
    if kind.isalpha() and kind not in _GENERIC and kind not in _FILLER:
        return f"{name} {kind}"[:NAME_CHARS]
    return name[:NAME_CHARS]


def _significant(text: str) -> list[str]:
    words = [word.strip(",.;:!?\"\u201c\u201d'\u2018\u2019()") for word in text.split()]
    return [word for word in words if word and word.lower() not in _FILLER]
