"""The small changes the offline demo makes to a site that is there: a colour,
the main heading, the text of an element the person picked, a section, the
buttons' corners. Each is a targeted edit of what it understood (demo.
edits); when it cannot find what to change, it changes nothing and says so.
"""

from __future__ import annotations

import html
import re

from demo.answers import CAN, NOTHING_CHANGED
from demo.asking import Pick
from demo.colours import colour_in, text_colour_on
from demo.content import section_body
from demo.edits import FileEdits
from demo.intents import section_asked
from demo.rules import Rules
from demo.site import SECTIONS, kind_in, section_html, site_name, text
from demo.steps import Step
from demo.tones import more_text, section_words

# A colour variable, and the one holding the text that must stay readable on it.
_ON = {"--header-bg": "--header-text", "--accent": "--accent-text", "--page-bg": "--text"}
_WHERE = {"--header-bg": "header", "--page-bg": "page background", "--accent": "accent colour"}
_ROUND = "999px"


def recolour(lowered: str, texts: dict[str, str], rules: Rules) -> Step:
    colour = colour_in(lowered) or rules.colour  # the message wins over the instructions
    css = texts.get("/styles.css")
    if colour is None:
        return Step(
            "The message names no colour and the instructions name no main colour.",
            "Which colour? Name one (“make the header teal”), or put a main colour in "
            "your project instructions (AGENTS.md).",
        )
    if css is None:
        return Step("There is no styles.css to change.", "There is no styles.css to change. " + CAN)
    name, value = colour
    wanted = (
        "--header-bg"
        if "header" in lowered
        else ("--page-bg" if "background" in lowered else "--accent")
    )
    for variable in dict.fromkeys((wanted, "--accent", "--header-bg")):
        edits = FileEdits("/styles.css", css)
        if not _set_variable(edits, variable, value):
            continue
        kept = edits.call is None
        _set_variable(edits, _ON[variable], text_colour_on(value))
        where = _WHERE[variable]
        if edits.call is None:
            return Step(f"{variable} is {value} already.", f"The {where} is {name} already.")
        if kept:  # the colour stays; the text on it did not read well
            return Step(
                f"{variable} is {value} already; {_ON[variable]} is what does not read well on it.",
                f"The {where} is {name} already: making the text on it easy to read.",
                [edits.call],
            )
        return Step(
            f"styles.css keeps its colours in custom properties; {variable} is the "
            f"{where}, and {_ON[variable]} keeps the text on it readable.",
            f"Changing the {where} to {name}.",
            [edits.call],
        )
    return Step(
        "styles.css has no colour variable I recognise.",
        "I could not find a colour setting in styles.css that I know how to change safely, "
        f"so {NOTHING_CHANGED.lower()} {CAN}",
    )


def reheading(new: str, texts: dict[str, str]) -> Step:
    """The main heading of the home page becomes `new`."""
    page = texts.get("/index.html", "")
    heading = re.search(r"<h1\b[^>]*>(.*?)</h1>", page, re.DOTALL)
    if heading is None or "<" in heading.group(1):
        return Step(
            "No plain <h1> in index.html.",
            f"index.html has no main heading I can change safely. {NOTHING_CHANGED}",
        )
    edits = FileEdits("/index.html", page)
    edits.replace(heading.start(1), heading.end(1), text(new))
    if edits.call is None:
        return Step("The heading says that already.", f"The main heading is “{new}” already.")
    return Step(
        "The main heading is the page's <h1>.",
        f"Changing the heading to “{new}”.",
        [edits.call],
    )


def retext(pick: Pick, new: str, texts: dict[str, str]) -> Step:
    """The picked element's text becomes `new`, and a navigation link that
    named it the same way follows."""
    page = texts.get(pick.page)
    shown = f"<{pick.tag}> “{pick.text}”" if pick.text else f"<{pick.tag}>"
    if page is None:
        return Step(
            f"{pick.page} is not a file I could read.",
            f"I could not find {pick.page.lstrip('/')} to change the {shown} you picked. "
            + NOTHING_CHANGED,
        )
    found = _element(page, pick)
    if found is None:
        return Step(
            f"No {shown} with only text inside in {pick.page}.",
            f"I could not find the {shown} you picked in {pick.page.lstrip('/')} as plain text "
            f"(it may hold other elements, or the page has changed since). {NOTHING_CHANGED}",
        )
    start, end = found
    old = page[start:end]
    edits = FileEdits(pick.page, page)
    edits.replace(start, end, text(new))
    link = re.search(rf'(<a href="#[\w-]+">){re.escape(old)}</a>', edits.text)
    if link is not None:
        edits.replace(link.end(1), link.end(1) + len(old), text(new))
    if edits.call is None:
        return Step("It says that already.", f"The {shown} you picked says that already.")
    also = " and the navigation link to it" if link is not None else ""
    return Step(
        f"The picked {shown} is in {pick.page}; its text is all it holds, so one edit changes it.",
        f"Changing the {shown} in {pick.page.lstrip('/')}{also} to “{new}”.",
        [edits.call],
    )


def add_section(request: str, texts: dict[str, str], rules: Rules) -> Step:
    asked = section_asked(request)
    if asked is None or not asked.words:
        return Step(
            "The request names no section.",
            "What should the new section be called? Say, for example, “Add a section called "
            f"Opening hours”. {NOTHING_CHANGED}",
        )
    words = asked.words
    known = next(
        (v for key, v in SECTIONS.items() if any(w.startswith(key) for w in words.lower().split())),
        None,
    )
    topic = words if asked.named else words.capitalize()
    if known is not None:
        section_id, heading, lead = known
        heading, lead = section_words(section_id, heading, lead, rules.voice)
    else:
        section_id = re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")[:40] or "more"
        heading, lead = topic, more_text(topic.lower(), rules.voice)
    if asked.named:
        heading = topic[:1].upper() + topic[1:]
    page = texts.get("/index.html", "")
    if f'id="{section_id}"' in page:
        return Step(
            f"index.html has a section with id {section_id} already.",
            f"The home page has that section already (#{section_id}). {NOTHING_CHANGED}",
        )
    # Before the contact section, which ends a page best; else at the end of the content.
    places = ('    <section id="contact"', "  </main>", "</main>", "</body>")
    anchor = next((m for m in places if page.count(m) == 1), None)
    if anchor is None:
        return Step(
            "No place for a section.",
            f"I could not find where to add a section in index.html. {NOTHING_CHANGED}",
        )
    body = section_body(section_id, kind_in(page), site_name(page) or "us") if known else ""
    edits = FileEdits("/index.html", page)
    edits.insert(page.index(anchor), section_html(section_id, heading, lead, body) + "\n")
    linked = _link_in_nav(edits, f"#{section_id}", heading)
    where = "before the contact section" if "contact" in anchor else "at the end of the page"
    return Step(
        f"A “{heading}” section goes {where}"
        + (", with a link in the navigation." if linked else "."),
        f"Adding the section “{heading}” to index.html.",
        [call for call in [edits.call] if call is not None],
    )


def round_buttons(lowered: str, texts: dict[str, str]) -> Step:
    """Rounded (or square) corners on the site's buttons."""
    css = texts.get("/styles.css")
    if css is None:
        return Step("No styles.css.", f"There is no styles.css to change. {NOTHING_CHANGED}")
    pages = [t for path, t in texts.items() if path.endswith((".html", ".htm"))]
    if not any(re.search(r'<button\b|class="[^"]*\bbutton\b', page) for page in pages):
        return Step(
            'No <button> and no class="button" on the pages I read.',
            f"The pages have no buttons yet, so there is nothing to round. {NOTHING_CHANGED}",
        )
    square = re.search(r"\b(square|sharp)", lowered) is not None
    radius = "0" if square else _ROUND
    shape = "square" if square else "rounded"
    edits = FileEdits("/styles.css", css)
    if not _set_variable(edits, "--button-radius", radius):
        rule = f"\nbutton,\n.button {{\n  border-radius: {radius};\n}}\n"
        edits.insert(len(css.rstrip("\n")), "\n" + rule.rstrip("\n"))
    if edits.call is None:
        return Step("They are already.", f"The buttons are {shape} already. {NOTHING_CHANGED}")
    return Step(
        "The buttons' corners are one setting in styles.css (--button-radius), or one "
        "rule at its end when it has none.",
        f"Making the buttons {shape}.",
        [edits.call],
    )


def _set_variable(edits: FileEdits, variable: str, value: str) -> bool:
    """Set a custom property's value where styles.css declares it; False when it does not."""
    found = re.search(rf"^(\s*{re.escape(variable)}\s*:\s*)([^;\n]*)(;)", edits.text, re.M)
    if found is None:
        return False
    edits.replace(found.start(2), found.end(2), value)
    return True


def _element(page: str, pick: Pick) -> tuple[int, int] | None:
    """Where the text of the picked element is: the first <tag> holding only
    that text, the one the selector's id names when several do."""
    pattern = re.compile(rf"<{pick.tag}\b([^>]*)>([^<]*)</{pick.tag}>", re.IGNORECASE)
    wanted = " ".join(pick.text.split())
    found = [
        m
        for m in pattern.finditer(page)
        if _same(" ".join(html.unescape(m.group(2)).split()), wanted)
    ]
    if len(found) > 1:
        ids = re.findall(r"#([\w-]+)", pick.selector)
        near = [m for m in found if any(f'id="{i}"' in page[: m.start()][-400:] for i in ids)]
        found = near or found
    return (found[0].start(2), found[0].end(2)) if found else None


def _same(seen: str, wanted: str) -> bool:
    # The chip's text is cut at 100 characters.
    return seen == wanted or (len(wanted) >= 100 and seen.startswith(wanted))


def _link_in_nav(edits: FileEdits, href: str, label: str) -> bool:
    """A link in the navigation, before its link to the contact section, if any."""
    lines = edits.text.splitlines()
    end = next((ln for ln in lines if "</nav>" in ln), None)
    contact = next((ln for ln in lines if '<a href="#contact">' in ln), None)
    line = contact if contact is not None and edits.text.count(contact) == 1 else end
    if line is None or edits.text.count(line) != 1:
        return False
    indent = line[: len(line) - len(line.lstrip())] + ("" if line is contact else "  ")
    at = edits.text.index(line)
    edits.insert(at, f'{indent}<a href="{href}">{text(label)}</a>\n')
    return True
