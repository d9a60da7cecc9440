"""What a check of a binary file's bytes finds: what the file is, or why it is refused."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sniffed:
    content_type: str
    width: int | None = None
    height: int | None = None


@dataclass(frozen=True)
class BinaryProblem:
    """Why a file is refused: a sentence shown to the person and to the model."""

    message: str
