"""The provider system checks (chat.checks): configuration problems reported at
start-up with stable ids, called directly as Django's own check tests do."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from pytest_django.fixtures import Settings

from chat.checks import check_provider

OPENROUTER = "https://openrouter.ai/api/v1"
OLLAMA = "http://127.0.0.1:11434/v1"


@pytest.fixture
def provider(settings: Settings) -> Settings:
    """Settings with a keyless OpenRouter and a good app URL; each test changes one thing."""
    settings.OPENROUTER_BASE_URL = OPENROUTER
    settings.OPENROUTER_API_KEY = ""
    settings.BUILTIT_APP_URL = "http://127.0.0.1:8000"
    return settings


def check_ids() -> list[str]:
    return [message.id or "" for message in check_provider()]


def test_no_key_for_openrouter_is_one_warning(provider: Settings) -> None:
    messages = check_provider()

    assert len(messages) == 1
    [warning] = messages
    assert isinstance(warning, Warning)
    assert warning.id == "chat.W001"
    assert "OPENROUTER_API_KEY" in (warning.hint or "")


@pytest.mark.parametrize(
    "url", [OPENROUTER, "https://openrouter.ai/api/v1/", "HTTPS://OpenRouter.ai/api/v1"]
)
def test_no_key_warning_for_every_spelling_of_openrouter(provider: Settings, url: str) -> None:
    provider.OPENROUTER_BASE_URL = url

    assert check_ids() == ["chat.W001"]


def test_a_key_silences_the_warning(provider: Settings) -> None:
    provider.OPENROUTER_API_KEY = "sk-or-v1-0123456789abcdef"

    assert check_provider() == []


@pytest.mark.parametrize(
    "url",
    [OLLAMA, "http://localhost:8080/v1", "http://[::1]:1234/v1", "https://llm.example.com/v1"],
)
def test_no_key_for_a_local_server_is_fine(provider: Settings, url: str) -> None:
    provider.OPENROUTER_BASE_URL = url

    assert check_provider() == []


@pytest.mark.parametrize(
    "url", ["ftp://x", "openrouter.ai/api/v1", "http://[::1", "", "http://", "file:///tmp/x"]
)
def test_a_base_url_that_is_not_http_is_an_error(provider: Settings, url: str) -> None:
    provider.OPENROUTER_BASE_URL = url

    messages = check_provider()

    assert len(messages) == 1
    [error] = messages
    assert isinstance(error, Error)
    assert error.id == "chat.E001"
    assert repr(url) in error.msg


@pytest.mark.parametrize("url", ["example.com", "ftp://builtit.example", "http://[::1"])
def test_a_bad_app_url_is_a_warning(provider: Settings, url: str) -> None:
    provider.OPENROUTER_API_KEY = "sk-or-v1-0123456789abcdef"
    provider.BUILTIT_APP_URL = url

    messages = check_provider()

    assert [message.id for message in messages] == ["chat.W002"]
    assert isinstance(messages[0], Warning)
    assert repr(url) in messages[0].msg


def test_an_empty_app_url_is_fine(provider: Settings) -> None:
    provider.OPENROUTER_API_KEY = "sk-or-v1-0123456789abcdef"
    provider.BUILTIT_APP_URL = ""

    assert check_provider() == []


def test_no_key_and_a_bad_app_url_are_both_reported(provider: Settings) -> None:
    provider.BUILTIT_APP_URL = "builtit.local"

    assert check_ids() == ["chat.W001", "chat.W002"]


def test_the_check_is_registered_and_manage_py_check_passes_with_warnings(
    provider: Settings,
) -> None:
    out, err = StringIO(), StringIO()

    call_command("check", stdout=out, stderr=err)

    assert "chat.W001" in err.getvalue()


def test_manage_py_check_passes_with_the_test_settings() -> None:
    out = StringIO()

    call_command("check", stdout=out)

    assert "no issues" in out.getvalue()
