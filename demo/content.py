"""What goes in each section the offline demo writes, beyond its heading and
first line (demo.tones): a menu with items and prices, opening hours, a
contact block, a gallery, cards, quotes, questions. Chosen by the kind of
place, so a bakery's menu has loaves and a restaurant's has mains.

The details a place must give itself (prices, an address, a phone number)
are examples that read naturally; `examples_note` says which ones a page
holds, for the answer to tell the person.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from demo.examples import (
    ABOUT,
    BLOG_POSTS,
    EVENTS,
    FAMILY,
    FAQ,
    GALLERY,
    POSTS,
    PRICING,
    PRODUCTS,
    PROJECTS,
    QUOTES,
    SERVICES,
    TEAM,
    TICKETS,
    Cards,
    Priced,
)
from demo.forms import contact_form, rsvp_form
from demo.menus import HOURS, MENUS
from demo.timetables import schedule


def section_body(section_id: str, kind: str, name: str) -> str:
    """The HTML under a section's first line, indented for the page; "" for a
    section the demo has nothing more to say in."""
    build = _BODIES.get(section_id)
    return build(kind, name) if build is not None else ""


def examples_note(page: str) -> str:
    """Which details on `page` (HTML) are the demo's examples, as a sentence."""
    held = list(dict.fromkeys(words for marker, words in _EXAMPLES if marker in page))
    if not held:
        return ""
    listed = held[0] if len(held) == 1 else ", ".join(held[:-1]) + " and " + held[-1]
    return f"The {listed} are examples: put your own in."


_EXAMPLES = (
    ('class="price"', "prices"),
    ('<section id="pricing"', "prices"),
    ('class="hours"', "opening hours"),
    ('class="timetable"', "times"),
    ('class="contact-details"', "contact details"),
)


def _family(kind: str) -> str:
    return FAMILY.get(kind, kind)


def _pick(table: dict[str, Cards], kind: str) -> Cards:
    return table.get(kind) or table.get(_family(kind)) or table[""]


def _text(words: str) -> str:
    return html.escape(words, quote=False)


def _menu(kind: str, name: str) -> str:
    groups = MENUS.get(kind) or MENUS["café" if _family(kind) == "food" else "bakery"]
    parts = []
    for group, items in groups:
        if group:
            parts.append(f'      <h3 class="menu-group">{_text(group)}</h3>')
        rows = "\n".join(
            f"        <li><span>{_text(item)}<small>{_text(line)}</small></span>"
            f'<span class="price">{_text(price)}</span></li>'
            for item, line, price in items
        )
        parts.append(f'      <ul class="menu">\n{rows}\n      </ul>')
    return "\n".join(parts)


def _hours(kind: str, name: str) -> str:
    rows = "\n".join(
        f"        <dt>{_text(days)}</dt><dd>{_text(times)}</dd>"
        for days, times in HOURS.get(kind, HOURS[""])
    )
    return f'      <dl class="hours">\n{rows}\n      </dl>'


def _contact(kind: str, name: str) -> str:
    return f"""      <div class="contact-grid">
        <address class="contact-details">
          <strong>{_text(name)}</strong>
          <span>12 Mill Lane, Riverside</span>
          <a href="tel:+441632960123">+44 1632 960123</a>
          <a href="mailto:hello@example.com">hello@example.com</a>
        </address>
{contact_form(indent=8)}
      </div>"""


def _location(kind: str, name: str) -> str:
    return (
        "      <p>12 Mill Lane, Riverside: two minutes from the station, "
        "with bike racks by the door.</p>"
    )


def _priced(items: Priced) -> str:
    cards = "\n".join(
        f'        <li class="card"><h3>{_text(title)}</h3><p>{_text(line)}</p>'
        f'<p class="price">{_text(price)}</p></li>'
        for title, line, price in items
    )
    return f'      <ul class="cards">\n{cards}\n      </ul>'


def _cards(items: Cards) -> str:
    cards = "\n".join(
        f'        <li class="card"><h3>{_text(title)}</h3><p>{_text(line)}</p></li>'
        for title, line in items
    )
    return f'      <ul class="cards">\n{cards}\n      </ul>'


def _gallery(kind: str, name: str) -> str:
    tiles = "\n".join(
        f'        <figure class="tile"><figcaption>{_text(caption)}</figcaption></figure>'
        for caption in GALLERY.get(_family(kind), GALLERY[""])
    )
    return f'      <div class="gallery">\n{tiles}\n      </div>'


def _quotes(kind: str, name: str) -> str:
    quotes = "\n".join(
        f"        <blockquote><p>“{_text(said)}”</p><footer>{_text(who)}</footer></blockquote>"
        for said, who in _pick(QUOTES, kind)
    )
    return f'      <div class="quotes">\n{quotes}\n      </div>'


def _faq(kind: str, name: str) -> str:
    questions = "\n".join(
        f"        <details><summary>{_text(asked)}</summary><p>{_text(said)}</p></details>"
        for asked, said in _pick(FAQ, kind)
    )
    return f'      <div class="faq">\n{questions}\n      </div>'


def _about(kind: str, name: str) -> str:
    words = ABOUT.get(kind) or ABOUT.get(_family(kind)) or ABOUT[""]
    return f"      <p>{_text(words.format(name=name))}</p>"


_BODIES: dict[str, Callable[[str, str], str]] = {
    "menu": _menu,
    "hours": _hours,
    "contact": _contact,
    "location": _location,
    "about": _about,
    "gallery": _gallery,
    "testimonials": _quotes,
    "faq": _faq,
    "services": lambda kind, name: _cards(_pick(SERVICES, kind)),
    "pricing": lambda kind, name: _cards(_pick(PRICING, kind)),
    "team": lambda kind, name: _cards(_pick(TEAM, kind)),
    "projects": lambda kind, name: _cards(PROJECTS),
    "events": lambda kind, name: _cards(_pick(EVENTS, kind)),
    "blog": lambda kind, name: _cards(POSTS),
    "posts": lambda kind, name: _cards(BLOG_POSTS),
    "products": lambda kind, name: _priced(PRODUCTS),
    "tickets": lambda kind, name: _priced(TICKETS),
    "schedule": lambda kind, name: schedule(kind),
    "rsvp": lambda kind, name: rsvp_form(),
}
