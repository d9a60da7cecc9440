"""A refusal: why something was not done, in words for whoever asked (a person,
or a model that can recover). Returned as a value, never raised: a function
that may refuse returns `Result | <Name>Refused`, and its caller checks with
`isinstance`. Each kind of refusal is a subclass named `<what>Refused`, which
may carry more (a code, the files in the way)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal:
    message: str
