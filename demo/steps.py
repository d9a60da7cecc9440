"""One step of the offline demo: what it thinks, says and calls in one answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Step:
    """One answer: what it thinks (reasoning), says, and which tools it calls."""

    reasoning: str
    content: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
