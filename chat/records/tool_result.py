"""A tool call's result message, as stored."""

from __future__ import annotations

from dataclasses import dataclass

from chat.records.reading import number
from common.jsontypes import JSONObject, as_str


@dataclass(frozen=True)
class ToolRecord:
    """A tool call's result message."""

    name: str = ""
    ok: bool = False
    summary: str = ""
    duration_ms: float | None = None

    def to_stored(self) -> JSONObject:
        return {
            "name": self.name,
            "ok": self.ok,
            "summary": self.summary,
            "duration_ms": self.duration_ms,
        }

    @classmethod
    def from_stored(cls, stored: object) -> ToolRecord:
        record = stored if isinstance(stored, dict) else {}
        return cls(
            as_str(record.get("name")) or "",
            bool(record.get("ok")),
            str(record.get("summary", "")),
            number(record.get("duration_ms")),
        )
