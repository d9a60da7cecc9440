"""What goes in each section the offline demo writes, beyond its heading and
first line (chat.demo.tones): a menu with items and prices, opening hours, a
contact block, a gallery, cards, quotes, questions. Chosen by the kind of
place, so a bakery's menu has loaves and a restaurant's has mains.

The details a place must give itself (prices, an address, a phone number)
are examples that read naturally; `examples_note` says which ones a page
holds, for the answer to tell the person.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from chat.demo.menus import HOURS, MENUS

# One line of content on each kind of card list, by section id and "family" of kind.
Cards = tuple[tuple[str, str], ...]
_FAMILY = {
    "bakery": "food",
    "café": "food",
    "coffee shop": "food",
    "restaurant": "food",
    "portfolio": "creative",
    "photography studio": "creative",
    "studio": "creative",
    "product": "product",
    "app": "product",
}
_SERVICES: dict[str, Cards] = {
    "food": (
        ("Celebration cakes", "Order three days ahead and we will bake it for you."),
        ("Catering", "Platters for meetings, parties and long lunches."),
        ("Gift cards", "For any amount, in the shop or by email."),
    ),
    "creative": (
        ("Brand identity", "Names, logos and the look that ties them together."),
        ("Websites", "Simple, fast sites that are easy to keep up to date."),
        ("Print", "Posters, menus and packaging, ready for the printer."),
    ),
    "product": (
        ("Quick to set up", "Sign up and start in under five minutes."),
        ("Works everywhere", "On your phone, your tablet and your laptop."),
        ("Private by default", "Your data stays yours; we never sell it."),
    ),
    "": (
        ("Advice", "A first conversation to understand what you need, free of charge."),
        ("Made to measure", "Work planned around you, with a clear price up front."),
        ("Aftercare", "We stay in touch and fix anything that needs it."),
    ),
}
_PRICING: dict[str, Cards] = {
    "creative": (
        ("Half day", "$450: a focused session with edited results within a week."),
        ("Full day", "$800: a whole day, two rounds of changes included."),
        ("Project", "From $1,800: planned together, paid in stages."),
    ),
    "product": (
        ("Free", "$0: everything you need to try it, for one person."),
        ("Pro", "$12 a month: no limits, priority help."),
        ("Team", "$29 a month: shared spaces for up to ten people."),
    ),
    "": (
        ("Basic", "$49: the essentials, done well."),
        ("Standard", "$99: our most popular choice."),
        ("Premium", "$199: everything, with extra care."),
    ),
}
_TEAM: dict[str, Cards] = {
    "food": (
        ("Maya Lindqvist", "Founder and head baker"),
        ("Tom Okafor", "Pastry and cakes"),
        ("Inès Duval", "Front of house and coffee"),
    ),
    "": (
        ("Maya Lindqvist", "Founder"),
        ("Tom Okafor", "Projects and planning"),
        ("Inès Duval", "Clients and care"),
    ),
}
_PROJECTS: Cards = (
    ("Roastery rebrand", "A new name, logo and bags for a small coffee roaster."),
    ("Harbour festival", "Posters and a programme for a weekend by the sea."),
    ("Bookshop website", "A calm, quick site with the week's new arrivals."),
)
_EVENTS: dict[str, Cards] = {
    "band": (
        ("Friday 14 March", "The Lantern, doors at 19:30"),
        ("Saturday 5 April", "Summer Fields festival, main stage"),
        ("Thursday 22 May", "The Old Mill, an acoustic night"),
    ),
    "wedding": (
        ("14:00, the ceremony", "In the garden, or the chapel if it rains"),
        ("16:00, drinks and photos", "On the lawn, with music"),
        ("18:30, dinner and dancing", "In the barn, until late"),
    ),
    "": (
        ("Saturday 12 April", "An open morning: come and meet us"),
        ("Thursday 8 May", "An evening talk, with tea and cake"),
        ("Saturday 7 June", "Our summer party"),
    ),
}
_POSTS: Cards = (
    ("A new season", "What we are planning for the months ahead."),
    ("Behind the scenes", "A day in our life, from first light to closing."),
    ("Five things we learned", "Small lessons from our first year."),
)
_FAQ: dict[str, Cards] = {
    "food": (
        ("Can I order ahead?", "Yes: call us or drop by the day before."),
        ("Do you cater for allergies?", "Tell us what to avoid and we will help you choose."),
        ("Can I bring my dog?", "Of course, and there is water by the door."),
    ),
    "wedding": (
        ("What should I wear?", "Smart and comfortable: the ceremony is on the grass."),
        ("Can I bring a guest?", "Your invitation says who is invited; ask us if unsure."),
        ("Is there parking?", "Yes, in the field next to the barn."),
    ),
    "product": (
        ("Is there a free trial?", "The free plan has no time limit."),
        ("Can I cancel any time?", "Yes, in two clicks, and you keep your data."),
        ("Where is my data kept?", "On servers in Europe, encrypted."),
    ),
    "": (
        ("How do I book?", "Write to us or call; we answer within a day."),
        ("Where are you?", "At 12 Mill Lane, Riverside, two minutes from the station."),
        ("How can I pay?", "By card, bank transfer or cash."),
    ),
}
_QUOTES: dict[str, Cards] = {
    "food": (
        ("The best bread in town, and the warmest welcome.", "Claire, a regular"),
        ("I come for the coffee and stay for the buns.", "Sam, next door"),
    ),
    "": (
        ("Clear, kind and quick. We will be back.", "Claire, a client"),
        ("They listened first, then did exactly what we needed.", "Sam, a client"),
    ),
}
_GALLERY: dict[str, tuple[str, ...]] = {
    "food": (
        "Morning bake",
        "At the counter",
        "Fresh from the oven",
        "Our corner",
        "Coffee time",
        "Late lunch",
    ),
    "band": (
        "Live at The Lantern",
        "In the studio",
        "On the road",
        "Soundcheck",
        "Summer Fields",
        "Encore",
    ),
    "creative": (
        "Harbour at dawn",
        "Studio portrait",
        "Autumn market",
        "Quiet street",
        "Light and shade",
        "Field notes",
    ),
    "": ("Our place", "At work", "The team", "Details", "Before and after", "A good day"),
}
_ABOUT: dict[str, str] = {
    "food": (
        "{name} began with one oven and a lot of early mornings. We still make everything "
        "on site, in small batches, with flour and milk from farms nearby."
    ),
    "creative": (
        "{name} is a small studio that cares about clear ideas and careful work. "
        "We take on a few projects at a time, so each gets our full attention."
    ),
    "band": "{name} is four friends, a van and a lot of loud, happy songs.",
    "wedding": "We met at a friend's party and never stopped talking. Now we are getting married!",
    "product": "{name} started because we needed it ourselves. Now thousands of people use it.",
    "": (
        "{name} is a small, independent business. We know our customers by name and "
        "take the time to do things properly."
    ),
}


def section_body(section_id: str, kind: str, name: str) -> str:
    """The HTML under a section's first line, indented for the page; "" for a
    section the demo has nothing more to say in."""
    build = _BODIES.get(section_id)
    return build(kind, name) if build is not None else ""


def examples_note(page: str) -> str:
    """Which details on `page` (HTML) are the demo's examples, as a sentence."""
    held = [words for marker, words in _EXAMPLES if marker in page]
    if not held:
        return ""
    listed = held[0] if len(held) == 1 else ", ".join(held[:-1]) + " and " + held[-1]
    return f"The {listed} are examples: put your own in."


_EXAMPLES = (
    ('class="price"', "prices"),
    ('class="hours"', "opening hours"),
    ('class="contact-details"', "contact details"),
)


def _family(kind: str) -> str:
    return _FAMILY.get(kind, kind)


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
    return f"""      <address class="contact-details">
        <strong>{_text(name)}</strong>
        <span>12 Mill Lane, Riverside</span>
        <a href="tel:+441632960123">+44 1632 960123</a>
        <a href="mailto:hello@example.com">hello@example.com</a>
      </address>"""


def _location(kind: str, name: str) -> str:
    return (
        "      <p>12 Mill Lane, Riverside: two minutes from the station, "
        "with bike racks by the door.</p>"
    )


def _cards(items: Cards) -> str:
    cards = "\n".join(
        f'        <li class="card"><h3>{_text(title)}</h3><p>{_text(line)}</p></li>'
        for title, line in items
    )
    return f'      <ul class="cards">\n{cards}\n      </ul>'


def _gallery(kind: str, name: str) -> str:
    tiles = "\n".join(
        f'        <figure class="tile"><figcaption>{_text(caption)}</figcaption></figure>'
        for caption in _GALLERY.get(_family(kind), _GALLERY[""])
    )
    return f'      <div class="gallery">\n{tiles}\n      </div>'


def _quotes(kind: str, name: str) -> str:
    quotes = "\n".join(
        f"        <blockquote><p>“{_text(said)}”</p><footer>{_text(who)}</footer></blockquote>"
        for said, who in _pick(_QUOTES, kind)
    )
    return f'      <div class="quotes">\n{quotes}\n      </div>'


def _faq(kind: str, name: str) -> str:
    questions = "\n".join(
        f"        <details><summary>{_text(asked)}</summary><p>{_text(said)}</p></details>"
        for asked, said in _pick(_FAQ, kind)
    )
    return f'      <div class="faq">\n{questions}\n      </div>'


def _about(kind: str, name: str) -> str:
    words = _ABOUT.get(kind) or _ABOUT.get(_family(kind)) or _ABOUT[""]
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
    "services": lambda kind, name: _cards(_pick(_SERVICES, kind)),
    "pricing": lambda kind, name: _cards(_pick(_PRICING, kind)),
    "team": lambda kind, name: _cards(_pick(_TEAM, kind)),
    "projects": lambda kind, name: _cards(_PROJECTS),
    "events": lambda kind, name: _cards(_pick(_EVENTS, kind)),
    "blog": lambda kind, name: _cards(_POSTS),
}
