"""A change of tone for a site that is there ("make the tone friendlier",
"make it more formal"): the offline demo rewords only the texts it wrote
itself and can recognise in any of its tones (demo.tones): the sections'
headings and first lines, the tagline, a page's first line, and the
navigation links that name a section it renamed. Everything else (the name,
the sections' details, the person's own words) stays as it is. It cannot
reword what it did not write, and says so; it never rebuilds the site.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from demo.edits import Call, FileEdits
from demo.kinds import kind_found_in
from demo.sections import SECTIONS
from demo.site import site_name, text
from demo.steps import Step
from demo.tones import (
    TONE_NAMES,
    Tone,
    more_text,
    page_text,
    section_words,
    tagline,
    tone_asked,
)

_TONES: tuple[Tone, ...] = ("plain", "friendly", "formal", "playful")


def retone(request: str, texts: dict[str, str]) -> Step:
    """The texts the demo wrote, on every page read, reworded in the tone asked."""
    target = tone_asked(request) or "plain"
    pages = [FileEdits(path, page) for path, page in sorted(texts.items())]
    pages = [edits for edits in pages if edits.path.endswith((".html", ".htm"))]
    known = 0
    renamed: list[tuple[str, str, str]] = []
    for edits in pages:
        known += _reword(edits, target, renamed)
    for edits in pages:  # every page's navigation names the sections as they are now
        for section_id, heading, new in renamed:
            _rename_links(edits, section_id, heading, new)
    calls: list[Call] = [edits.call for edits in pages if edits.call is not None]
    tone = TONE_NAMES[target]
    if not known:
        return Step(
            "No heading, tagline or first line of a section that I wrote myself.",
            "I can only reword the texts I wrote myself (the headings, the tagline and the "
            "first line of each section), and I found none I recognise on this site, so "
            "I changed nothing. Your own words are yours to change: pick one in the "
            "preview and say “change this to …”.",
        )
    if not calls:
        return Step(
            f"Every text I wrote is in {tone} already.",
            f"The texts I wrote are in {tone} already, so I changed nothing.",
        )
    names = ", ".join(str(call[1]["path"]).lstrip("/") for call in calls)
    return Step(
        f"Only the texts I wrote are mine to reword; I find them by their wording in each "
        f"tone and change them to {tone}, with the navigation links that name a section.",
        f"Rewording the headings, the tagline and the sections' first lines in {tone} "
        f"({names}). Nothing else changes.",
        calls,
    )


def retone_note(request: str) -> str:
    target = tone_asked(request) or "plain"
    word = {"plain": "plain", "friendly": "friendly", "formal": "formal", "playful": "playful"}
    return (
        f"Reworded in {TONE_NAMES[target]}: the headings, the tagline and each section's first "
        "line that I wrote. The name, the sections' details and any words of your own are as "
        "they were. For what I add later to sound the same, say "
        f"“Remember to write in a {word[target]} tone”."
    )


def remember_tone(request: str) -> str:
    """The next step that keeps the tone for later changes."""
    return f"Remember to write in a {tone_asked(request) or 'plain'} tone"


def _reword(edits: FileEdits, target: Tone, renamed: list[tuple[str, str, str]]) -> int:
    """Reword what the demo wrote in `edits`' page; how many such texts it
    found. The sections renamed are added to `renamed`: (id, old, new)."""
    found = 0
    for section_id, heading, start, end in list(_headings(edits.text)):
        new = _in_tone(section_id, heading, target, heading=True)
        if new is None:
            continue
        found += 1
        if new != heading:
            edits.replace(start, end, text(new))
            renamed.append((section_id, heading, new))
    for lead, start, end in list(_leads(edits.text)):
        new = _lead_in_tone(lead, edits.text, target)
        if new is not None:
            found += 1
            edits.replace(start, end, text(new))
    return found


def _headings(page: str) -> Iterator[tuple[str, str, int, int]]:
    """Each section's id and heading, with where the heading's text is, last first
    (so replacing one leaves the places of the others as they were)."""
    sections = list(re.finditer(r'<section id="([\w-]+)"[^>]*>\s*<h2>([^<]*)</h2>', page))
    for found in reversed(sections):
        yield found.group(1), html.unescape(found.group(2)), found.start(2), found.end(2)


def _leads(page: str) -> Iterator[tuple[str, int, int]]:
    leads = list(re.finditer(r'<p class="(?:lead|tagline)">([^<]*)</p>', page))
    for found in reversed(leads):
        yield html.unescape(found.group(1)), found.start(1), found.end(1)


def _words(section_id: str, tone: Tone) -> tuple[str, str] | None:
    plain = next((v for v in SECTIONS.values() if v[0] == section_id), None)
    if plain is None:
        return None
    return section_words(section_id, plain[1], plain[2], tone)


def _in_tone(section_id: str, said: str, target: Tone, *, heading: bool) -> str | None:
    """A section's heading (or first line) in `target`, when `said` is how the
    demo words it in some tone; None when the demo did not write it."""
    at = 0 if heading else 1
    for tone in _TONES:
        words = _words(section_id, tone)
        if words is not None and words[at] == said:
            return (_words(section_id, target) or words)[at]
    return None


def _lead_in_tone(said: str, page: str, target: Tone) -> str | None:
    """A first line, or the tagline, in `target`, when the demo wrote it."""
    for section_id in dict.fromkeys(v[0] for v in SECTIONS.values()):
        new = _in_tone(section_id, said, target, heading=False)
        if new is not None:
            return new
    kind, name = kind_found_in(page), site_name(page) or "us"
    for tone in _TONES:
        if said == tagline(kind.kind.id, kind.label, tone):
            return tagline(kind.kind.id, kind.label, target)
        topic = _topic(said, more_text("\0", tone)) or _topic(said, page_text("\0", name, tone))
        if topic is not None:
            is_page = said == page_text(topic, name, tone)
            return page_text(topic, name, target) if is_page else more_text(topic, target)
    return None


def _topic(said: str, template: str) -> str | None:
    """The topic in `said` when it is `template` with "\0" standing for it."""
    before, _, after = template.partition("\0")
    if said.startswith(before) and said.endswith(after) and len(said) > len(before + after):
        return said[len(before) : len(said) - len(after)]
    return None


def _rename_links(edits: FileEdits, section_id: str, old: str, new: str) -> None:
    """A navigation link to the section that named it as its heading did follows it."""
    link = re.search(
        rf'(<a href="(?:index\.html)?#{re.escape(section_id)}">){re.escape(text(old))}</a>',
        edits.text,
    )
    if link is not None:
        edits.replace(link.end(1), link.end(1) + len(text(old)), text(new))
