"""Which model a turn uses, and which ones people are offered.

Any model id is accepted (OpenRouter adds models weekly); an id only has to
look like one, so a typo with spaces or a pasted paragraph is refused early.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings

from projects.models import Project

MAX_MODEL_ID = 200
# vendor/model, with OpenRouter's variants (":free", ":thinking") and local
# servers' tags ("llama3.1:8b"); no spaces or control characters.
_MODEL_ID = re.compile(r"[A-Za-z0-9][\w.\-/:@+]*")


@dataclass(frozen=True)
class ModelError:
    message: str


def clean_model_id(raw: object) -> str | ModelError:
    text = str(raw or "").strip()
    if not text:
        return ModelError("Choose a model, e.g. google/gemini-2.5-flash-lite.")
    if len(text) > MAX_MODEL_ID or not _MODEL_ID.fullmatch(text):
        return ModelError(
            f"{text[:60]!r} is not a model id: use the form vendor/model, "
            "e.g. anthropic/claude-sonnet-4.5."
        )
    return text


def choose_model(requested: str | None, project: Project) -> str:
    """The turn's model: the one asked for, else the project's, else the server's."""
    return (requested or project.default_model or settings.BUILTIT_DEFAULT_MODEL).strip()


def offered_models(project: Project | None = None) -> list[str]:
    """For the picker: the project's and the server's default first, then the list."""
    ordered = [project.default_model if project else "", settings.BUILTIT_DEFAULT_MODEL]
    ordered += settings.BUILTIT_MODELS
    return list(dict.fromkeys(model.strip() for model in ordered if model.strip()))
