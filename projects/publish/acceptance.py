"""The check's findings a site's owner has read and published anyway: the next
Update asks only about what is new or changed (Site.accepted_findings).

A finding is known by a mark made of its kind, its file and its words, not its
line: text added above it moves it, and it is still the one the person read.
Marks are counted, so a second image without a text alternative in a page
where one was accepted is asked about. What the person accepted is what the
Publish dialog showed them: the marks travel in its form (`marks_posted`).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from projects.publish.findings import MAX_FINDINGS, Finding, SiteCheck

_MARK = re.compile(r"[0-9a-f]{16}")


@dataclass(frozen=True)
class Asked:
    """What the dialog asks about before a publish."""

    check: SiteCheck  # the findings that are new or changed since the last accepted
    known: int  # findings accepted before and unchanged, not listed again
    marks: tuple[str, ...]  # every finding's mark, what "Publish anyway" accepts

    @property
    def clean(self) -> bool:
        """Nothing to ask about: a publish goes ahead."""
        return self.check.clean and not self.check.more


def finding_mark(finding: Finding) -> str:
    words = "\x00".join((finding.kind, finding.path, finding.text))
    return hashlib.sha256(words.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def check_asked(check: SiteCheck, accepted: Mapping[str, int]) -> Asked:
    """`check` less the findings `accepted` covers. Findings past the listed
    ones were never shown, so a check with any asks about all it lists."""
    marks = tuple(finding_mark(finding) for finding in check.findings)
    if check.more:
        return Asked(check, 0, marks)
    kept = accepted if isinstance(accepted, Mapping) else {}  # a JSON column: read with care
    left = Counter({mark: count for mark, count in kept.items() if isinstance(count, int)})
    new: list[Finding] = []
    for finding, mark in zip(check.findings, marks, strict=True):
        if left[mark] > 0:
            left[mark] -= 1
        else:
            new.append(finding)
    counts = Counter(finding.kind for finding in new)
    fresh = SiteCheck(tuple(new), 0, {kind: counts[kind] for kind in check.counts if counts[kind]})
    return Asked(fresh, len(check.findings) - len(new), marks)


def marks_counted(marks: Iterable[str]) -> dict[str, int]:
    """How many of each mark: what a site keeps as accepted."""
    return dict(Counter(marks))


def marks_posted(values: Iterable[str]) -> dict[str, int]:
    """The marks a "Publish anyway" form sent back (at most as many as a check
    lists, anything that is not a mark left out)."""
    kept = [value for value in values if _MARK.fullmatch(value)][:MAX_FINDINGS]
    return marks_counted(kept)
