"""How the client reaches the provider, read once from settings."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

OPENROUTER_URL = "https://openrouter.ai/api/v1"


@dataclass(frozen=True, slots=True)
class ClientConfig:
    base_url: str = OPENROUTER_URL
    api_key: str = ""
    app_url: str = ""
    app_title: str = "Built-It"
    connect_timeout: float = 10.0
    # Between two reads, not for the whole answer: OpenRouter sends keep-alive
    # comments while a model thinks, so silence this long means a stall.
    read_timeout: float = 120.0
    max_retries: int = 3
    # A Retry-After longer than this is not waited for: the error goes to the
    # person at once, with the time to wait.
    retry_max_wait: float = 60.0
    backoff_initial: float = 0.5
    backoff_max: float = 8.0
    # Of one answer's text, reasoning and tool arguments together (UTF-8).
    max_answer_bytes: int = 8 * 1024 * 1024

    @property
    def needs_key(self) -> bool:
        """OpenRouter itself answers nothing without a key; a local server may."""
        return self.base_url.rstrip("/") == OPENROUTER_URL

    @classmethod
    def from_settings(cls) -> ClientConfig:
        return cls(
            base_url=settings.OPENROUTER_BASE_URL,
            api_key=settings.OPENROUTER_API_KEY,
            app_url=settings.BUILTIT_APP_URL,
            app_title=settings.BUILTIT_APP_TITLE,
            connect_timeout=settings.OPENROUTER_CONNECT_TIMEOUT,
            read_timeout=settings.OPENROUTER_READ_TIMEOUT,
            max_retries=settings.OPENROUTER_MAX_RETRIES,
            retry_max_wait=settings.OPENROUTER_RETRY_MAX_WAIT,
            max_answer_bytes=settings.BUILTIT_MAX_ANSWER_BYTES,
        )
