"""A page the offline demo adds to a site that is there: in the site's layout,
with the home page's navigation (its in-page links made to lead back there),
real starter content for what the page is about (an about page tells the
place's story, a contact page gives its details), and a link to it from
every page that has a navigation. Where a page's navigation already leads to
a section of that name ("About" → #about), that link now leads to the page
instead of a second "About" beside it."""

from __future__ import annotations

import re

from demo.answers import NOTHING_CHANGED
from demo.content import section_body
from demo.edits import Call, FileEdits
from demo.intents import PAGE
from demo.rules import Rules
from demo.site import SECTIONS, kind_in, page, site_name, text
from demo.steps import Step
from demo.tones import page_text, section_words

_NAV = re.compile(r"<nav\b[^>]*>(.*?)</nav>", re.DOTALL)
_LINK = re.compile(r'<a href="([^"]*)">([^<]*)</a>')


def add_page(lowered: str, files: list[str], texts: dict[str, str], rules: Rules) -> Step:
    found = PAGE.search(lowered)
    slug = re.sub(r"[^a-z0-9-]", "", found.group(1) if found else "") or "new"
    title = slug.replace("-", " ").capitalize()
    path, href = f"/{slug}.html", f"{slug}.html"
    if path in files:
        return Step(
            f"{path} exists already.",
            f"There is already a {title} page ({path.lstrip('/')}). {NOTHING_CHANGED}",
        )
    home = texts.get("/index.html", "")
    name = site_name(home) or "Home"
    known = next((v for key, v in SECTIONS.items() if slug.startswith(key)), None)
    calls: list[Call] = []
    linked = []
    for other, other_text in sorted(texts.items()):
        edits = FileEdits(other, other_text)
        if _link_to(edits, known[0] if known else slug, href, title):
            linked.append(other.lstrip("/"))
        if edits.call is not None:
            calls.append(edits.call)
    if known is not None:
        _, lead = section_words(known[0], known[1], known[2], rules.voice)
        body = section_body(known[0], kind_in(home), name)
    else:
        lead, body = page_text(title.lower(), name, rules.voice), ""
    below = f"\n{body}" if body else ""
    main = f"""    <section class="section">
      <h1>{text(title)}</h1>
      <p class="lead">{text(lead)}</p>{below}
    </section>"""
    content = page(f"{title} · {name}", name, _nav_for(home, href, title), main)
    calls.insert(0, ("create_file", {"path": path, "content": content}))
    where = (
        f" and linking it from {', '.join(linked)}"
        if linked
        else " (the other pages have no navigation to link it from)"
    )
    return Step(
        f"A new page {path} in the site's layout, with the home page's navigation; every "
        "page with a <nav> gets a link to it.",
        f"Adding {path.lstrip('/')}{where}.",
        calls,
    )


def _nav_for(home: str, href: str, title: str) -> list[tuple[str, str]]:
    """The new page's links: the home page's, leading back to it, with this page's own."""
    nav = _NAV.search(home)
    links = [
        ((f"index.html{target}" if target.startswith("#") else target), label)
        for target, label in (_LINK.findall(nav.group(1)) if nav else [])
    ] or [("index.html", "Home")]
    same = [i for i, (_, label) in enumerate(links) if label.strip().lower() == title.lower()]
    if same:
        links[same[0]] = (href, title)
    else:
        links.append((href, title))
    return [(target, _plain(label)) for target, label in links]


def _link_to(edits: FileEdits, section_id: str, href: str, title: str) -> bool:
    """Link the page from this file's navigation: its link to a section of
    the same name now leads to the page; else a new link at the end."""
    nav = _NAV.search(edits.text)
    if nav is None:
        return False
    for link in _LINK.finditer(nav.group(1)):
        target, label = link.groups()
        to_section = target.split("#")[-1] == section_id and "#" in target
        if to_section or label.strip().lower() == title.lower():
            start = nav.start(1) + link.start(1)
            edits.replace(start, start + len(target), href)
            return True
    line = next((ln for ln in edits.text.splitlines() if "</nav>" in ln), None)
    if line is None or edits.text.count(line) != 1:
        return False
    indent = line[: len(line) - len(line.lstrip())] + "  "
    edits.insert(edits.text.index(line), f'{indent}<a href="{href}">{text(title)}</a>\n')
    return True


def _plain(label: str) -> str:
    # The label as read from HTML; page() escapes it again.
    return label.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
