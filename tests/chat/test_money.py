"""Every cost a person sees is written by chat.money.dollars: the chat footer,
the conversation's totals, the spending-limit messages, the terminal and the admin."""

from __future__ import annotations

from decimal import Decimal

import pytest

from chat.money import dollars, money


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (Decimal("0.00042"), "$0.0004"),
        ("0.0042", "$0.0042"),
        (Decimal("0.99996"), "$1.0000"),
        (Decimal("1"), "$1.00"),
        ("12.345", "$12.34"),  # half-even rounding, as Decimal formats
        (Decimal(0), "$0.00"),
        (None, ""),
        ("not a number", ""),
        ("NaN", ""),
        ("Infinity", ""),
    ],
)
def test_dollars(amount: Decimal | str | None, shown: str) -> None:
    assert dollars(amount) == shown


def test_money_travels_as_an_exact_decimal_string() -> None:
    assert money(Decimal("0.000123456789")) == "0.000123456789"
    assert money(None) is None
