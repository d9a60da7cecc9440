"""The shape of JSON as it crosses the wire, so nothing else has to say `Any`."""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import Literal, TypeAlias

JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"
# The most bytes one character of a string takes in JSON text, escaped (`\u001f`).
JSON_CHAR_BYTES = 6


class _NotJSON(Enum):
    NOT_JSON = "not JSON"


NOT_JSON = _NotJSON.NOT_JSON  # distinct from None, which is JSON's `null`

_decode = json.JSONDecoder().decode


def decoded(text: str | bytes) -> JSONValue | Literal[_NotJSON.NOT_JSON]:
    """`text` as JSON, or NOT_JSON: whatever a model, a provider or a browser sent.

    The one place untrusted JSON is decoded: besides malformed text, it catches
    bytes that are not UTF-8 and nesting deep enough to exhaust the parser's
    recursion (RecursionError), which `json.loads` lets escape."""
    try:
        # Decoding first skips json.loads' encoding sniffing, a third of its time.
        return _decode(text.decode() if isinstance(text, bytes) else text)  # type: ignore[no-any-return]
    except (ValueError, RecursionError):  # ValueError includes UnicodeDecodeError
        return NOT_JSON


def json_problem(text: str) -> str:
    """Why `text` is not JSON, in the parser's words ("" when it is), for a model to fix."""
    try:
        _decode(text)
    except RecursionError:
        return "nested too deeply"
    except ValueError as error:
        return str(error)
    return ""


def decoded_object(text: str | bytes) -> JSONObject | None:
    """`text` as a JSON object, or None when it is anything else."""
    value = decoded(text)
    return value if isinstance(value, dict) else None


def as_object(value: JSONValue) -> JSONObject:
    """`value` if it is a JSON object, else an empty one: the wire is not trusted."""
    return value if isinstance(value, dict) else {}


def as_list(value: JSONValue) -> list[JSONValue]:
    return value if isinstance(value, list) else []


def as_str(value: JSONValue) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: JSONValue) -> int | None:
    # bool is an int in Python; a provider sending `true` as a count is not one.
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def as_decimal(value: JSONValue) -> Decimal | None:
    """A finite decimal from a JSON number or numeric string (prices and costs
    arrive as both), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        result = Decimal(str(value))
    except InvalidOperation:
        return None
    return result if result.is_finite() else None
