"""What the offline demo writes: a small site shaped by the person's request.

A `Brief` is read from the words of the request (what kind of place it is:
demo.kinds; its name: demo.names; the sections it asks for:
demo.sections) and from the owner's instructions that the demo
understands (demo.rules: a name, a main colour, a tone, a font), the
request winning where both speak. What the words left open the demo chooses,
and its answer says what it chose (demo.assumptions): a name, the kind's
usual sections. The pages are plain HTML and CSS with a shared navigation;
each section has real content for the kind of place (demo.content), and
the look is the kind's (demo.looks).

Text goes into the page escaped only where HTML needs it (`<`, `>`, `&`), so
the source reads as the page does ("Today's", not "Today&#x27;s").
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from demo.content import section_body
from demo.kinds import SITE, kind_found_in, kind_of
from demo.looks import look_for, stylesheet
from demo.names import name_in
from demo.rules import Font, Rules, asked_colour
from demo.sections import SECTIONS, Section, sections_asked
from demo.tones import Tone, more_text, section_words, tagline

__all__ = [
    "SECTIONS",
    "Brief",
    "brief_from",
    "kind_in",
    "page",
    "section_html",
    "site_files",
    "site_name",
    "text",
]

_MOST_SECTIONS = 8


@dataclass(frozen=True)
class Brief:
    name: str  # plain text, not escaped
    kind: str  # its id: "bakery", "class", "business", "site"… (demo.kinds)
    sections: tuple[Section, ...]  # (id, heading, text), in the tone
    tone: Tone = "plain"
    colour: str | None = None  # the main colour, a CSS value; None keeps the kind's
    font: Font | None = None
    label: str = ""  # how the kind is named: "yoga studio"; the kind's id when ""
    # What the words left to the demo, which its answer says (demo.assumptions):
    named: bool = True  # the name was given, by the request or the instructions
    kind_named: bool = True  # the words say what kind of place it is
    sections_named: bool = True  # the words name its sections
    added: str = ""  # the heading of the section the kind is never without, added
    as_pages: tuple[str, ...] = ()  # headings of sections asked for as pages

    @property
    def called(self) -> str:
        return self.label or self.kind


def brief_from(request: str, rules: Rules | None = None) -> Brief:
    """What a request asks for, as far as simple reading finds it, with what
    the instructions (`rules`) add where the request is silent."""
    rules = rules or Rules()
    lowered = request.lower()
    found = kind_of(lowered)
    kind = found.kind if found else SITE
    label = found.label if found else SITE.label
    name = name_in(request) or rules.name
    asked = sections_asked(lowered, skip=found.span if found else (0, 0))
    sections = list(asked.sections)
    essential = SECTIONS[kind.sections[0]]
    added = bool(sections) and kind is not SITE and essential[0] not in {s[0] for s in sections}
    if added:
        sections.insert(0, essential)
    chosen = _in_order(sections) or [SECTIONS[key] for key in kind.sections]
    colour = asked_colour(request) or rules.colour
    return Brief(
        name=(name or f"Your {label}")[:60],
        kind=kind.id,
        sections=tuple(_toned(section, rules.voice) for section in chosen),
        tone=rules.voice,
        colour=colour[1] if colour else None,
        font=rules.font,
        label=label,
        named=bool(name),
        kind_named=found is not None,
        sections_named=bool(asked.sections),
        added=essential[1] if added else "",
        as_pages=asked.as_pages,
    )


def _in_order(sections: list[Section]) -> list[Section]:
    """The sections as asked, each once, the ones on how to reach the place last."""
    firsts = {section[0]: section for section in reversed(sections)}
    kept = [firsts[sid] for sid in dict.fromkeys(s[0] for s in sections)][:_MOST_SECTIONS]
    return sorted(kept, key=lambda s: s[0] in ("location", "contact"))


def _toned(section: Section, tone: Tone) -> Section:
    section_id, heading, lead = section
    if not lead:  # a section the demo has no words for, named by the person
        return section_id, heading, more_text(heading.lower(), tone)
    return (section_id, *section_words(section_id, heading, lead, tone))


def kind_in(page_text: str) -> str:
    """The kind of place (its id) a page the demo built is for, as its tagline
    or its title names it: "site" when they name none."""
    return kind_found_in(page_text).kind.id


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
      <p class="tagline">{text(tagline(brief.kind, brief.called, brief.tone))}</p>
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
    "schedule": "See the times",
    "products": "See what's in store",
    "posts": "Read the latest",
    "tickets": "Get tickets",
    "rsvp": "Reply to the invitation",
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
