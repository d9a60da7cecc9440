"""The shape of JSON as it crosses the wire, so nothing else has to say `Any`."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import TypeAlias

JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"


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
