"""Submissions as a table (CSV): one row each, a column for every field name
any of them has, in the order first seen. Shared by the inbox's download and
the project's export."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from projects.models import FormSubmission
from projects.publish.forms.fields import Fields

FIXED = ["form", "sent at (UTC)", "page", "spam", "test", "read"]
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def submissions_csv(rows: Iterable[FormSubmission]) -> str:
    listed = [(row, Fields.stored(row.fields)) for row in rows]
    names: list[str] = []
    for _, fields in listed:
        names += [name for name in fields.names() if name not in names]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*FIXED, *names])
    for row, fields in listed:
        fixed = [
            row.form,
            row.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            row.page,
            "yes" if row.spam else "",
            "yes" if row.test else "",
            "yes" if row.read_at else "",
        ]
        writer.writerow([_cell(value) for value in [*fixed, *map(fields.joined, names)]])
    return out.getvalue()


def _cell(value: str) -> str:
    # A visitor wrote these: a spreadsheet must not run "=HYPERLINK(...)" as a formula.
    return "'" + value if value.startswith(_FORMULA) else value
