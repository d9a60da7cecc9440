"""The follow-up requests a final answer ends with, as one line the system
prompt asks for (chat.agent.prompt):

    Done: the site is built. …
    Next: Add a contact form | Make the header dark green | Add an about page

The line is taken off the answer (the loop stores the answer without it, and a
tab that streamed it redraws the answer without it) and kept on the turn's
record, shown as chips under the turn that fill the message box.
"""

from __future__ import annotations

import re

MAX_SUGGESTIONS = 3
MAX_SUGGESTION_CHARS = 160

# The last line, "Next:" however the model dressed it ("**Next:**", "- Next —").
_NEXT_LINE = re.compile(
    r"(?:\A|\n)[ \t>*_-]*next(?: steps?)?[*_]*\s*[:\u2014\u2013-][*_]*[ \t]*(?P<items>[^\n]*)\s*\Z",
    re.IGNORECASE,
)


# A last line that is, or may yet become, the "Next:" line as it streams: "N",
# "Ne", "Nex", or anything from "Next" on, however dressed.
_MAY_BE_NEXT = re.compile(r"[ \t>*_-]*n(?:e(?:x(?:t[^\n]*)?)?)?\Z", re.IGNORECASE)


def shown_while_streaming(answer: str) -> str:
    """`answer` as a tab shows it while it streams: without a last line that may
    be the "Next:" line, which is taken off when the answer ends (shown, it
    would vanish then). A line that was not shows once the next one begins."""
    start = answer.rfind("\n") + 1
    if _MAY_BE_NEXT.match(answer, start):
        return answer[:start]
    return answer


def split_next(answer: str) -> tuple[str, tuple[str, ...]]:
    """`answer` without its closing "Next:" line, and that line's suggestions;
    the answer as it was, and none, when it has no such line."""
    found = _NEXT_LINE.search(answer.rstrip())
    if found is None:
        return answer, ()
    items = [_cleaned(item) for item in found.group("items").split("|")]
    suggestions = tuple(item for item in items if item)[:MAX_SUGGESTIONS]
    if not suggestions:
        return answer, ()
    return answer.rstrip()[: found.start()].rstrip(), suggestions


def _cleaned(item: str) -> str:
    text = " ".join(item.strip().strip('*_`"\u201c\u201d').split())
    return text[:MAX_SUGGESTION_CHARS]
