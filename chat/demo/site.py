"""What the offline demo writes: a small site shaped by the person's request.

A `Brief` is read from the words of the request (the site's name, what kind of
place it is, which sections it asked for) and from the owner's instructions
that the demo understands (chat.demo.rules: a name, a main colour, a tone, a
font), the request winning where both speak. The pages are plain HTML and CSS
with a shared navigation, and the colours live in CSS custom properties so a
later "make the header dark green" is a one-line edit.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from chat.demo.colours import contrast, text_colour_on
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
    "testimonial": ("testimonials", "What people say", "“Wonderful!” — a happy customer."),
    "review": ("testimonials", "What people say", "“Wonderful!” — a happy customer."),
    "service": ("services", "Services", "What we can do for you."),
    "team": ("team", "Our team", "The people behind it all."),
    "faq": ("faq", "Questions", "Answers to what people ask most."),
    "hours": ("hours", "Opening hours", "Monday to Saturday, 8:00 to 18:00."),
    "opening": ("hours", "Opening hours", "Monday to Saturday, 8:00 to 18:00."),
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
    colour: str | None = None  # the main colour, a CSS value; None keeps the demo's
    font: Font | None = None


def brief_from(request: str, rules: Rules | None = None) -> Brief:
    """What a request asks for, as far as simple reading finds it, with what
    the instructions (`rules`) add where the request is silent."""
    rules = rules or Rules()
    lowered = request.lower()
    kind, default_sections = next(
        (found for word, found in KINDS.items() if word in lowered), ("site", ("about", "contact"))
    )
    named = _QUOTED.search(request) or _NAMED.search(request)
    name = named.group(1).strip(" .,") if named else (rules.name or f"Your {kind}")
    asked = []
    for word, section in SECTIONS.items():
        if re.search(rf"\b{word}", lowered) and section not in asked:
            asked.append(section)
    if not asked:
        asked = [SECTIONS[word] for word in default_sections]
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


def site_files(brief: Brief) -> dict[str, str]:
    """index.html, styles.css and script.js for the brief."""
    links = [("index.html", "Home")] + [(f"#{sid}", heading) for sid, heading, _ in brief.sections]
    sections = "\n".join(section_html(*section) for section in brief.sections)
    main = f"""    <section class="hero">
      <h1>{html.escape(brief.name)}</h1>
      <p class="tagline">{html.escape(tagline(brief.kind, brief.tone))}</p>
    </section>
{sections}"""
    return {
        "index.html": page(brief.name, brief.name, links, main),
        "styles.css": styles(brief),
        "script.js": SCRIPT,
    }


def section_html(section_id: str, heading: str, text: str) -> str:
    return f"""    <section id="{section_id}" class="section">
      <h2>{html.escape(heading)}</h2>
      <p>{html.escape(text)}</p>
    </section>"""


def page(title: str, site_name: str, links: list[tuple[str, str]], main: str) -> str:
    nav = "\n".join(
        f'      <a href="{html.escape(href)}">{html.escape(label)}</a>' for href, label in links
    )
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{html.escape(title)}</title>
  <link rel="stylesheet" href="styles.css">
</head>
<body>
  <header class="site-header">
    <a class="brand" href="index.html">{html.escape(site_name)}</a>
    <nav class="site-nav" aria-label="Main">
{nav}
    </nav>
  </header>
  <main>
{main}
  </main>
  <footer class="site-footer">
    <p>&copy; <span id="year"></span> {html.escape(site_name)}</p>
  </footer>
  <script src="script.js"></script>
</body>
</html>
"""


def styles(brief: Brief) -> str:
    """The site's CSS: its main colour on the header (with text that stays
    readable) and on the main heading where it is dark enough to read on the
    page; a serif font if asked."""
    css = STYLES
    if brief.colour:
        css = css.replace(f"--header-bg: {_HEADER_BG};", f"--header-bg: {brief.colour};")
        text = text_colour_on(brief.colour)
        css = css.replace("--header-text: #ffffff;", f"--header-text: {text};")
        if contrast(brief.colour, _PAGE_BG) >= 3:  # the heading is large text: 3:1 reads
            css = css.replace(f"--accent: {_ACCENT};", f"--accent: {brief.colour};")
    if brief.font == "serif":
        css = css.replace(_SANS, _SERIF)
    return css


_HEADER_BG = "#1f2937"
_ACCENT = "#b45309"
_PAGE_BG = "#fffaf3"
_SANS = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'
_SERIF = 'Georgia, "Iowan Old Style", "Times New Roman", serif'

STYLES = """:root {
  --header-bg: #1f2937;
  --header-text: #ffffff;
  --accent: #b45309;
  --page-bg: #fffaf3;
  --text: #1f2937;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--text);
}

body {
  margin: 0;
  background: var(--page-bg);
  line-height: 1.6;
}

.site-header {
  display: flex;
  flex-wrap: wrap;
  gap: 1rem;
  align-items: center;
  justify-content: space-between;
  padding: 1rem 1.5rem;
  background: var(--header-bg);
  color: var(--header-text);
}

.site-header a {
  color: inherit;
  text-decoration: none;
}

.brand {
  font-weight: 700;
  font-size: 1.25rem;
}

.site-nav {
  display: flex;
  flex-wrap: wrap;
  gap: 1rem;
}

main {
  max-width: 48rem;
  margin: 0 auto;
  padding: 1.5rem;
}

.hero {
  padding: 3rem 0 2rem;
  text-align: center;
}

.hero h1 {
  font-size: clamp(2rem, 6vw, 3.5rem);
  margin: 0;
  color: var(--accent);
}

.section {
  padding: 1.5rem 0;
  border-top: 1px solid #e5e7eb;
}

.site-footer {
  text-align: center;
  padding: 2rem 1rem;
  color: #6b7280;
}
"""

SCRIPT = """// The year in the footer, so it never goes stale.
document.getElementById("year").textContent = new Date().getFullYear();
"""
