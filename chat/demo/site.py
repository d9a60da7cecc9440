"""What the offline demo writes: a small site shaped by the person's request.

A `Brief` is read from the words of the request (the site's name, what kind of
place it is, which sections it asked for) and from the owner's instructions
that the demo understands (chat.demo.rules: a name, a main colour, a tone, a
font), the request winning where both speak. The pages are plain HTML and CSS
with a shared navigation; each section has real content for the kind of place
(chat.demo.content), and the look is the kind's (chat.demo.looks).

Text goes into the page escaped only where HTML needs it (`<`, `>`, `&`), so
the source reads as the page does ("Today's", not "Today&#x27;s").
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from chat.demo.content import section_body
from chat.demo.looks import look_for, stylesheet
from chat.demo.rules import Font, Rules, asked_colour
from chat.demo.tones import Tone, section_words, tagline

# Sections a request may ask for, by the words that name them: (id, heading, text).
SECTIONS: dict[str, tuple[str, str, str]] = {
    "menu": ("menu", "Menu", "Today's favourites, made fresh every morning."),
    "contact": ("contact", "Contact", "Write to us or drop by; we answer every message."),
    "about": ("about", "About", "Who we are, and why we do what we do."),
    "gallery": ("gallery", "Gallery", "A few pictures of our work."),
    "pricing": ("pricing", "Pricing", "Simple prices, no surprises."),
    "price": ("pricing", "Pricing", "Simple prices, no surprises."),
    "testimonial": ("testimonials", "What people say", "A few kind words from our customers."),
    "review": ("testimonials", "What people say", "A few kind words from our customers."),
    "service": ("services", "Services", "What we can do for you."),
    "team": ("team", "Our team", "The people behind it all."),
    "faq": ("faq", "Questions", "Answers to what people ask most."),
    "hours": ("hours", "Opening hours", "When you can find us, week by week."),
    "opening": ("hours", "Opening hours", "When you can find us, week by week."),
    "location": ("location", "Find us", "In the heart of town, by the old square."),
    "project": ("projects", "Projects", "A selection of recent work."),
    "work": ("projects", "Projects", "A selection of recent work."),
    "blog": ("blog", "News", "What we have been up to lately."),
    "event": ("events", "Events", "What is coming up next."),
}
# What a kind of place is called, and the sections (keys of SECTIONS) it gets
# when the request names none.
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "bakery": ("bakery", ("menu", "about", "contact")),
    "cafe": ("café", ("menu", "hours", "contact")),
    "café": ("café", ("menu", "hours", "contact")),
    "coffee": ("coffee shop", ("menu", "hours", "contact")),
    "restaurant": ("restaurant", ("menu", "hours", "contact")),
    "portfolio": ("portfolio", ("project", "about", "contact")),
    "photograph": ("photography studio", ("gallery", "pricing", "contact")),
    "shop": ("shop", ("service", "hours", "contact")),
    "store": ("shop", ("service", "hours", "contact")),
    "studio": ("studio", ("service", "about", "contact")),
    "band": ("band", ("event", "gallery", "contact")),
    "wedding": ("wedding", ("event", "location", "faq")),
    "landing": ("product", ("service", "pricing", "contact")),
    "startup": ("product", ("service", "pricing", "contact")),
    "app": ("app", ("service", "pricing", "faq")),
    "blog": ("blog", ("blog", "about", "contact")),
    "business": ("business", ("service", "about", "contact")),
    "company": ("business", ("service", "about", "contact")),
}
_WORD = r"[A-Z][\w'\u2019&.-]*"  # a capitalised word of a name (re reads \u2019)
_NAMED = re.compile(
    rf"\b(?:called|named|name(?:d)? it|for)\s+[\"“']?({_WORD}(?:\s+{_WORD}){{0,3}})"
)
_QUOTED = re.compile(r"[\"“]([^\"”]{2,40})[\"”]")


@dataclass(frozen=True)
class Brief:
    name: str  # plain text, not escaped
    kind: str  # "bakery", "portfolio", "site"…
    sections: tuple[tuple[str, str, str], ...]  # (id, heading, text), in the tone
    tone: Tone = "plain"
    colour: str | None = None  # the main colour, a CSS value; None keeps the kind's
    font: Font | None = None


def brief_from(request: str, rules: Rules | None = None) -> Brief:
    """What a request asks for, as far as simple reading finds it, with what
    the instructions (`rules`) add where the request is silent."""
    rules = rules or Rules()
    lowered = request.lower()
    kind, default_sections = kind_and_sections(lowered)
    named = _QUOTED.search(request) or _NAMED.search(request)
    name = named.group(1).strip(" .,") if named else (rules.name or f"Your {kind}")
    asked = _sections_asked(lowered) or [SECTIONS[word] for word in default_sections]
    toned = tuple((sid, *section_words(sid, h, t, rules.voice)) for sid, h, t in asked)
    colour = asked_colour(request) or rules.colour
    return Brief(
        name=name[:60],
        kind=kind,
        sections=toned,
        tone=rules.voice,
        colour=colour[1] if colour else None,
        font=rules.font,
    )


def _sections_asked(lowered: str) -> list[tuple[str, str, str]]:
    """The sections a request names, in the order it names them, the ones on
    how to reach the place last."""
    found: dict[tuple[str, str, str], int] = {}
    for word, section in SECTIONS.items():
        at = re.search(rf"\b{word}", lowered)
        if at is not None:
            found[section] = min(found.get(section, at.start()), at.start())
    return sorted(found, key=lambda s: (s[0] in ("location", "contact"), found[s]))


def kind_and_sections(lowered: str) -> tuple[str, tuple[str, ...]]:
    """The kind of place `lowered` names, and the sections it gets by default."""
    return next(
        (found for word, found in KINDS.items() if re.search(rf"\b{word}", lowered)),
        ("site", ("about", "contact")),
    )


def kind_in(page_text: str) -> str:
    """The kind of place a page the demo built is for, as its tagline or its
    title says: "site" when they name none."""
    said = re.findall(r'class="tagline"[^>]*>([^<]*)<|<title>([^<]*)<', page_text)
    return kind_and_sections(" ".join(" ".join(found) for found in said).lower())[0]


def site_files(brief: Brief) -> dict[str, str]:
    """index.html, styles.css and script.js for the brief."""
    links = [("index.html", "Home")] + [(f"#{sid}", heading) for sid, heading, _ in brief.sections]
    sections = "\n".join(
        section_html(sid, heading, text, section_body(sid, brief.kind, brief.name))
        for sid, heading, text in brief.sections
    )
    first = brief.sections[0][0] if brief.sections else ""
    main = f"""    <section class="hero">
      <h1>{text(brief.name)}</h1>
      <p class="tagline">{text(tagline(brief.kind, brief.tone))}</p>
      <p><a class="button" href="#{first}">{text(_CALLS.get(first, "Find out more"))}</a></p>
    </section>
{sections}"""
    look = look_for(brief.kind, colour=brief.colour, font=brief.font)
    return {
        "index.html": page(brief.name, brief.name, links, main),
        "styles.css": stylesheet(look),
        "script.js": SCRIPT,
    }


# What the hero's button says, by the section it leads to.
_CALLS = {
    "menu": "See the menu",
    "contact": "Get in touch",
    "gallery": "See the work",
    "projects": "See the work",
    "events": "See what's on",
    "pricing": "See the prices",
    "services": "What we do",
    "hours": "When we're open",
    "about": "Our story",
    "testimonials": "What people say",
}


def section_html(section_id: str, heading: str, lead: str, body: str = "") -> str:
    below = f"\n{body}" if body else ""
    return f"""    <section id="{section_id}" class="section">
      <h2>{text(heading)}</h2>
      <p class="lead">{text(lead)}</p>{below}
    </section>"""


def page(title: str, site_name: str, links: list[tuple[str, str]], main: str) -> str:
    nav = "\n".join(
        f'      <a href="{html.escape(href)}">{text(label)}</a>' for href, label in links
    )
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{text(title)}</title>
  <link rel="stylesheet" href="styles.css">
</head>
<body>
  <header class="site-header">
    <a class="brand" href="index.html">{text(site_name)}</a>
    <nav class="site-nav" aria-label="Main">
{nav}
    </nav>
  </header>
  <main>
{main}
  </main>
  <footer class="site-footer">
    <p>© <span id="year"></span> {text(site_name)}</p>
  </footer>
  <script src="script.js"></script>
</body>
</html>
"""


def site_name(page_text: str) -> str:
    """The site's name as a page shows it: its brand, or its title; "" for none."""
    found = re.search(r'class="brand"[^>]*>([^<]+)<', page_text) or re.search(
        r"<title>([^<]+)</title>", page_text
    )
    return html.unescape(found.group(1).strip()) if found else ""


def text(words: str) -> str:
    """`words` as the text of an element: only what HTML needs escaped."""
    return html.escape(words, quote=False)


SCRIPT = """// The year in the footer, so it never goes stale.
document.getElementById("year").textContent = new Date().getFullYear();
"""
