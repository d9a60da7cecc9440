"""What the chat socket sends, cut into frames of a bounded size.

Daphne closes a socket whose frame passes 1 MiB (autobahn's default, which it
does not let us change), and a tab that loses its socket on every connect
cannot chat at all. So no frame of ours passes BUILTIT_MAX_FRAME_BYTES: HTML
goes out as its out-of-band swaps spread over as many frames as needed, and a
JSON event too big for one frame is split (streamed text) or trimmed (a tool's
arguments or result, marked `"truncated": true`). The pieces of a turn are
already bounded where they are drawn (chat.render.fragments, chat.render.transcript); this
is the last line, and it holds whatever comes.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from chat.render.panel import notice_html
from common.jsontypes import JSON_CHAR_BYTES, JSONObject

logger = logging.getLogger(__name__)

# Every swap we send starts a top-level element; only chat.render.fragments.oob makes
# the wrapper, and sanitised Markdown never carries hx-* attributes.
_SWAP_START = re.compile(r'(?=<div hx-swap-oob=")')
TOO_BIG_NOTICE = "Part of this turn is too large to show here. Reload the page to see the rest."
# Text of a JSON event is split so that each piece, escaped, fits a frame.
_ROOM = 512  # for the event's other fields


def html_frames(html: str, limit: int) -> list[str]:
    """`html` (out-of-band swaps) as frames of at most `limit` bytes each."""
    frames: list[str] = []
    current: list[str] = []
    size = 0
    for swap in _parts(html):
        part, part_size = swap, len(swap.encode())
        if part_size > limit:
            logger.warning("A chat fragment of %d bytes was not sent (limit %d).", part_size, limit)
            part = notice_html(TOO_BIG_NOTICE)
            part_size = len(part.encode())
        if current and size + part_size > limit:
            frames.append("".join(current))
            current, size = [], 0
        current.append(part)
        size += part_size
    if current:
        frames.append("".join(current))
    return frames


def _parts(html: str) -> list[str]:
    return [part for part in _SWAP_START.split(html) if part]


def json_frames(event: JSONObject, limit: int) -> list[str]:
    """One event as JSON frames of at most `limit` bytes: streamed text split into
    several events of the same type, anything else trimmed and marked."""
    frame = _dumps(event)
    if len(frame.encode()) <= limit:
        return [frame]
    kind = event.get("type")
    text = event.get("text")
    if kind in {"content", "reasoning"} and isinstance(text, str):
        step = max((limit - _ROOM) // JSON_CHAR_BYTES, 1)
        return [_dumps({**event, "text": text[i : i + step]}) for i in range(0, len(text), step)]
    return [_trimmed(event, limit)]


def _trimmed(event: JSONObject, limit: int) -> str:
    """The event with its long strings cut until it fits, marked as truncated."""
    keep = max((limit - _ROOM) // (JSON_CHAR_BYTES * 4), 64)
    trimmed: JSONObject = {**_cut_strings(event, keep), "truncated": True}
    frame = _dumps(trimmed)
    if len(frame.encode()) <= limit:
        return frame
    # Too many fields for that: keep only what names the event.
    names = ("type", "id", "name", "ok", "summary", "code", "message")
    small: JSONObject = {key: event[key] for key in names if isinstance(event.get(key), str)}
    return _dumps({**_cut_strings(small, 200), "truncated": True})


def _cut_strings(value: Any, keep: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= keep else value[:keep] + "…"
    if isinstance(value, dict):
        return {key: _cut_strings(item, keep) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_cut_strings(item, keep) for item in value]
    return value


def _dumps(event: JSONObject) -> str:
    return json.dumps(event, ensure_ascii=False)
