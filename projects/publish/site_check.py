"""What to tell a person before their site goes out, in words: links and assets
that lead nowhere, markup and styles browsers will read differently from how
they are written, pages a browser or a search engine will read badly, ids used
twice, images without a text alternative, text left from a template, files
that look like secrets, and forms that lose what visitors send or have fields
without labels (projects.publish.form_checks). Nothing here refuses a
publish; the person reads it and may publish anyway. The assistant is told
the same (projects.publish.for_model).

It reads the project's text files only (a binary file holds no link, and a
project holds no `.env` or `.pem`: projects.files.paths allows none), each
already bounded by the project's limits: pages with html5lib
(projects.publish.pages), styles with tinycss2 (projects.publish.stylesheets).
Neither is bounded on every hostile input, so the workspace, `manage.py
publish` and the assistant run the check in a process of its own, with a time
limit (projects.publish.checking).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping

from projects.files.paths import extension_of
from projects.publish.addresses import is_form_endpoint
from projects.publish.findings import HEADINGS, MAX_FINDINGS, ORDER, Finding, Kind, SiteCheck
from projects.publish.form_checks import form_findings
from projects.publish.links import Reference, broken_links
from projects.publish.markup import markup_findings
from projects.publish.pages import Page, Tag, page_read
from projects.publish.stylesheets import css_findings, stylesheet_read

__all__ = ["HEADINGS", "MAX_FINDINGS", "ORDER", "Finding", "Kind", "SiteCheck", "site_check"]

MAX_PER_PAGE = 5  # of one kind, found in one file: the rest are more of the same


def site_check(files: Mapping[str, str | None], *, own_host: bool = False) -> SiteCheck:
    """Check a whole site: `files` maps each path to its text, or None for a
    binary file. `own_host`: the site is served at the root of a host of its
    own, where a reference from the server's root (`/app.js`) is one of its
    files; else at `/s/<name>/`, where it reaches someone else's site."""
    found: list[Finding] = []
    for path in sorted(files):
        text = files[path]
        if text is None:
            continue
        found += _secrets(path, text)
        extension = extension_of(path)
        if extension in {"html", "htm"}:
            found += _page_findings(path, page_read(text), files, own_host=own_host)
        elif extension == "css":
            sheet = stylesheet_read(text)
            found += broken_links(path, sheet.references, files, own_host=own_host)
            found += css_findings(path, [sheet])
        elif extension in {"md", "txt"}:
            found += _placeholders(path, text)
    ranked = sorted(found, key=lambda f: ORDER.index(f.kind))
    counted = Counter(f.kind for f in found)
    return SiteCheck(
        tuple(ranked[:MAX_FINDINGS]),
        max(len(ranked) - MAX_FINDINGS, 0),
        {kind: counted[kind] for kind in ORDER if counted[kind]},
    )


def _page_findings(
    path: str, page: Page, files: Mapping[str, str | None], *, own_host: bool
) -> Iterator[Finding]:
    sheets = [stylesheet_read(style.text, line=style.line) for style in page.styles]
    sheets += [
        stylesheet_read(tag.attributes["style"], line=tag.line, attribute=True)
        for tag in page.tags
        if "style" in tag.attributes
    ]
    references = _references(page.tags) + [r for sheet in sheets for r in sheet.references]
    # In the order they are written, for the first of a target's references to be the one told.
    references.sort(key=lambda reference: reference.line)
    yield from broken_links(path, references, files, own_host=own_host)
    yield from markup_findings(path, page.errors)
    yield from css_findings(path, sheets)
    yield from form_findings(path, page.tags)
    yield from _page_problems(path, page)
    yield from _duplicate_ids(path, page.tags)
    yield from _missing_alt(path, page.tags)
    alts = [tag.attributes.get("alt", "") for tag in page.tags if tag.name in _WITH_ALT]
    yield from _placeholders(path, " ".join([page.words, *alts]))


# --- what a page references ----------------------------------------------------------

# Attributes that name a file the page loads or links to.
_LINKING = {"href", "src", "poster", "data", "action", "formaction"}
_POSTING = {"action", "formaction"}


def _references(tags: Iterable[Tag]) -> list[Reference]:
    found: list[Reference] = []
    for tag in tags:
        for name, value in tag.attributes.items():
            if name in _POSTING and is_form_endpoint(value):
                continue  # the site's form endpoint, on its own host
            if name in _LINKING and value:
                found.append(Reference(value, tag.line))
        for candidate in tag.attributes.get("srcset", "").split(","):
            if candidate.split():
                found.append(Reference(candidate.split()[0], tag.line))
    return found


# --- pages -----------------------------------------------------------------------


def _page_problems(path: str, page: Page) -> Iterator[Finding]:
    if page.title is None or not page.title.strip():
        yield Finding(
            "page", path, "It has no <title>: tabs, bookmarks and search results show its address."
        )
    if not page.lang:
        yield Finding(
            "page",
            path,
            'Its <html> tag names no language (lang="en", for example): screen readers '
            "may read it with the wrong voice, and translation is not offered.",
        )
    if not any(_is_viewport(tag) for tag in page.tags):
        yield Finding(
            "page",
            path,
            'It has no <meta name="viewport">: phones show it shrunk to a desktop width.',
        )


def _is_viewport(tag: Tag) -> bool:
    return tag.html and tag.name == "meta" and tag.attributes.get("name", "").lower() == "viewport"


def _duplicate_ids(path: str, tags: Iterable[Tag]) -> Iterator[Finding]:
    lines: dict[str, list[int]] = {}
    for tag in tags:
        if name := tag.attributes.get("id", ""):
            lines.setdefault(name, []).append(tag.line)
    repeated = [(name, at) for name, at in lines.items() if len(at) > 1]
    for name, at in repeated[:MAX_PER_PAGE]:
        yield Finding(
            "duplicate_id",
            path,
            f'id="{_shown(name)}" is on {len(at)} elements ({_lines(at)}): a link to '
            f"#{_shown(name)}, a <label for> and a script each find only the first.",
            at[1],
        )


# Elements whose alt attribute is their text for people who cannot see them.
_WITH_ALT = {"img", "input", "area"}


def _missing_alt(path: str, tags: Iterable[Tag]) -> Iterator[Finding]:
    missing = [
        tag for tag in tags if tag.html and tag.name == "img" and "alt" not in tag.attributes
    ]
    for tag in missing[:MAX_PER_PAGE]:
        source = tag.attributes.get("src", "").strip()
        image = f"The image {_shown(source)}" if source else "An <img>"
        yield Finding(
            "missing_alt",
            path,
            f"{image} has no alt: screen readers read out its address instead, and nothing "
            'stands in for it if it does not load. Describe it in alt="…", or write alt="" '
            "if it is only decoration.",
            tag.line,
        )
    if len(missing) > MAX_PER_PAGE:
        rest = missing[MAX_PER_PAGE:]
        yield Finding(
            "missing_alt",
            path,
            f"And {len(rest)} more images on this page have no alt.",
            rest[0].line,
        )


def _shown(text: str) -> str:
    return text if len(text) <= 60 else text[:60] + "…"


def _lines(lines: list[int]) -> str:
    distinct = sorted(set(lines))
    if len(distinct) == 1:
        return f"all on line {distinct[0]}"
    shown = [str(line) for line in distinct[:5]]
    if len(distinct) > 5:
        shown.append(f"{len(distinct) - 5} more")
    return "lines " + ", ".join(shown[:-1]) + " and " + shown[-1]


# --- text left from a template ---------------------------------------------------

_PLACEHOLDERS = re.compile(
    # A bracketed blank first, so "[Your name here]" is quoted whole. TODO and
    # friends in capitals only: "todo" is a word a site may well use.
    r"\[(?:your |insert )[^\]\n]{1,40}\]"
    r"|\b(?:lorem ipsum|dolor sit amet|(?-i:TODO|FIXME|TBD)|your (?:company|business|name) here"
    r"|555[- .]\d{4}|123 main st(?:reet)?|(?:john|jane) doe"
    r"|(?:you|name|example)@example\.com)",
    re.IGNORECASE,
)


def _placeholders(path: str, words: str) -> Iterator[Finding]:
    seen: set[str] = set()
    for match in _PLACEHOLDERS.finditer(words):
        shown = match.group(0)
        if shown.lower() in seen:
            continue
        seen.add(shown.lower())
        yield Finding("placeholder", path, f"“{shown}” looks like text left from a template.")
        if len(seen) >= 5:
            return


# --- secrets ---------------------------------------------------------------------

_SECRETS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a private key", re.compile(r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----")),
    ("an OpenRouter key", re.compile(r"\bsk-or-v1-[0-9a-f]{32,}")),
    ("an OpenAI or Anthropic key", re.compile(r"\bsk-(?!or-)(?:proj-|ant-)?[A-Za-z0-9_-]{32,}")),
    ("a Stripe secret key", re.compile(r"\b(?:sk|rk)_live_[0-9A-Za-z]{16,}")),
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{40,})")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[0-9A-Za-z-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
)


def _secrets(path: str, text: str) -> Iterator[Finding]:
    for name, pattern in _SECRETS:
        match = pattern.search(text)
        if match:
            line = text.count("\n", 0, match.start()) + 1
            shown = match.group(0)[:8] + "…"
            yield Finding(
                "secret",
                path,
                f"Line {line} holds what looks like {name} ({shown}): anyone who opens the "
                "site can read it. Take it out, and revoke it where it was issued.",
            )
