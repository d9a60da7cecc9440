"""The demo's summary of earlier turns (chat.agent.compaction), honest about
what it is: it cannot condense, so it lists what was asked and what changed,
shortest first, under the headings a model is asked for. A later summary
carries the earlier one's requests and files on (the model reads only the
latest), as a model is asked to."""

from __future__ import annotations

import re
from typing import Any

from chat.asks import SUMMARY_TASK
from demo.reading import text_of

_ASKED = re.compile(r"^The person: (.+)$", re.MULTILINE)
_CHANGED = re.compile(r"^\[Files changed: (.+)\]$|^\[Files changed in this turn: (.+)\]$", re.M)
_NAME = re.compile(r'^The project is called "(.+)"\.', re.MULTILINE)
# The summary before these turns, as chat.agent.compaction.summary_request puts it.
_EARLIER = re.compile(
    r"^Summary of the turns before these:\n(.*?)(?=\n\nThe person: |\Z)", re.M | re.S
)
_EARLIER_COUNT = re.compile(r"^- … and (\d+) earlier requests$")
_EARLIER_FILES = re.compile(r"^- Files changed: (.+)\.$", re.MULTILINE)
_WISHES = "The person's wishes"
_REQUEST_CHARS = 100
_MOST_REQUESTS = 12


def is_summary_request(messages: list[dict[str, Any]]) -> bool:
    first = messages[0] if messages else {}
    return first.get("role") == "system" and text_of(first).startswith(SUMMARY_TASK)


def demo_summary(messages: list[dict[str, Any]]) -> str:
    body = "\n".join(text_of(m) for m in messages if m.get("role") == "user")
    name = _NAME.search(body)
    found = _EARLIER.search(body)
    earlier, asked, changed = _carried(found.group(1) if found else "")
    asked += [_short(request) for request in _ASKED.findall(body)]
    for files in _CHANGED.findall(body):
        for path in ", ".join(part for part in files if part).split(", "):
            changed[path.strip()] = None
    shown = asked[-_MOST_REQUESTS:]
    earlier += len(asked) - len(shown)
    # Blank lines between the parts: the summary's marker shows it as Markdown.
    parts = [
        "**The site**",
        f"- The project “{name.group(1) if name else 'this project'}”.",
        f"**{_WISHES}** (their requests, in order)",
        "\n".join(
            [*([f"- … and {earlier} earlier requests"] if earlier else [])]
            + [f"- {request}" for request in shown]
        ),
        "**Done**",
        f"- Files changed: {', '.join(changed) if changed else 'none'}.",
        "**Open**",
        "- Nothing noted: the offline demo lists requests, it does not weigh them.",
    ]
    return "\n\n".join(parts)


def _carried(summary: str) -> tuple[int, list[str], dict[str, None]]:
    """What an earlier demo summary held: how many requests it no longer
    listed, those it listed, and the files it named."""
    earlier, asked = 0, []
    wishes = False
    for line in summary.splitlines():
        heading = line.strip("* ")
        if heading.startswith(_WISHES):
            wishes = True
        elif heading == "Done":
            wishes = False
        elif wishes and (count := _EARLIER_COUNT.match(line)):
            earlier += int(count.group(1))
        elif wishes and line.startswith("- "):
            asked.append(line[2:])
    files = _EARLIER_FILES.search(summary)
    named = [] if files is None or files.group(1) == "none" else files.group(1).split(", ")
    return earlier, asked, dict.fromkeys(named)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _REQUEST_CHARS else text[: _REQUEST_CHARS - 1] + "…"
