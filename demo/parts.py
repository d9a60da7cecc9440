"""The parts of a request that asks for several changes at once ("make the
header purple and add a FAQ section", "add testimonials and a pricing page").

The demo makes one change a turn, so it does one part now and says the rest
for the person to ask next (demo.planner), and its "Improve my request"
rewrites each part it understands and keeps the others word for word
(demo.improving): no part is dropped without a word.

A request is cut where a new one starts: after "and", "then", ";" or a full
stop, at a verb of changing ("… and add a FAQ section"), or, sharing the verb
before it, at a page or a section ("add testimonials and a pricing page").
Requests whose words are the person's text to keep whole (a new heading, a
section's name, a site to build, a line to remember) are not cut, unless what
follows plainly asks for something else the demo understands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from demo.intents import intent_of
from demo.reading import tidy

_VERBS = (
    r"add|make|change|turn|set|put|create|round|give|use|rename|paint|colou?r|remove|fix"
    r"|translate|remember|write|rewrite|swap|replace|insert|include|update|square"
)
_VERB = re.compile(rf"^(?:please\s+)?(?:{_VERBS})\b", re.IGNORECASE)
# Where a new request may start: after "and", "then", ";" or the end of a sentence.
_JOIN = re.compile(
    r"\s*(?:,?\s+and\s+(?:then\s+|also\s+)?|,\s*then\s+|,\s*also\s+|;\s*|(?<=[.!?])\s+)",
    re.IGNORECASE,
)
# A page or a section named without a verb of its own ("… and a pricing page").
_THING = re.compile(
    r"^(?:an?|the|some|one|new|another)?\s*(?:[\w'\u2019-]+\s+){0,2}?(?:page|section)\b",
    re.IGNORECASE,
)
_ANOTHER = re.compile(r"^(?:the|its|my|our)\s+\w", re.IGNORECASE)
# Requests whose words are kept whole: what follows "to" is the new text, the
# name follows "called", the site's description runs on with "and".
_KEEP_WHOLE = {"build", "fix", "remember", "translate", "heading", "text"}


def parts_of(request: str, *, picked: bool = False) -> list[str]:
    """The separate requests in `request`, in order, each a request of its own
    (a verb it shared given to it); one when it asks for one thing."""
    request = tidy(request)  # the patterns below are cubic in a long run of spaces
    whole = intent_of(request, picked=picked)
    if whole in ("build", "fix", "remember"):
        return [request.strip()]
    cuts: list[tuple[int, int]] = []  # (where the part before ends, where the next starts)
    verb = ""
    for join in _JOIN.finditer(request):
        left = request[cuts[-1][1] if cuts else 0 : join.start()].strip()
        right = request[join.end() :].strip()
        second = _as_request(left, right) if left and right else None
        if second is None:
            continue
        if (whole in _KEEP_WHOLE or _named_section(left)) and intent_of(second) == "help":
            continue
        cuts.append((join.start(), join.end()))
    starts = [0, *(end for _, end in cuts)]
    ends = [*(start for start, _ in cuts), len(request)]
    parts: list[str] = []
    for start, end in zip(starts, ends, strict=True):
        part = request[start:end].strip().rstrip(" ,;")
        shared = _VERB.match(parts[-1]) if parts else None
        if not _VERB.match(part) and shared is not None:
            verb = shared.group(0)
            part = f"{verb} {part}"
        parts.append(part[:1].upper() + part[1:])
    return [part for part in parts if part.strip()] or [request.strip()]


def _as_request(left: str, right: str) -> str | None:
    """What follows a join as a request of its own, or None when it goes on
    with the one before ("… with a menu and a contact section")."""
    rest = right.split("\n", 1)[0]
    if _VERB.match(rest):
        return rest
    verb = _VERB.match(left)
    if verb is None:
        return None
    shared = f"{verb.group(0)} {rest}"
    if _THING.match(rest):
        return shared if intent_of(shared) in ("page", "section") else None
    # "make the buttons rounded and the header teal": a thing of its own, understood.
    if _ANOTHER.match(rest) and intent_of(shared) not in ("help", "translate"):
        return shared
    return None


def _named_section(text: str) -> bool:
    return re.search(r"\bsection\s+(?:called|named|titled)\b", text, re.IGNORECASE) is not None


@dataclass(frozen=True)
class Parts:
    """A request as the demo takes it on: the part it does `now`, the parts
    it understands for `later` turns, and those it `cannot` do."""

    now: str
    later: tuple[str, ...] = ()
    cannot: tuple[str, ...] = ()

    def note(self, *, plan: bool = False) -> str:
        """What the answer says of the parts not done now; "" for none."""
        lines = []
        if self.later:
            which = "This plan covers" if plan else "I did"
            rest = " and ".join(f"“{_unstopped(part)}”" for part in self.later)
            lines.append(
                f"{which} one part of your request: “{_unstopped(self.now)}”. I make one "
                f"change per turn, so ask for the rest next: {rest} (the first suggestion below)."
            )
        for part in self.cannot:
            lines.append(f"“{part}” is not something I can do as the offline demo.")
        return " ".join(lines)


def _unstopped(part: str) -> str:
    """A part as quoted mid-sentence: without its own full stop."""
    return part.rstrip(" .")


def parts_in(request: str, *, picked: bool = False) -> Parts:
    """The part of `request` to do now (the first the demo understands), and the rest."""
    parts = parts_of(request, picked=picked)
    if len(parts) == 1:
        return Parts(request)
    intents = [intent_of(part, picked=picked) for part in parts]
    doable = [p for p, i in zip(parts, intents, strict=True) if i not in ("help", "translate")]
    now = doable[0] if doable else request
    return Parts(
        now,
        later=tuple(p for p in doable if p != now),
        cannot=tuple(p for p in parts if p not in doable),
    )
