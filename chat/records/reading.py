"""Readers the records share: each takes whatever a stored column holds and
never raises; what is missing or malformed reads as its empty value."""

from __future__ import annotations

from typing import TypeVar, get_args

from chat.llm import Usage
from common.jsontypes import JSONValue, as_decimal, as_int, as_object

_Choice = TypeVar("_Choice", bound=str)


def one_of(value: JSONValue, choices: object, default: _Choice) -> _Choice:
    """`value` if it is one of the Literal `choices`' values, else `default`."""
    if isinstance(value, str) and value in get_args(choices):
        return value  # type: ignore[return-value]  # mypy cannot narrow to a Literal from its values
    return default


def number(value: JSONValue) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def usage_from(value: JSONValue) -> Usage:
    """The inverse of `Usage.to_json` (its flat shape, cost as a string)."""
    stored = as_object(value)
    counts = {
        name: max(as_int(stored.get(name)) or 0, 0)
        for name in (
            "prompt_tokens",
            "completion_tokens",
            "total_tokens",
            "reasoning_tokens",
            "cached_tokens",
        )
    }
    return Usage(**counts, cost=as_decimal(stored.get("cost")))


def items(value: JSONValue) -> list[JSONValue]:
    # A list as stored, or a tuple as an event's asdict() left it.
    return list(value) if isinstance(value, list | tuple) else []
