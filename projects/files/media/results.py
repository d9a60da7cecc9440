"""What a check of a binary file's bytes finds: what the file is, or why it is refused."""

from __future__ import annotations

from dataclasses import dataclass

from common.refusals import Refusal


@dataclass(frozen=True)
class Sniffed:
    content_type: str
    width: int | None = None
    height: int | None = None


@dataclass(frozen=True)
class BinaryRefused(Refusal):
    """Why a file is refused: a sentence shown to the person and to the model."""
