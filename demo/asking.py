"""What the person's message holds, as the demo reads it: their own words, and
apart from them what the preview added (chat.agent.attachments.for_model): the
elements they picked, each with its tag, its text and its page, and the
problems the preview reported (an error with its file and line, a file that
failed to load), which the demo looks into when the person asks it to fix
them or says nothing else it understands (demo.runtime).

The context's framing is written by the agent, which the demo sits below and
cannot import; tests/demo/test_demo_asking.py checks that the two agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from common.jsontypes import decoded

PREVIEW_CONTEXT = "Context from the live preview, as the page reported it ("
_PICKED = re.compile(
    r"^- The person picked an element on (?P<page>.*?): <(?P<tag>[a-z][a-z0-9-]*)>, "
    r"selector (?P<selector>\".*?(?<!\\)\"), (?:its text (?P<text>\".*\")|no text)$"
)
# A problem as chat.agent.attachments.for_model lists it: "- Error at /script.js:2:46: …".
_KINDS = {
    "Error": "error",
    "Unhandled rejection": "rejection",
    "console.error": "console.error",
    "console.warn": "console.warn",
    "Failed to load": "resource",
}
_PROBLEM = re.compile(
    rf"^- (?P<kind>{'|'.join(re.escape(name) for name in _KINDS)})"
    r"(?: at (?P<place>\S+?)(?::(?P<line>\d{1,7})(?::(?P<column>\d{1,7}))?)?)?: (?P<message>.+)$"
)


@dataclass(frozen=True)
class Pick:
    """An element the person picked in the preview."""

    tag: str
    page: str  # a project path, "/index.html" for the site's root
    text: str  # as the chip showed it: one line, cut at 100 characters
    selector: str = ""


@dataclass(frozen=True)
class Reported:
    """A problem the preview reported, as its problems panel listed it."""

    kind: str  # "error", "rejection", "console.error", "console.warn", "resource"
    message: str
    file: str = ""  # a project path ("/script.js"); for a failed load, the page that asked
    line: int = 0
    column: int = 0


@dataclass(frozen=True)
class Asked:
    words: str  # the person's, without the preview's context
    picks: tuple[Pick, ...] = ()
    problems: tuple[Reported, ...] = ()

    @property
    def pick(self) -> Pick | None:
        return self.picks[0] if self.picks else None


def asked_in(message: str) -> Asked:
    """The person's words and the elements they picked, from a message as the
    model reads it."""
    at = message.find(PREVIEW_CONTEXT)
    if at < 0:
        return Asked(message.strip())
    picks, problems = [], []
    for line in message[at:].splitlines()[1:]:
        found = _PICKED.match(line.strip())
        if found is not None:
            picks.append(_pick(found))
        reported = _PROBLEM.match(line.strip())
        if reported is not None:
            problems.append(_problem(reported))
    return Asked(message[:at].strip(), tuple(p for p in picks if p is not None), tuple(problems))


def page_path(page: str) -> str:
    """The file a preview page most likely comes from: "/" is /index.html."""
    path = page.split("?", maxsplit=1)[0].split("#", maxsplit=1)[0].strip()
    if not path or " " in path:  # "the page": the preview knew no better
        return "/index.html"
    if not path.startswith("/"):
        path = "/" + path
    if path.endswith("/"):
        path += "index.html"
    return path


def _pick(found: re.Match[str]) -> Pick | None:
    selector = decoded(found.group("selector"))
    text = decoded(found.group("text")) if found.group("text") else ""
    if not isinstance(selector, str) or not isinstance(text, str):
        return None
    return Pick(found.group("tag"), page_path(found.group("page")), text, selector)


def _problem(found: re.Match[str]) -> Reported:
    place = found.group("place") or ""
    return Reported(
        kind=_KINDS[found.group("kind")],
        message=found.group("message"),
        file=page_path(place) if place else "",
        line=int(found.group("line") or 0),
        column=int(found.group("column") or 0),
    )
