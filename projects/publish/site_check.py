"""What to tell a person before their site goes out, in words: links and assets
that lead nowhere, pages a browser or a search engine will read badly, text
left from a template, and files that look like secrets. Nothing here refuses
a publish; the person reads it and may publish anyway.

It reads the project's text files only (a binary file holds no link, and a
project holds no `.env` or `.pem`: projects.files.paths allows none), each
already bounded by the project's limits. Its own patterns are bounded; Python's
HTML parser is not (3.11's is quadratic on some broken markup), so the
workspace and `manage.py publish` run it in a process of its own, with a time
limit (projects.publish.checking).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Literal

from projects.files.paths import extension_of
from projects.publish.addresses import file_for, leaves_site, link_target

Kind = Literal["broken_link", "page", "placeholder", "secret"]

# Kinds in the order a person should read them: what could leak first.
ORDER: tuple[Kind, ...] = ("secret", "broken_link", "page", "placeholder")
HEADINGS: dict[Kind, str] = {
    "secret": "Files that look like secrets",
    "broken_link": "Links and files that lead nowhere",
    "page": "Pages browsers and search engines will read badly",
    "placeholder": "Text left from a template",
}
MAX_FINDINGS = 200  # what a person can read; the rest are counted


@dataclass(frozen=True)
class Finding:
    kind: Kind
    path: str  # the file it is in
    text: str  # what is wrong, in words


@dataclass(frozen=True)
class SiteCheck:
    findings: tuple[Finding, ...]
    more: int  # findings past MAX_FINDINGS, not listed

    @property
    def clean(self) -> bool:
        return not self.findings

    def by_kind(self) -> list[tuple[str, list[Finding]]]:
        """The findings under their headings, in ORDER, kinds with none left out."""
        return [
            (HEADINGS[kind], found)
            for kind in ORDER
            if (found := [f for f in self.findings if f.kind == kind])
        ]


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
            page = _Page.read(text)
            if page is None:
                found.append(Finding("page", path, _UNREADABLE))
                continue
            found += _broken(path, page.references, files, own_host=own_host)
            found += _page_problems(path, page)
            found += _placeholders(path, page.words)
        elif extension == "css":
            found += _broken(path, _css_references(text), files, own_host=own_host)
        elif extension in {"md", "txt"}:
            found += _placeholders(path, text)
    ranked = sorted(found, key=lambda f: ORDER.index(f.kind))
    return SiteCheck(tuple(ranked[:MAX_FINDINGS]), max(len(ranked) - MAX_FINDINGS, 0))


# --- links and assets ------------------------------------------------------------

# Attributes that name a file the page loads or links to.
_LINKING = {"href", "src", "poster", "data", "action", "formaction"}
# Bounded repeats: a pattern free to run to the end of the text at each of a
# hostile file's thousands of starts would take hours (a review measured 21 s
# for 48 KB of "url(" with an unbounded one).
_CSS_IMPORT = re.compile(r"""@import\s{1,20}(?:"([^"\n]{0,500})"|'([^'\n]{0,500})')""", re.I)
_MAX_REFERENCE = 2000  # characters: longer is not a reference to a file


def _broken(
    path: str, references: list[str], files: Mapping[str, str | None], *, own_host: bool
) -> Iterator[Finding]:
    said: set[str] = set()
    lower = {name.lower(): name for name in files}
    for reference in references:
        if not own_host and leaves_site(path, reference):
            if reference not in said:
                said.add(reference)
                shown = reference.strip()
                if shown.startswith("/"):
                    how = "starts at the server's root, not your site's"
                    # The same file, from this page: up to the site's root, then down.
                    relative = "../" * (path.count("/") - 1) + shown.lstrip("/")
                    instead = f"Write it as {relative} instead."
                else:
                    how = "climbs above your site's root"
                    instead = "Write it relative to this file, within your site."
                yield Finding(
                    "broken_link",
                    path,
                    f"{shown} {how}: at your site's address it would reach someone else's "
                    f"site. {instead}",
                )
            continue
        target = link_target(path, reference)
        if target is None or target in said or file_for(target, files) is not None:
            continue
        said.add(target)
        other = lower.get(target.lower())
        hint = f" (there is {other}: the case differs)" if other else ""
        yield Finding("broken_link", path, f"{reference.strip()} leads to no file{hint}.")


def _css_references(text: str) -> list[str]:
    found = [match.group(1) or match.group(2) or "" for match in _CSS_IMPORT.finditer(text)]
    return found + _css_urls(text)


def _css_urls(text: str) -> list[str]:
    """What each `url(...)` names, found in one pass: the next ")" is looked
    for only once the scan has passed the last one found."""
    lower = text.lower()
    found: list[str] = []
    start = lower.find("url(")
    close = -1
    while start != -1:
        if close < start:
            close = text.find(")", start)
            if close == -1:
                break
        inside = text[start + 4 : close].strip()
        if len(inside) <= _MAX_REFERENCE:
            found.append(inside.strip("'\"").strip())
        start = lower.find("url(", start + 4)
    return [reference for reference in found if reference]


# --- pages -----------------------------------------------------------------------


class _Page(HTMLParser):
    """What the check needs of an HTML page, read once."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.references: list[str] = []
        self.title = ""
        self.has_title = False
        self.lang = ""
        self.viewport = False
        self.words_seen: list[str] = []
        self._in_title = False
        self._hidden = 0  # inside <script> or <style>: code, not words

    @classmethod
    def read(cls, text: str) -> _Page | None:
        """The page, or None where Python's parser gives up on broken markup
        (`<![x>` makes it raise)."""
        page = cls()
        try:
            page.feed(text)
            page.close()
        except (AssertionError, ValueError, IndexError):
            return None
        return page

    @property
    def words(self) -> str:
        return " ".join(self.words_seen)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name, value in values.items():
            if name in _LINKING and value:
                self.references.append(value)
        if "srcset" in values:
            self.references += [c.split()[0] for c in values["srcset"].split(",") if c.split()]
        if "style" in values:
            self.references += _css_references(values["style"])
        if tag == "html":
            self.lang = values.get("lang", "").strip()
        elif tag == "title":
            self.has_title, self._in_title = True, True
        elif tag == "meta" and values.get("name", "").lower() == "viewport":
            self.viewport = True
        elif tag in {"script", "style"}:
            self._hidden += 1
        if tag in {"img", "input", "area"} and values.get("alt"):
            self.words_seen.append(values["alt"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in {"script", "style"} and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._hidden:
            if self.lasttag == "style":
                self.references += _css_references(data)
            return
        self.words_seen.append(data)


_UNREADABLE = (
    "Its markup is too broken to read (a stray <! or an unfinished tag), so its "
    "links could not be checked: browsers may show it differently from what you expect."
)


def _page_problems(path: str, page: _Page) -> Iterator[Finding]:
    if not page.has_title or not page.title.strip():
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
    if not page.viewport:
        yield Finding(
            "page",
            path,
            'It has no <meta name="viewport">: phones show it shrunk to a desktop width.',
        )


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
