"""The demo's summary of earlier turns (chat.agent.compaction), honest about
what it is: it cannot condense, so it lists what was asked and what changed,
shortest first, under the headings a model is asked for."""

from __future__ import annotations

import re
from typing import Any

from chat.asks import SUMMARY_TASK
from chat.demo.reading import text_of

_ASKED = re.compile(r"^The person: (.+)$", re.MULTILINE)
_CHANGED = re.compile(r"^\[Files changed: (.+)\]$|^\[Files changed in this turn: (.+)\]$", re.M)
_NAME = re.compile(r'^The project is called "(.+)"\.', re.MULTILINE)
_REQUEST_CHARS = 100
_MOST_REQUESTS = 12


def is_summary_request(messages: list[dict[str, Any]]) -> bool:
    first = messages[0] if messages else {}
    return first.get("role") == "system" and text_of(first).startswith(SUMMARY_TASK)


def demo_summary(messages: list[dict[str, Any]]) -> str:
    body = "\n".join(text_of(m) for m in messages if m.get("role") == "user")
    name = _NAME.search(body)
    asked = [_short(found) for found in _ASKED.findall(body)]
    changed: dict[str, None] = {}
    for found in _CHANGED.findall(body):
        for path in ", ".join(part for part in found if part).split(", "):
            changed[path.strip()] = None
    shown = asked[-_MOST_REQUESTS:]
    earlier = len(asked) - len(shown)
    lines = [
        "The site",
        f"- The project “{name.group(1) if name else 'this project'}”.",
        "The person's wishes (their requests, in order)",
        *([f"- … and {earlier} earlier requests"] if earlier else []),
        *(f"- {request}" for request in shown),
        "Done",
        f"- Files changed: {', '.join(changed) if changed else 'none'}.",
        "Open",
        "- Nothing noted: the offline demo lists requests, it does not weigh them.",
    ]
    return "\n".join(lines)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _REQUEST_CHARS else text[: _REQUEST_CHARS - 1] + "…"
