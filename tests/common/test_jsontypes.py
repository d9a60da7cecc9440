"""The one decoder of untrusted JSON: whatever arrives, a value or NOT_JSON, never an exception."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest

from common.jsontypes import (
    NOT_JSON,
    as_decimal,
    as_int,
    as_list,
    as_object,
    as_str,
    decoded,
    decoded_object,
    json_problem,
)

DEEP = "[" * 200_000 + "]" * 200_000


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": [1, 2.5, "x", true]}', {"a": [1, 2.5, "x", True]}),
        (b'{"a": "\xc3\xa9"}', {"a": "é"}),
        ("null", None),
        ('"text"', "text"),
    ],
)
def test_json_is_decoded_from_text_or_utf8_bytes(text: str | bytes, value: object) -> None:
    assert decoded(text) == value


@pytest.mark.parametrize("form", [str, str.encode])
@pytest.mark.parametrize(
    ("text", "value"),
    [
        # orjson reads these as a float, or refuses them; json's reading counts.
        ('{"tokens": 123456789012345678901234567890}', {"tokens": 123456789012345678901234567890}),
        ("-18446744073709551616", -18446744073709551616),
        ('{"cost": NaN}', {"cost": float("nan")}),
        ("[1e400, -Infinity]", [float("inf"), float("-inf")]),
        ('"\\ud800"', "\ud800"),  # a lone surrogate, escaped
    ],
)
def test_what_json_accepts_is_read_as_json_reads_it(
    form: Callable[[str], str | bytes], text: str, value: object
) -> None:
    found = decoded(form(text))
    assert repr(found) == repr(value)  # NaN is not equal to itself; the repr says it is one
    assert type(found) is type(value)


def test_null_is_a_value_not_a_failure() -> None:
    assert decoded("null") is None
    assert decoded("null") is not NOT_JSON


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "{'a': 1}",
        "[1, 2,]",
        "nul",
        b"\xff\xfe{}",  # not UTF-8
        b'"\xc3"',  # a character cut in half
        DEEP,  # deep enough to exhaust the parser's recursion
    ],
)
def test_anything_else_is_not_json(text: str | bytes) -> None:
    assert decoded(text) is NOT_JSON


def test_why_text_is_not_json_is_said() -> None:
    assert json_problem('{"a": 1}') == ""
    assert json_problem(DEEP) == "nested too deeply"
    assert "Expecting" in json_problem("{")


def test_an_object_is_only_an_object() -> None:
    assert decoded_object('{"a": 1}') == {"a": 1}
    assert decoded_object("[1]") is None
    assert decoded_object("{") is None
    assert as_object([1]) == {}
    assert as_object({"a": 1}) == {"a": 1}
    assert as_list({"a": 1}) == []
    assert as_list([1]) == [1]
    assert as_str(1) is None
    assert as_str("1") == "1"


@pytest.mark.parametrize(
    ("value", "number"),
    [(3, 3), (3.0, 3), (3.5, None), (True, None), ("3", None), (None, None)],
)
def test_a_count_is_an_integer_and_never_a_bool(value: object, number: int | None) -> None:
    assert as_int(value) == number  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "amount"),
    [
        ("1.50", Decimal("1.50")),
        (0.25, Decimal("0.25")),
        (2, Decimal(2)),
        ("NaN", None),
        ("Infinity", None),
        ("a dollar", None),
        (True, None),
        ([1], None),
    ],
)
def test_a_price_is_a_finite_decimal(value: object, amount: Decimal | None) -> None:
    assert as_decimal(value) == amount  # type: ignore[arg-type]
