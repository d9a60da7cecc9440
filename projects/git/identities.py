"""Who a commit names, and what it says: the assistant authors a turn's commit
and the person commits it; a person's own change is theirs alone. The address
is never a person's real one: a repository pushed to a public host would
publish it."""

from __future__ import annotations

from django.contrib.auth.models import User

from projects.files.paths import is_binary_path
from projects.git.steps import Step
from projects.models import FileRevision

ASSISTANT = b"Built-It assistant <assistant@built-it.invalid>"
_NOBODY = b"Built-It <nobody@built-it.invalid>"
MAX_MESSAGE = 20_000  # characters of a request kept in a commit message


def person_identity(user: User | None) -> bytes:
    if user is None:
        return _NOBODY
    name = _clean(user.get_full_name() or user.get_username())
    return f"{name} <{_clean(user.get_username())}@users.built-it.invalid>".encode()


def _clean(text: str) -> str:
    """Without what would break an identity line (angle brackets, newlines)."""
    return "".join(ch for ch in text if ch not in "<>\n\r\0").strip() or "someone"


def step_message(step: Step, summary: str = "") -> bytes:
    """The commit message of a step (a turn's request; an undo's summary; a
    person's change in words), ending in a newline as Git's own do."""
    if step.kind == "turn":
        text = step.request.strip() or "Changes made by the assistant"
    elif step.kind == "reversal":
        text = summary.strip() or "Undo"
    else:
        text = _person_change(step)
    text = text.replace("\r\n", "\n")[:MAX_MESSAGE]
    return (text + "\n").encode("utf-8", "surrogatepass")


def _person_change(step: Step) -> str:
    row = step.last
    if row.note.strip():
        return row.note.strip()
    match row.action:
        case FileRevision.Action.CREATE:
            verb = "Upload" if is_binary_path(row.path) else "Create"
        case FileRevision.Action.RENAME:
            return f"Rename {row.old_path} to {row.path}"
        case FileRevision.Action.DELETE:
            verb = "Delete"
        case _:
            verb = "Upload" if is_binary_path(row.path) else "Save"
    return f"{verb} {row.path}"
