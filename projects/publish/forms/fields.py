"""What a visitor's form sent, as the inbox keeps it: names and values in the
order sent (a name may come more than once: checkboxes), each bounded.

The form's own controls are not fields: `_gotcha` (the honeypot: filled, the
submission is spam) and `_next` (where the visitor goes afterwards)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.http import QueryDict

HONEYPOT = "_gotcha"
NEXT = "_next"
CONTROLS = frozenset({HONEYPOT, NEXT})
MAX_FIELDS = 50
MAX_NAME = 100  # characters of a field's name
MAX_VALUE = 10_000  # characters of a field's value
MAX_TEXT = 20_000  # characters of all values together


@dataclass(frozen=True)
class Fields:
    pairs: tuple[tuple[str, str], ...]

    @classmethod
    def stored(cls, raw: object) -> Fields:
        """The fields as a submission's JSON column holds them (the one reader of it)."""
        pairs: list[tuple[str, str]] = []
        for item in raw if isinstance(raw, list) else []:
            if isinstance(item, list) and len(item) == 2:
                pairs.append((str(item[0]), str(item[1])))
        return cls(tuple(pairs))

    def for_storing(self) -> list[list[str]]:
        return [[name, value] for name, value in self.pairs]

    def names(self) -> list[str]:
        return list(dict.fromkeys(name for name, _ in self.pairs))

    def joined(self, name: str) -> str:
        """Every value sent as `name`, one after the other."""
        return ", ".join(value for key, value in self.pairs if key == name)

    def text(self) -> str:
        return "\n".join(f"{name}: {value}" for name, value in self.pairs)


@dataclass(frozen=True)
class Sent:
    fields: Fields
    spam: bool
    next: str


@dataclass(frozen=True)
class FieldsRefused:
    message: str


def fields_read(posted: QueryDict) -> Sent | FieldsRefused:
    """The fields of a posted form, within the bounds, or why it is refused."""
    pairs: list[tuple[str, str]] = []
    for name, values in posted.lists():
        if name in CONTROLS:
            continue
        pairs.extend((name, value) for value in values)
    problem = _problem(pairs)
    if problem is not None:
        return FieldsRefused(problem)
    honeypot = posted.get(HONEYPOT, "")
    return Sent(
        fields=Fields(tuple((name, _clean(value)) for name, value in pairs)),
        spam=bool(honeypot.strip()),
        next=posted.get(NEXT, "").strip()[:500],
    )


def _problem(pairs: Iterable[tuple[str, str]]) -> str | None:
    listed = list(pairs)
    if not listed:
        return "The form sent no fields: nothing to keep."
    if len(listed) > MAX_FIELDS:
        return f"The form sent {len(listed)} fields; a form here may send at most {MAX_FIELDS}."
    if sum(len(value) for _, value in listed) > MAX_TEXT:
        return f"The form sent more than {MAX_TEXT:,} characters in all."
    return next(filter(None, (_field_problem(name, value) for name, value in listed)), None)


def _field_problem(name: str, value: str) -> str | None:
    if not name.strip():
        return "The form sent a field without a name."
    if len(name) > MAX_NAME:
        return f"A field's name is longer than {MAX_NAME} characters."
    if len(value) > MAX_VALUE:
        return f"The field {name[:40]} is longer than {MAX_VALUE:,} characters."
    return None


def _clean(value: str) -> str:
    # Line ends as a browser normalises them; NUL is no text (PostgreSQL refuses it).
    return value.replace("\r\n", "\n").replace("\x00", "")
