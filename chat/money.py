"""Money, in one place: costs travel as decimal strings (exact, JSON-safe) and
are shown in dollars, to the cent from a dollar up and to a hundredth of a cent
below (a turn often costs less than a cent)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation


def money(cost: Decimal | None) -> str | None:
    """A cost as it travels in events, JSON and metadata."""
    return None if cost is None else str(cost)


def dollars(amount: Decimal | str | None) -> str:
    """A cost for people: "$0.0042", "$1.25"; "" when there is none (or it is not a number)."""
    if amount is None:
        return ""
    try:
        value = Decimal(amount)
    except InvalidOperation:
        return ""
    if not value.is_finite():
        return ""
    return f"${value:.2f}" if value >= 1 else f"${value:.4f}"
