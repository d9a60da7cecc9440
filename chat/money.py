"""Money, in one place: costs travel as decimal strings (exact, JSON-safe) and
are shown in dollars, to the cent from a dollar up and to a hundredth of a cent
below (a turn often costs less than a cent); nothing at all is "$0.00", not
four zeros that suggest a rounding."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation


def money(cost: Decimal | None) -> str | None:
    """A cost as it travels in events, JSON and metadata."""
    return None if cost is None else str(cost)


def dollars(amount: Decimal | str | None) -> str:
    """A cost for people: "$0.0042", "$1.25", "$0.00" for nothing (the offline
    demo's turns); "" when there is none (or it is not a number)."""
    if amount is None:
        return ""
    try:
        value = Decimal(amount)
    except InvalidOperation:
        return ""
    if not value.is_finite():
        return ""
    return f"${value:.2f}" if value >= 1 or value == 0 else f"${value:.4f}"
