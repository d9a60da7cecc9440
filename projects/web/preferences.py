"""A person's workspace preferences: what the page may store, checked here, the
one place that knows their names and bounds (read by projects.selectors, saved
by projects.services)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from common.refusals import Refusal

THEMES = ("auto", "light", "dark")
_WIDTH = (120, 2000)  # pixels a resizable panel may be


@dataclass(frozen=True)
class PreferencesRefused(Refusal):
    """Preferences a page sent that are not taken."""


def preferences_clean(raw: object) -> dict[str, object] | PreferencesRefused:
    """The changes a page sent, checked: known names, sane values, nothing else."""
    if not isinstance(raw, dict) or not raw:
        return PreferencesRefused("Send an object of preferences to change.")
    clean: dict[str, object] = {}
    for name, value in raw.items():
        checked = _checked(name, value)
        if isinstance(checked, PreferencesRefused):
            return checked
        clean[name] = checked
    return clean


_INVALID = object()


def _width(value: object) -> object:
    low, high = _WIDTH
    ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
    return value if ok else _INVALID


def _switch(value: object) -> object:
    return value if isinstance(value, bool) else _INVALID


def _theme(value: object) -> object:
    return value if value in THEMES else _INVALID


# Each preference: how its value is checked, and what to say when it is wrong.
_CHECKS: dict[str, tuple[Callable[[object], object], str]] = {
    "chatWidth": (_width, "a width in pixels, from {} to {}".format(*_WIDTH)),
    "filesWidth": (_width, "a width in pixels, from {} to {}".format(*_WIDTH)),
    "chatCollapsed": (_switch, "true or false"),
    "filesCollapsed": (_switch, "true or false"),
    "wrap": (_switch, "true or false"),
    "setupNoticeClosed": (_switch, "true or false"),
    "theme": (_theme, "one of " + ", ".join(THEMES)),
}


def _checked(name: object, value: object) -> object:
    check = _CHECKS.get(name) if isinstance(name, str) else None
    if check is None:
        return PreferencesRefused(f"There is no preference called {str(name)[:40]!r}.")
    checked = check[0](value)
    if checked is _INVALID:
        return PreferencesRefused(f"{name} is {check[1]}.")
    return checked
