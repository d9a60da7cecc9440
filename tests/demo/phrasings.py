"""Descriptions of a site as people write them (no verb, first person, a list,
a name only, long and short, lower case), none starting with "Build", each
with what the built home page must show: the kind of place its tagline names,
the name given (None: none was, and "Your <kind>" stands in), and the
sections asked for (by id). Shared by the loop's tests and the terminal's."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Phrasing:
    words: str
    kind: str  # as the tagline names it
    name: str | None
    sections: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.words


PHRASINGS = (
    Phrasing(
        "a bakery called Crumb with a menu and a contact section",
        "bakery",
        "Crumb",
        ("menu", "contact"),
    ),
    Phrasing("an online shop for my candles", "online shop", None, ("products",)),
    Phrasing("a blog about hiking", "blog", None, ("posts",)),
    Phrasing(
        "my yoga studio, with class times and prices", "yoga studio", None, ("schedule", "pricing")
    ),
    Phrasing("I run a bakery called Crumb", "bakery", "Crumb", ("menu",)),
    Phrasing("Crumb", "Welcome", "Crumb", ("about", "contact")),
    Phrasing("Casa Verde, a family restaurant in Lisbon", "restaurant", "Casa Verde", ("menu",)),
    Phrasing("portfolio for Ada Park, illustrator", "portfolio", "Ada Park", ("projects",)),
    Phrasing("I'm a wedding photographer", "photography studio", None, ("gallery",)),
    Phrasing("we're Static, a four-piece band from Leeds", "band", "Static", ("events",)),
    Phrasing("landing page for my app Tally", "app", "Tally", ("pricing",)),
    Phrasing("a plumber in Bristol. fast, honest, fixed prices", "plumber", None, ("pricing",)),
    Phrasing(
        "Bloom & Co florist: shop, opening hours, contact",
        "flower shop",
        "Bloom &amp; Co",
        ("hours", "contact"),
    ),
    Phrasing("a running club in Leeds that meets on Sundays", "running club", None, ("events",)),
    Phrasing("Riverside Primary School", "primary school", "Riverside Primary School"),
    Phrasing(
        "site for our wedding, 14 June, with RSVP and directions",
        "wedding",
        None,
        ("rsvp", "location"),
    ),
    Phrasing(
        "cafe called the daily grind, menu + hours", "café", "The Daily Grind", ("menu", "hours")
    ),
    Phrasing(
        "tech conference in Berlin, 3-4 October: schedule, tickets",
        "conference",
        None,
        ("schedule", "tickets"),
    ),
    Phrasing("Wick & Wax, hand-poured soy candles, shop online", "shop", "Wick &amp; Wax"),
    Phrasing("i make ceramics and sell them at markets", "online shop", None, ("products",)),
    Phrasing("website for my dog walking business", "dog walker", None, ("services",)),
    Phrasing(
        "Maya Lindqvist, freelance illustrator. portfolio, about, contact",
        "portfolio",
        "Maya Lindqvist",
        ("projects", "about", "contact"),
    ),
    Phrasing("need a site for my mum's hair salon, Curl Up", "hair salon", "Curl Up"),
    Phrasing("The Old Mill, a wedding venue in the Cotswolds", "wedding", "The Old Mill"),
    Phrasing("static - indie band. gigs, photos, contact", "band", "Static", ("events", "gallery")),
    Phrasing("A landing page for Tally, an app that splits bills between friends", "app", "Tally"),
    Phrasing("help me make a website for my cleaning company", "cleaning service", None),
    Phrasing("Sunday book club", "book club", None, ("events",)),
    Phrasing(
        "karate classes for kids, timetable and prices",
        "martial arts school",
        None,
        ("schedule", "pricing"),
    ),
    Phrasing("Ana Lima", "Welcome", "Ana Lima"),
    Phrasing("Lisbon food festival 2025", "festival", None, ("schedule",)),
    Phrasing("my band", "band", None),
    Phrasing("shop", "shop", None, ("products",)),
    Phrasing(
        "I'm a freelance web developer and I need a portfolio to show my projects and a way "
        "for clients to contact me",
        "portfolio",
        None,
        ("projects", "contact"),
    ),
    Phrasing(
        "Bright Smiles dental clinic: services, team, opening hours",
        "clinic",
        "Bright Smiles",
        ("services", "team", "hours"),
    ),
    Phrasing(
        "The Green Fork, vegan restaurant. menu, reviews, find us",
        "restaurant",
        "The Green Fork",
        ("menu", "testimonials", "location"),
    ),
    Phrasing("an app for tracking habits", "app", None, ("faq",)),
    Phrasing("our school's summer fair on 21 June", "fair", None, ("schedule",)),
    Phrasing(
        "Hello! I run a small pottery studio called Kiln & Co and teach weekend classes",
        "pottery studio",
        "Kiln &amp; Co",
        ("schedule",),
    ),
    Phrasing("coffee shop, open early, good pastries", "coffee shop", None, ("menu",)),
    Phrasing(
        "pizza place called Slice of Heaven with menu and reviews",
        "pizzeria",
        "Slice of Heaven",
        ("menu", "testimonials"),
    ),
    Phrasing("local electrician, 24/7 callouts, reviews and contact", "electrician", None),
    Phrasing(
        "a quiet personal site for a retired teacher who paints watercolours", "portfolio", None
    ),
    Phrasing("we are a community choir", "community choir", None, ("events",)),
    Phrasing(
        "birthday party for my daughter, 12 May, with directions and RSVP",
        "party",
        None,
        ("rsvp", "location"),
    ),
    Phrasing(
        "a simple one page site for my consulting business with services, pricing and a "
        "contact form",
        "business",
        None,
        ("services", "pricing", "contact"),
    ),
    Phrasing(
        "the daily grind, a café in leith with a gallery", "café", "The Daily Grind", ("gallery",)
    ),
    Phrasing("Northside FC, a football club for under-10s", "football club", "Northside FC"),
    Phrasing(
        "my husband and I are getting married next summer and want somewhere for guests to "
        "find the details, the schedule and an RSVP form",
        "wedding",
        None,
        ("schedule", "rsvp"),
    ),
    Phrasing("\u201cFresh Start\u201d cleaning", "cleaning service", "Fresh Start"),
)
# Not descriptions: the demo answers with what it can do, and no site.
NOT_DESCRIPTIONS = (
    "hi",
    "Hello there!",
    "thanks, looks great",
    "what can you do?",
    "how do I publish my site?",
    "Is Built-It free?",
    "what is this?",
    "who are you?",
    "help",
)


def assert_built(page: str, phrasing: Phrasing) -> None:
    """The home page `page` is the site `phrasing` describes."""
    tagline = re.search(r'<p class="tagline">([^<]*)</p>', page)
    assert tagline is not None, phrasing
    assert phrasing.kind in tagline.group(1), (phrasing.words, tagline.group(1))
    heading = re.search(r"<h1>([^<]*)</h1>", page)
    assert heading is not None
    if phrasing.name is not None:
        assert heading.group(1) == phrasing.name, (phrasing.words, heading.group(1))
    else:
        assert heading.group(1).startswith("Your "), (phrasing.words, heading.group(1))
    for section in phrasing.sections:
        assert f'<section id="{section}"' in page, (phrasing.words, section)
