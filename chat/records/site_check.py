"""The check of the whole site at the end of a turn that changed files, as stored
on the turn's closing record."""

from __future__ import annotations

from dataclasses import dataclass

from chat.records.reading import items
from common.jsontypes import JSONObject, JSONValue, as_int, as_object


@dataclass(frozen=True)
class CheckFinding:
    kind: str  # projects.publish's finding kinds ("broken_link", "page", ...)
    path: str
    line: int | None
    text: str


@dataclass(frozen=True)
class SiteCheckRecord:
    """The check of the whole site at the end of a turn that changed files
    (DESIGN §6, point 12): what a person reads under the turn."""

    findings: tuple[CheckFinding, ...] = ()  # the first few, most important first
    total: int = 0  # every finding, listed or not
    unfinished: str = ""  # why the check did not finish (then nothing is listed)

    @classmethod
    def from_check(cls, check: JSONValue) -> SiteCheckRecord:
        """What projects.publish's check for the model says, or its stored form."""
        found = as_object(check)
        if found.get("finished") is False or found.get("unfinished") or "findings" not in found:
            message = found.get("message") or found.get("unfinished") or found.get("error")
            return cls(unfinished=str(message or "The check did not finish."))
        findings = tuple(
            CheckFinding(
                str(item.get("kind") or ""),
                str(item.get("path") or ""),
                as_int(item.get("line")),
                str(item.get("text") or ""),
            )
            for item in (as_object(raw) for raw in items(found.get("findings")))
        )
        listed_past = as_int(found.get("not_listed")) or 0
        total = as_int(found.get("total"))
        return cls(findings, total if total is not None else len(findings) + listed_past)

    def to_stored(self) -> JSONObject:
        return {
            "findings": [
                {"kind": f.kind, "path": f.path, "line": f.line, "text": f.text}
                for f in self.findings
            ],
            "total": self.total,
            "unfinished": self.unfinished,
        }

    @property
    def clean(self) -> bool:
        return not self.total and not self.unfinished
