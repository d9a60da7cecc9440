"""When the model's tools may change /AGENTS.md, the owner's standing
instructions (projects.files.instructions).

The instructions are the owner's words to the assistant, read into every turn.
A model that rewrote them on its own would steer every later turn by its own
guesses, unseen; so a tool write to them (create, update, edit, rename from or
to, delete) is refused unless the person's message of this turn asks for
something to be kept for later. The system prompt says the same; this is what
makes it so.

Telling that from the message is a heuristic, kept simple on purpose: a few
English words and phrases ("remember", "from now on", "always", "note
that"…), or naming the file or the instructions. It errs towards allowing: a
wrong yes lets the model make a change the person sees on its card and can
undo (every write is a revision); a wrong no only makes the model ask. Other
languages are not recognised, except by naming AGENTS.md; the owner can always
edit the file themselves.
"""

from __future__ import annotations

import re

from chat.tools.registry import ToolContext, ToolOutcome
from projects.files.instructions import is_instructions
from projects.files.paths import normalize_path

_ASKS_TO_REMEMBER = re.compile(
    r"\b(?:remember|memori[sz]e|keep in mind|(?:don't|do not) forget|from now on"
    r"|going forward|in (?:the )?future|always|note (?:that|this|it|down)|make a note"
    r"|take (?:a )?note|agents\.md|(?:your|standing|project(?:'s)?) instructions)\b",
    re.IGNORECASE,
)


def asks_to_remember(message: str) -> bool:
    """Whether the person's message asks for something to be kept for later
    turns, as far as a few words tell."""
    return _ASKS_TO_REMEMBER.search(message) is not None


def instructions_refusal(context: ToolContext, *paths: str) -> ToolOutcome | None:
    """The answer to a write that would change the instructions when this turn
    may not; None when the write may go on (the file service judges the rest)."""
    if context.may_change_instructions:
        return None
    for path in paths:
        canonical = normalize_path(path)
        if isinstance(canonical, str) and is_instructions(canonical):
            return ToolOutcome.failure(
                f"{canonical} holds the owner's standing instructions: you may change it only "
                "when the person asks you to remember something, and their message in this "
                "turn does not. Leave it as it is; if you think something belongs there, ask "
                "the person whether they want it remembered.",
                summary=f"Not changed: {canonical} changes only when the person asks to remember",
                context={"code": "instructions_protected", "path": canonical},
            )
    return None
