"""A tool call's arguments and result as its card shows them: pretty JSON,
file contents as they read (not as JSON strings), cut when long with a note
of how much more there is; the rest is a link away (`is_cut` says when)."""

from __future__ import annotations

import json

from common.jsontypes import NOT_JSON, decoded

_SHOWN_CHARS = 4_000  # of a tool's arguments or result on its card
_MORE = " more characters)"


def shown(text: str) -> str:
    """A stored result as a card shows it: pretty JSON, cut when long."""
    value = decoded(text)
    return _cut(text) if value is NOT_JSON else shown_result(value)


def shown_result(result: object) -> str:
    """A result (as the loop gives it) as a card shows it: pretty JSON, cut when long."""
    return _cut(json.dumps(result, indent=2, ensure_ascii=False))


def shown_arguments(text: str) -> str:
    """A call's arguments, one per line; file contents as they read, not as JSON strings."""
    arguments = decoded(text)
    if arguments is NOT_JSON:
        return _cut(text)
    if not isinstance(arguments, dict):
        return shown(text)
    lines = []
    for key, value in arguments.items():
        if isinstance(value, str) and "\n" in value:
            lines.append(f"{key}:\n{value}")
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return _cut("\n".join(lines))


def is_cut(text: str) -> bool:
    """Whether a card's text is the beginning of a longer one."""
    return text.endswith(_MORE)


def _cut(text: str) -> str:
    if len(text) > _SHOWN_CHARS:
        return text[:_SHOWN_CHARS] + f"\n… ({len(text) - _SHOWN_CHARS:,}{_MORE}"
    return text
