"""The shape of JSON as it crosses the wire, so nothing else has to say `Any`."""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import Literal, TypeAlias

import orjson

JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"
# The most bytes one character of a string takes in JSON text, escaped (`\u001f`).
JSON_CHAR_BYTES = 6


class _NotJSON(Enum):
    NOT_JSON = "not JSON"


NOT_JSON = _NotJSON.NOT_JSON  # distinct from None, which is JSON's `null`

_decode = json.JSONDecoder().decode
_fast_decode = orjson.loads
# orjson reads an integer past 64 bits as a float (json keeps it whole), so text
# with a run of 19 digits anywhere (in a string too: rare, and then only slower)
# is read by json. Found in bytes by turning every digit into "0" (a regex's
# scan cost four times orjson's whole decoding of a stream's chunk).
_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_LONG_NUMBER = b"0" * 19
_LONG_DIGITS_TEXT = re.compile(r"[0-9]{19}")


def _long_digits(text: str | bytes) -> bool:
    if isinstance(text, bytes):
        return _LONG_NUMBER in text.translate(_ZEROS)
    return _LONG_DIGITS_TEXT.search(text) is not None


def decoded(text: str | bytes) -> JSONValue | Literal[_NotJSON.NOT_JSON]:
    """`text` as JSON, or NOT_JSON: whatever a model, a provider or a browser sent.

    The one place untrusted JSON is decoded: besides malformed text, it catches
    bytes that are not UTF-8 and nesting deep enough to exhaust the parser's
    recursion (RecursionError), which `json.loads` lets escape.

    orjson first (in C: a streamed answer decodes one JSON chunk per piece, a
    tenth of the work of reading it), json's reading wherever orjson refuses or
    could differ: json takes NaN, Infinity, 1e400 and escaped lone surrogates,
    and keeps integers past 64 bits whole, so what json accepts is still
    accepted, as json reads it."""
    if not _long_digits(text):
        try:
            return _fast_decode(text)  # type: ignore[no-any-return]
        except orjson.JSONDecodeError:
            pass  # malformed, or something only json reads: json decides
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
