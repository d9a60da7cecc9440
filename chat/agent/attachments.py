"""What a person's message may carry besides its words: problems the preview
reported and elements the person pointed at in it (issue 17).

They come from the page (the preview bridge, through the workspace), so they
are untrusted: `attachments_from` keeps only known kinds with bounded fields,
and at most a few of each. The model reads them as context after the message
(`for_model`); the person sees them as compact chips (`label`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from chat.llm.jsontypes import JSONObject

MAX_PROBLEMS = 10
MAX_ELEMENTS = 5
ProblemKind = Literal["error", "rejection", "console.error", "console.warn", "resource"]
_PROBLEM_KINDS: dict[object, ProblemKind] = {
    "error": "error",
    "rejection": "rejection",
    "console.error": "console.error",
    "console.warn": "console.warn",
    "resource": "resource",
}
_LIMITS = {
    "message": 500,
    "file": 300,
    "stack": 1500,
    "page": 300,
    "selector": 300,
    "tag": 40,
    "id": 100,
    "classes": 200,
    "html": 1500,
    "text": 300,
}


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    message: str
    file: str = ""  # the project path, when the preview knew it
    line: int = 0
    column: int = 0
    stack: str = ""
    page: str = ""  # the page that reported it
    type: Literal["problem"] = "problem"


@dataclass(frozen=True)
class PickedElement:
    selector: str
    tag: str
    page: str  # the page it is on: most likely the file it comes from
    id: str = ""
    classes: str = ""
    html: str = ""
    text: str = ""
    type: Literal["element"] = "element"


Attachment = Problem | PickedElement


@dataclass(frozen=True)
class AttachmentError:
    message: str


def attachments_from(raw: object) -> tuple[Attachment, ...] | AttachmentError:
    """Attachments as a page sent them (a list of objects), checked."""
    if raw is None or raw == []:
        return ()
    if not isinstance(raw, list):
        return AttachmentError("Attachments must be a list.")
    found: list[Attachment] = []
    for item in raw:
        attachment = _one(item)
        if isinstance(attachment, AttachmentError):
            return attachment
        found.append(attachment)
    problems = sum(isinstance(item, Problem) for item in found)
    if problems > MAX_PROBLEMS or len(found) - problems > MAX_ELEMENTS:
        return AttachmentError(
            f"A message carries at most {MAX_PROBLEMS} problems and {MAX_ELEMENTS} elements."
        )
    return tuple(found)


def to_json(attachments: tuple[Attachment, ...]) -> list[JSONObject]:
    return [asdict(item) for item in attachments]


def label(item: Attachment) -> str:
    """A chip's words: short, for the person."""
    if isinstance(item, Problem):
        where = item.file.lstrip("/") or item.page.lstrip("/") or "the page"
        line = f":{item.line}" if item.line else ""
        return f"{_KIND_NAMES[item.kind]} in {where}{line}"
    return f"{item.selector} in {item.page.lstrip('/') or 'the page'}"


def for_model(text: str, attachments: tuple[Attachment, ...]) -> str:
    """The person's message as the model reads it: the words, then the context."""
    if not attachments:
        return text
    lines = [text.rstrip(), "", "Context from the live preview (reported by the page, not typed):"]
    for item in attachments:
        if isinstance(item, Problem):
            place = item.file or item.page
            line = f":{item.line}" + (f":{item.column}" if item.column else "") if item.line else ""
            at = f" at {place}{line}" if place else ""
            lines.append(f"- {_KIND_NAMES[item.kind]}{at}: {item.message}")
            if item.stack:
                lines.append("  stack: " + item.stack.replace("\n", "\n  "))
        else:
            lines.append(
                f"- The person pointed at the element `{item.selector}` (<{item.tag}>) on "
                f"{item.page}:\n  {item.html}"
            )
    return "\n".join(lines)


_KIND_NAMES = {
    "error": "Error",
    "rejection": "Unhandled rejection",
    "console.error": "console.error",
    "console.warn": "console.warn",
    "resource": "Failed to load",
}


def _one(item: object) -> Attachment | AttachmentError:
    if not isinstance(item, dict):
        return AttachmentError("Each attachment must be an object.")
    kind = item.get("type")
    fields = {key: value for key, value in item.items() if key != "type"}
    texts = {key: _text(fields.get(key), limit) for key, limit in _LIMITS.items()}
    if kind == "problem":
        problem_kind = _PROBLEM_KINDS.get(fields.get("kind"))
        if problem_kind is None or not texts["message"]:
            return AttachmentError("A problem needs a known kind and a message.")
        return Problem(
            kind=problem_kind,
            message=texts["message"],
            file=texts["file"],
            line=_number(fields.get("line")),
            column=_number(fields.get("column")),
            stack=texts["stack"],
            page=texts["page"],
        )
    if kind == "element":
        if not texts["selector"] or not texts["tag"]:
            return AttachmentError("An element needs a selector and a tag.")
        return PickedElement(
            selector=texts["selector"],
            tag=texts["tag"],
            page=texts["page"],
            id=texts["id"],
            classes=texts["classes"],
            html=texts["html"],
            text=texts["text"],
        )
    return AttachmentError("Unknown attachment: expected a problem or an element.")


def _text(value: object, limit: int) -> str:
    if not isinstance(value, str):
        return ""
    cleaned = "".join(char for char in value if char.isprintable() or char in "\n\t")
    return cleaned[:limit]


def _number(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10_000_000:
        return value
    return 0
