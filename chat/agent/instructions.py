"""The owner's standing instructions (/AGENTS.md: projects.files.instructions)
as they enter the system prompt: framed, so the model knows whose words they
are, and bounded, so a long file cannot crowd out the rest of the turn.

`project_instructions` is the text exactly as the prompt carries it, for
whoever needs to measure it (the context gauge counts its share of tokens).
"""

from __future__ import annotations

from projects import selectors
from projects.files.instructions import INSTRUCTIONS_PATH, MAX_INSTRUCTIONS_CHARS
from projects.models import Project

__all__ = ["MAX_INSTRUCTIONS_CHARS", "instructions_section", "project_instructions"]


def project_instructions(project: Project) -> str:
    """The project's instructions as its system prompt carries them this turn;
    "" when it has none. Reads the database: call it from a thread."""
    return instructions_section(selectors.instructions_text(project))


def instructions_section(text: str | None) -> str:
    """The system prompt's part for the instructions `text` ("" for none)."""
    if text is None or not text.strip():
        return ""
    body = text.strip()
    cut = ""
    if len(body) > MAX_INSTRUCTIONS_CHARS:
        cut = (
            f"\n[Cut here: {INSTRUCTIONS_PATH} has {len(body):,} characters and only the "
            f"first {MAX_INSTRUCTIONS_CHARS:,} are read. Tell the person the rest was not "
            "read, and suggest they shorten it.]"
        )
        body = body[:MAX_INSTRUCTIONS_CHARS]
    return (
        f"The owner's standing instructions for this project, from {INSTRUCTIONS_PATH} "
        "(they wrote them and keep them up to date). Follow them in every turn; where the "
        "person's message asks for something else, the message wins.\n"
        f"--- {INSTRUCTIONS_PATH} ---\n{body}{cut}\n--- end of {INSTRUCTIONS_PATH} ---"
    )
