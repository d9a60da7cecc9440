"""What to tell a person before their site goes out, in words: links and assets
that lead nowhere, pages a browser or a search engine will read badly, text
left from a template, and files that look like secrets. Nothing here refuses
a publish; the person reads it and may publish anyway.

It reads the project's text files only (a binary file holds no link, and a
project holds no `.env` or `.pem`: projects.files.paths allows none), each
already bounded by the project's limits; every pattern is linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Literal

from projects.files.paths import extension_of
from projects.publish.addresses import file_for, link_target

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


def site_check(files: Mapping[str, str | None]) -> SiteCheck:
    """Check a whole site: `files` maps each path to its text, or None for a
    binary file."""
    found: list[Finding] = []
    for path in sorted(files):
        text = files[path]
        if text is None:
            continue
        found += _secrets(path, text)
        extension = extension_of(path)
        if extension in {"html", "htm"}:
            page = _Page.read(text)
            found += _broken(path, page.references, files)
            found += _page_problems(path, page)
            found += _placeholders(path, page.words)
        elif extension == "css":
            found += _broken(path, _css_references(text), files)
        elif extension in {"md", "txt"}:
            found += _placeholders(path, text)
    ranked = sorted(found, key=lambda f: ORDER.index(f.kind))
    return SiteCheck(tuple(ranked[:MAX_FINDINGS]), max(len(ranked) - MAX_FINDINGS, 0))


# --- links and assets ------------------------------------------------------------

# Attributes that name a file the page loads or links to.
_LINKING = {"href", "src", "poster", "data", "action", "formaction"}
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)""", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"""@import\s+(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def _broken(path: str, references: list[str], files: Mapping[str, str | None]) -> Iterator[Finding]:
    said: set[str] = set()
    lower = {name.lower(): name for name in files}
    for reference in references:
        target = link_target(path, reference)
        if target is None or target in said or file_for(target, files) is not None:
            continue
        said.add(target)
        other = lower.get(target.lower())
        hint = f" (there is {other}: the case differs)" if other else ""
        yield Finding("broken_link", path, f"{reference.strip()} leads to no file{hint}.")


def _css_references(text: str) -> list[str]:
    return [
        next(group for group in match.groups() if group is not None)
        for pattern in (_CSS_URL, _CSS_IMPORT)
        for match in pattern.finditer(text)
    ]


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
    def read(cls, text: str) -> _Page:
        page = cls()
        page.feed(text)
        page.close()
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
