"""Which client serves a model: the offline demo (demo/, an in-process model)
serves its own id while it is on; the provider (chat.llm: OpenRouter, or a local
server) serves every other. The demo is reached only through here.

    async with client_for(model).stream(request) as pieces: ...

Both clients are one per event loop, like chat.llm's: nothing to close.
"""

from __future__ import annotations

from django.conf import settings

from chat.llm import LLMClient, get_client
from demo.transport import DEMO_LABEL, DEMO_MODEL, running_demo_client


def client_for(model: str) -> LLMClient:
    return running_demo_client() if is_offline(model) else get_client()


def offline_model() -> str:
    """The model that needs no key and no network (the demo), or "" when it is off."""
    return DEMO_MODEL if settings.BUILTIT_DEMO_ENABLED else ""


def is_offline(model: str) -> bool:
    return bool(model) and model == offline_model()


def model_label(model: str) -> str:
    """How the picker names a model: the offline one says what it is."""
    return DEMO_LABEL if model == DEMO_MODEL else ""
