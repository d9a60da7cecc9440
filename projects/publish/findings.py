"""What the check of a whole site (projects.publish.site_check) found, as
values: each finding of a kind, under a heading in words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

# In the order a person should read them: what could leak first, then what is
# broken for every visitor, then what some visitors and search engines miss,
# then what is only unfinished.
Kind = Literal[
    "secret",
    "broken_link",
    "form",
    "markup",
    "css",
    "page",
    "duplicate_id",
    "missing_alt",
    "placeholder",
]
ORDER: tuple[Kind, ...] = get_args(Kind)
HEADINGS: dict[Kind, str] = {
    "secret": "Files that look like secrets",
    "broken_link": "Links and files that lead nowhere",
    "form": "Forms that lose what visitors send, or that screen readers cannot fill in",
    "markup": "Markup browsers will read differently from how it is written",
    "css": "Styles browsers will skip",
    "page": "Pages browsers and search engines will read badly",
    "duplicate_id": "Ids used more than once on a page",
    "missing_alt": "Images without a text alternative",
    "placeholder": "Text left from a template",
}
MAX_FINDINGS = 200  # what a person can read; the rest are counted


@dataclass(frozen=True)
class Finding:
    kind: Kind
    path: str  # the file it is in
    text: str  # what is wrong, in words
    line: int | None = None  # where in the file, when one line says it


@dataclass(frozen=True)
class SiteCheck:
    findings: tuple[Finding, ...]
    more: int  # findings past MAX_FINDINGS, not listed
    counts: Mapping[Kind, int] = field(default_factory=dict)  # all found, listed or not

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
