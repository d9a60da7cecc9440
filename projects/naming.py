"""A project's name made from the request that started it ("A landing page for
my bakery called Crumb…" → "Crumb bakery"): short, from the person's own
words, and renamable like any other."""

from __future__ import annotations

import re

NAME_WORDS = 4  # at most, from the request's significant words
NAME_CHARS = 60  # well under a project name's limit (projects.lifecycle.MAX_NAME)
FALLBACK = "New site"

# "called Crumb", "named “Casa Verde”": the name the person gave, capitalised words.
_WORD = r"[A-Z0-9][\w'\u2019&.-]*"
_CALLED = re.compile(rf"\b(?:called|named)\s+[\"\u201c'\u2018]?({_WORD}(?:\s+{_WORD}){{0,3}})")
# Words that say nothing about which site this is.
_FILLER_WORDS = """a an the i we me my our your you it this that please can could would like want
need build make create design start set up some simple nice new for of with and to in on at by
about from is are be site website web page one"""
_FILLER = frozenset(_FILLER_WORDS.split())
# Words before "called X" that, besides the filler, say no kind of site worth adding.
_GENERIC = frozenset(["app", "thing", "something"])


def project_name_from(request: str) -> str:
    """A short name for the project `request` starts."""
    called = _CALLED.search(request)
    if called:
        name = called.group(1).rstrip(".")
        before = request[: called.start()].split()
        kind = before[-1].strip(",.;:").lower() if before else ""
        if kind.isalpha() and kind not in _GENERIC and kind not in _FILLER:
            return f"{name} {kind}"[:NAME_CHARS]
        return name[:NAME_CHARS]
    words = [word.strip(",.;:!?\"\u201c\u201d'\u2018\u2019()") for word in request.split()]
    significant = [word for word in words if word and word.lower() not in _FILLER]
    if not significant:
        return FALLBACK
    name = " ".join(significant[:NAME_WORDS])[:NAME_CHARS]
    return name[0].upper() + name[1:]
