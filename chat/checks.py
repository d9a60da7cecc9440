"""Configuration problems with the model provider, reported at start-up."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning, register

from chat.agent.model_choice import ModelRefused, clean_model_id


@register()
def check_provider(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    base_host = _http_host(settings.OPENROUTER_BASE_URL)
    if base_host is None:
        messages.append(
            Error(
                f"OPENROUTER_BASE_URL is not an http(s) URL: {settings.OPENROUTER_BASE_URL!r}.",
                hint="Use https://openrouter.ai/api/v1, or the /v1 URL of an "
                "OpenAI-compatible server such as http://127.0.0.1:11434/v1 (Ollama).",
                id="chat.E001",
            )
        )
    elif not settings.OPENROUTER_API_KEY and _is_openrouter(base_host):
        messages.append(
            Warning(
                "No OpenRouter API key is configured: people can try the offline demo "
                "model, and chat with a real model once they add their own key in Settings.",
                hint="Set OPENROUTER_API_KEY (https://openrouter.ai/keys), or point "
                "OPENROUTER_BASE_URL at a local OpenAI-compatible server.",
                id="chat.W001",
            )
        )
    if settings.BUILTIT_APP_URL and _http_host(settings.BUILTIT_APP_URL) is None:
        messages.append(
            Warning(
                f"BUILTIT_APP_URL is not an http(s) URL: {settings.BUILTIT_APP_URL!r}.",
                hint="Set it to the address people use to reach Built-It; "
                "it is sent to OpenRouter for attribution.",
                id="chat.W002",
            )
        )
    if isinstance(clean_model_id(settings.BUILTIT_DEFAULT_MODEL), ModelRefused):
        messages.append(
            Error(
                f"BUILTIT_DEFAULT_MODEL is not a model id: {settings.BUILTIT_DEFAULT_MODEL!r}.",
                hint="Use an OpenRouter model id such as google/gemini-2.5-flash-lite.",
                id="chat.E002",
            )
        )
    return messages


def _is_openrouter(host: str) -> bool:
    return host == "openrouter.ai" or host.endswith(".openrouter.ai")


def _http_host(url: str) -> str | None:
    """The host of an http(s) URL, or None when `url` is not one."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return None
    return host if parts.scheme in ("http", "https") and host else None


@register(deploy=True)
def check_deploy(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """What a public server should not run with (`manage.py check --deploy`)."""
    messages: list[CheckMessage] = []
    no_person_cap = (
        settings.BUILTIT_USER_DAILY_COST_LIMIT <= 0
        and settings.BUILTIT_USER_MONTHLY_COST_LIMIT <= 0
    )
    if settings.BUILTIT_ALLOW_SIGNUP and no_person_cap:
        messages.append(
            Warning(
                "Anyone can sign up, and nothing bounds what one person spends.",
                hint="Set BUILTIT_USER_DAILY_COST_LIMIT or BUILTIT_USER_MONTHLY_COST_LIMIT, "
                "or turn sign-up off with BUILTIT_ALLOW_SIGNUP=0.",
                id="chat.W003",
            )
        )
    if "*" in settings.ALLOWED_HOSTS:
        messages.append(
            Warning(
                "ALLOWED_HOSTS contains '*': the app answers to any host name.",
                hint="List the host names people use, e.g. ALLOWED_HOSTS=builder.example.com.",
                id="chat.W004",
            )
        )
    return messages
