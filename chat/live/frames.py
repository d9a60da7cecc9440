"""What a browser (or script) may send on the chat socket, checked before use.

    {"message": "Add a contact page", "model": "openai/gpt-5-mini"}   start a turn
    {"action": "stop"}                                                 stop the running one
    {"action": "open", "path": "/index.html"}                          the file in my editor
    {"action": "files", "open": "/index.html", "version": 3}           back: the files as they are
    {"action": "files", "since": 41}                                   first: what changed since

"open" tells the project's other people which file this tab shows
(chat.live.presence; "" for none); a viewer may send it too.

A message may carry "attachments": problems the preview reported and elements
the person picked in it (chat.agent.attachments), as a list or as the JSON text
of one (a form field's value); and "plan": true (or a checked box's "on") for a
plan turn, which may look at the project but not change it.

htmx's ws extension adds "HEADERS" (and the form's other fields); unknown keys
are ignored. Anything else is a `FrameRefused` with a sentence for the person;
the socket stays open.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeGuard

from django.conf import settings

from chat.agent.attachments import Attachment, AttachmentsRefused, attachments_from
from chat.services import message_too_long
from common.jsontypes import JSON_CHAR_BYTES, NOT_JSON, JSONObject, decoded
from common.refusals import Refusal
from projects.files.paths import MAX_LENGTH, normalize_path


@dataclass(frozen=True)
class Frame:
    action: Literal["message", "stop", "files", "open"]
    message: str = ""
    model: str = ""
    attachments: tuple[Attachment, ...] = ()
    images: tuple[int, ...] = ()  # pictures uploaded first (chat.images), by id
    plan: bool = False
    # "files": the file open in the tab's editor ("" for none) and its version there.
    open_path: str = ""
    open_version: int = 0
    # "files" from a tab's first socket: the newest revision its page was drawn
    # from (projects.selectors.revision_newest), to hear what changed after.
    since: int | None = None


@dataclass(frozen=True)
class FrameRefused(Refusal):
    """A socket frame not understood, in words for the page."""


_MAX_IMAGE_IDS = 20  # a bound on the list; how many a message may carry is checked when used


def frame_limit() -> int:
    """Bytes a frame may have: a longest message, escaped, and room for the rest."""
    return JSON_CHAR_BYTES * settings.BUILTIT_MAX_MESSAGE_CHARS + 16_384


def parse_frame(text: str | None) -> Frame | FrameRefused:
    """A frame's text (None for a binary frame) as a request, or why it is refused."""
    body = _decoded(text)
    if isinstance(body, FrameRefused):
        return body
    action = body.get("action", "message" if "message" in body else None)
    if action == "stop":
        return Frame("stop")
    if action == "files":  # a tab back after its socket was down: the files as they are
        return _files(body)
    if action == "open":
        return _open(body)
    if action != "message":
        return FrameRefused('Unknown request: send {"message": "…"} or {"action": "stop"}.')
    return _message(body)


def _files(body: JSONObject) -> Frame | FrameRefused:
    path, version = body.get("open", ""), body.get("version", 0)
    if not isinstance(path, str) or len(path) > 1000:
        return FrameRefused("The open file must be given as a path.")
    if not _count(version):
        return FrameRefused("The open file's version must be a number.")
    since = body.get("since")
    if since is not None and not _count(since):
        return FrameRefused("The revision a page was drawn from must be a number.")
    return Frame("files", open_path=path, open_version=version, since=since)


def _count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _open(body: JSONObject) -> Frame | FrameRefused:
    raw = body.get("path", "")
    if raw == "":
        return Frame("open")
    path = normalize_path(raw) if isinstance(raw, str) and len(raw) <= MAX_LENGTH else None
    if not isinstance(path, str):
        return FrameRefused("The open file must be given as a project path, like /index.html.")
    return Frame("open", open_path=path)


def _message(body: JSONObject) -> Frame | FrameRefused:
    message, model = body.get("message"), body.get("model", "")
    if not isinstance(message, str):
        return FrameRefused("Write a message first.")
    if not isinstance(model, str):
        return FrameRefused("The model must be given as text, e.g. openai/gpt-5-mini.")
    attachments = _attachments(body.get("attachments"))
    if isinstance(attachments, FrameRefused):
        return attachments
    images = _images(body.get("images"))
    if isinstance(images, FrameRefused):
        return images
    plan = _plan(body.get("plan", False))
    if isinstance(plan, FrameRefused):
        return plan
    return Frame("message", message, model.strip(), attachments, images, plan)


def _plan(raw: object) -> bool | FrameRefused:
    # JSON's true and false, or a checkbox: "on" when ticked, left out when not.
    if isinstance(raw, bool):
        return raw
    if raw in ("on", "true"):
        return True
    if raw in ("", "false"):
        return False
    return FrameRefused('"plan" must be true or false.')


def _images(raw: object) -> tuple[int, ...] | FrameRefused:
    if isinstance(raw, str):  # a hidden form field's value
        raw = decoded(raw) if raw.strip() else []
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > _MAX_IMAGE_IDS:
        return FrameRefused("The message's pictures were not understood; attach them again.")
    ids = [item for item in raw if isinstance(item, int) and not isinstance(item, bool)]
    if len(ids) != len(raw):
        return FrameRefused("The message's pictures were not understood; attach them again.")
    return tuple(ids)


def _attachments(raw: object) -> tuple[Attachment, ...] | FrameRefused:
    if isinstance(raw, str):  # a hidden form field's value
        raw = decoded(raw) if raw.strip() else None
        if raw is NOT_JSON:
            raw = "not JSON"  # refused below, with the reason
    found = attachments_from(raw)
    if isinstance(found, AttachmentsRefused):
        return FrameRefused(f"The message's attachments were not understood: {found.message}")
    return found


def _decoded(text: str | None) -> JSONObject | FrameRefused:
    if text is None:
        return FrameRefused('Send messages as JSON text, e.g. {"message": "…"}.')
    if len(text) > frame_limit():
        return FrameRefused(message_too_long().message)
    body = decoded(text)
    if body is NOT_JSON:
        return FrameRefused("The server could not read that message (it was not JSON).")
    if not isinstance(body, dict):
        return FrameRefused("The server could not read that message (expected a JSON object).")
    return body
