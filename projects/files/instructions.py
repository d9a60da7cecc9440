"""The project's instructions: `/AGENTS.md` at its root, the owner's standing
instructions to the assistant.

It is a file like any other for the owner (the editor, history, the ZIP
export), but it is not part of the site: the preview answers 404 for it, a
publish leaves it out and the site check does not read it. The assistant reads
it in every turn (chat.agent.instructions) and may change it only when the
person asks it to remember something (chat.tools.instructions).
"""

from __future__ import annotations

from typing import Final

INSTRUCTIONS_PATH: Final = "/AGENTS.md"
# How much of it the assistant reads (about 2,000 tokens: room for a page of
# preferences, not for a second site); the workspace tells the owner of the rest.
MAX_INSTRUCTIONS_CHARS: Final = 8_000


def instructions_unread(text: str) -> int:
    """How many characters of the instructions `text` the assistant does not read."""
    return max(len(text.strip()) - MAX_INSTRUCTIONS_CHARS, 0)


def is_instructions(path: str) -> bool:
    """Whether the canonical `path` names the instructions. Any letter case:
    two paths that differ only in case cannot coexist, so `/agents.md` is the
    same file to the owner, and leaving it out of the site must not depend on
    how they spelled it."""
    return path.lower() == INSTRUCTIONS_PATH.lower()
