"""What a schedule section holds, as a table people can read row by row: a
studio's week of classes, an event's programme for the day, or a plain week.
The days and times are examples, and the demo's answer says so
(demo.content.examples_note)."""

from __future__ import annotations

import html

Rows = tuple[tuple[str, ...], ...]

# (column headings, rows), by kind of place; a kind with none gets the last.
_TABLES: dict[str, tuple[tuple[str, ...], Rows]] = {
    "class": (
        ("Day", "Time", "Class"),
        (
            ("Monday", "7:00", "Morning class, all levels"),
            ("Tuesday", "18:30", "Beginners, the basics step by step"),
            ("Wednesday", "12:15", "Lunchtime express, 45 minutes"),
            ("Thursday", "18:30", "Improvers, for a bit more challenge"),
            ("Saturday", "9:30", "Weekend class, all levels"),
        ),
    ),
    "event": (
        ("Time", "What's on"),
        (
            ("9:00", "Doors open, with coffee"),
            ("10:00", "Welcome and the opening"),
            ("12:30", "Lunch"),
            ("14:00", "The afternoon programme"),
            ("17:30", "Drinks and goodbyes"),
        ),
    ),
    "wedding": (
        ("Time", "What's on"),
        (
            ("14:00", "The ceremony, in the garden"),
            ("16:00", "Drinks and photos on the lawn"),
            ("18:30", "Dinner in the barn"),
            ("21:00", "Dancing until late"),
        ),
    ),
    "": (
        ("Day", "Time", "What"),
        (
            ("Monday to Friday", "9:00 to 17:30", "Open as usual"),
            ("Saturday", "10:00 to 14:00", "Drop in, no appointment needed"),
            ("Sunday", "Closed", "See you on Monday"),
        ),
    ),
}


def schedule(kind: str) -> str:
    """The schedule's table for a `kind` of place (demo.kinds), indented
    for the page."""
    columns, rows = _TABLES.get(kind, _TABLES[""])
    head = "".join(f'<th scope="col">{_text(column)}</th>' for column in columns)
    body = "\n".join(
        "          <tr>"
        + "".join(
            (f'<th scope="row">{_text(cell)}</th>' if number == 0 else f"<td>{_text(cell)}</td>")
            for number, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"""      <table class="timetable">
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>
{body}
        </tbody>
      </table>"""


def _text(words: str) -> str:
    return html.escape(words, quote=False)
