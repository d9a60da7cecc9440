"""The offline demo asked to remember something ("remember to always use
teal", "from now on, write formally"): it adds the request, as one short line,
at the end of /AGENTS.md, the owner's standing instructions, keeping every
line there; from the next request on it reads the line back like the others
(demo.rules).

The loop lets a turn change the instructions only when the person's message
asks to remember something (chat.tools.instructions.asks_to_remember); the
words recognised here are among the ones it recognises, so the demo asks to
write only when the write may go on.
"""

from __future__ import annotations

import re
from typing import Any

from demo.rules import rules_of
from demo.steps import Step
from projects.files.instructions import INSTRUCTIONS_PATH, is_instructions

_ASKS = re.compile(
    r"^\s*(?:please\s+)?always\b"
    r"|\b(?:remember|memori[sz]e|keep in mind|(?:don't|do not) forget|from now on"
    r"|going forward|make a note|note (?:that|down))\b",
    re.IGNORECASE,
)
# What goes before the thing to remember: "please remember to", "from now on,".
_PREAMBLE = re.compile(
    r"^(?:please\s+|(?:can|could|would|will) you\s+|and\s+"
    r"|(?:remember|memori[sz]e|keep in mind|(?:don't|do not) forget|make a note|note)"
    r"(?:\s+(?:that|to|this|down))?\s*[:,]?(?:\s+|$)"
    r"|(?:from now on|going forward)\s*[:,]?\s*)",
    re.IGNORECASE,
)
_NEW_FILE = "# Instructions for the assistant\n\n"
_MAX_LINE = 200


def asks_to_remember(request: str) -> bool:
    return _ASKS.search(request) is not None


def line_to_remember(request: str) -> str:
    """The request as a line of instructions: "remember to always use teal" →
    "Always use teal."; "" when nothing is left to remember."""
    line = " ".join(request.split())
    while (found := _PREAMBLE.match(line)) is not None and found.end() > 0:
        line = line[found.end() :]
    line = line.strip(" ,:;-").rstrip("?")[:_MAX_LINE]
    if not line:
        return ""
    line = line[0].upper() + line[1:]
    return line if line[-1] in ".!" else line + "."


def to_read(files: list[str]) -> list[str]:
    return [path for path in files if is_instructions(path)]


def remember(request: str, files: list[str], texts: dict[str, str]) -> Step:
    """The write that keeps the request in the instructions."""
    line = line_to_remember(request)
    if not line:
        return Step(
            "Nothing is left to remember once the asking words are gone.",
            "What should I remember? Say it in one sentence, for example “Remember to "
            "always use teal”.",
        )
    path = next(iter(to_read(files)), None)
    if path is None:
        content = f"{_NEW_FILE}- {line}\n"
        return Step(
            f"There is no {INSTRUCTIONS_PATH} yet; I'll start one with this line.",
            f"Starting {INSTRUCTIONS_PATH.lstrip('/')} with “{line}”.",
            [("create_file", {"path": INSTRUCTIONS_PATH, "content": content})],
        )
    current = texts.get(path)
    if current is None:
        return Step(
            f"I could not read {path}, so I cannot add to it without losing what is there.",
            f"I could not read {path.lstrip('/')}, so I left it as it is.",
        )
    if line.rstrip(".!").lower() in current.lower():
        return Step(
            f"{path} already says this.",
            f"{path.lstrip('/')} already says “{line}”: nothing to add.",
        )
    return Step(
        f"One line at the end of {path}, keeping everything already there.",
        f"Adding “{line}” to {path.lstrip('/')}.",
        [_append(path, current, line)],
    )


def remembered_note(request: str) -> str:
    """Whether the demo itself will follow the line it wrote, said honestly."""
    if rules_of(line_to_remember(request)).understood:
        return "I'll follow it from your next message on."
    return (
        "Every model reads it from your next message on; as the offline demo I can only "
        "follow a colour, a tone, a name or a font there, so this one needs a real model."
    )


def _append(path: str, current: str, line: str) -> tuple[str, dict[str, Any]]:
    """An edit that adds `line` after the file's last line, or a rewrite of a
    file with nothing in it."""
    kept = current.rstrip()
    if not kept:
        return ("update_file", {"path": path, "content": f"{_NEW_FILE}- {line}\n"})
    bullets = any(ln.lstrip().startswith(("- ", "* ")) for ln in kept.splitlines())
    added = f"\n- {line}" if bullets else f"\n\n{line}"
    last = kept.splitlines()[-1]
    search = last if last.strip() and current.count(last) == 1 else kept
    return ("edit_file", {"path": path, "edits": [{"search": search, "replace": search + added}]})
