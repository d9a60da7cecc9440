"""What the person's message holds, as the demo reads it: their own words, and
apart from them what the preview added (chat.agent.attachments.for_model): the
elements they picked, each with its tag, its text and its page. Problems the
preview reported are context, not a request: the demo leaves them be.

The context's framing is written by the agent, which the demo sits below and
cannot import; tests/demo/test_demo_asking.py checks that the two agree.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

PREVIEW_CONTEXT = "Context from the live preview, as the page reported it ("
_PICKED = re.compile(
    r"^- The person picked an element on (?P<page>.*?): <(?P<tag>[a-z][a-z0-9-]*)>, "
    r"selector (?P<selector>\".*?(?<!\\)\"), (?:its text (?P<text>\".*\")|no text)$"
)


@dataclass(frozen=True)
class Pick:
    """An element the person picked in the preview."""

    tag: str
    page: str  # a project path, "/index.html" for the site's root
    text: str  # as the chip showed it: one line, cut at 100 characters
    selector: str = ""


@dataclass(frozen=True)
class Asked:
    words: str  # the person's, without the preview's context
    picks: tuple[Pick, ...] = ()

    @property
    def pick(self) -> Pick | None:
        return self.picks[0] if self.picks else None


def asked_in(message: str) -> Asked:
    """The person's words and the elements they picked, from a message as the
    model reads it."""
    at = message.find(PREVIEW_CONTEXT)
    if at < 0:
        return Asked(message.strip())
    picks = []
    for line in message[at:].splitlines()[1:]:
        found = _PICKED.match(line.strip())
        if found is not None:
            picks.append(_pick(found))
    return Asked(message[:at].strip(), tuple(p for p in picks if p is not None))


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
    try:
        selector = json.loads(found.group("selector"))
        text = json.loads(found.group("text")) if found.group("text") else ""
    except ValueError:
        return None
    if not isinstance(selector, str) or not isinstance(text, str):
        return None
    return Pick(found.group("tag"), page_path(found.group("page")), text, selector)
