"""Costs in templates, as everywhere else (chat.money.dollars)."""

from __future__ import annotations

from decimal import Decimal

from django import template

from chat.money import dollars

register = template.Library()


@register.filter(name="dollars")
def dollars_filter(amount: Decimal | str | None) -> str:
    return dollars(amount)
