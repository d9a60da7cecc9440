"""Which model a turn uses, and which ones people are offered.

Any model id is accepted (OpenRouter adds models weekly); an id only has to
look like one, so a typo with spaces or a pasted paragraph is refused early.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from django.conf import settings

from chat.llm import ClientConfig
from chat.providers import offline_model
from common.refusals import Refusal
from projects.models import Project

MAX_MODEL_ID = 200
# vendor/model, with OpenRouter's variants (":free", ":thinking") and local
# servers' tags ("llama3.1:8b"); no spaces or control characters.
_MODEL_ID = re.compile(r"[A-Za-z0-9][\w.\-/:@+]*")


@dataclass(frozen=True)
class ModelRefused(Refusal):
    """A model id that is not one."""


def clean_model_id(raw: object) -> str | ModelRefused:
    text = str(raw or "").strip()
    if not text:
        return ModelRefused("Choose a model, e.g. google/gemini-2.5-flash-lite.")
    if len(text) > MAX_MODEL_ID or not _MODEL_ID.fullmatch(text):
        return ModelRefused(
            f"{text[:60]!r} is not a model id: use the form vendor/model, "
            "e.g. anthropic/claude-sonnet-4.5."
        )
    return text


Setup = Literal["personal", "server", "local", "none"]


def setup_of(*, personal_key: bool) -> Setup:
    """How this person's turns reach a model: their own key, the server's, a
    local server that needs none, or nothing (only the offline demo works)."""
    if personal_key:
        return "personal"
    if settings.OPENROUTER_API_KEY:
        return "server"
    if not ClientConfig.from_settings().needs_key:
        return "local"
    return "none"


def default_model(*, personal_key: bool) -> str:
    """The server's default model, or the offline one when no other can be reached."""
    offline = offline_model()
    if offline and setup_of(personal_key=personal_key) == "none":
        return offline
    return settings.BUILTIT_DEFAULT_MODEL


def choose_model(requested: str | None, project: Project, *, personal_key: bool) -> str:
    """The turn's model: the one asked for, else the project's, else the default."""
    chosen = requested or project.default_model or default_model(personal_key=personal_key)
    return chosen.strip()


def offered_models(project: Project | None = None, *, personal_key: bool = False) -> list[str]:
    """For the picker: the project's and the default first, then the list, then
    the offline one (when it is on)."""
    ordered = [project.default_model if project else "", default_model(personal_key=personal_key)]
    ordered += [*settings.BUILTIT_MODELS, offline_model()]
    return list(dict.fromkeys(model.strip() for model in ordered if model.strip()))
