"""Settings from the environment, checked in fresh processes the way a server starts."""

from __future__ import annotations

import json
import os
import secrets
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Prints the settings a process ends up with, as JSON.
_SHOW_SETTINGS = """
import json
import django
from django.conf import settings
django.setup()
print(json.dumps({
    "DEBUG": settings.DEBUG,
    "SECRET_KEY": settings.SECRET_KEY,
    "DATABASE": {k: settings.DATABASES["default"].get(k) for k in
                 ("ENGINE", "NAME", "USER", "PASSWORD", "HOST", "PORT")},
    "CHANNEL_BACKEND": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "CHANNEL_CONFIG": settings.CHANNEL_LAYERS["default"].get("CONFIG"),
    "CACHE_BACKEND": settings.CACHES["default"]["BACKEND"],
    "CACHE_LOCATION": settings.CACHES["default"].get("LOCATION"),
    "MAX_FILES": settings.BUILTIT_MAX_FILES,
    "SECURE_SSL_REDIRECT": settings.SECURE_SSL_REDIRECT,
    "SESSION_COOKIE_SECURE": settings.SESSION_COOKIE_SECURE,
    "ALLOW_SIGNUP": settings.BUILTIT_ALLOW_SIGNUP,
}))
"""


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    """A clean environment: nothing leaks in from the test process (tests.settings sets some)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DJANGO_SETTINGS_MODULE": "builtit.settings",
        "BUILTIT_DATA_DIR": str(data_dir),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(extra)
    return env


def _production_env(data_dir: Path, **extra: str) -> dict[str, str]:
    return _env(
        data_dir,
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="example.com",
        OPENROUTER_API_KEY="sk-or-v1-production",
        BUILTIT_APP_URL="https://example.com",
        **extra,
    )


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # Our own interpreter and fixed arguments: nothing untrusted reaches the command line.
    return subprocess.run(  # noqa: S603
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def _error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The last line of a traceback: the exception and its message, as an operator reads it."""
    return result.stderr.strip().splitlines()[-1]


def _settings(env: dict[str, str]) -> dict[str, Any]:
    result = _run(["-c", _SHOW_SETTINGS], env)
    assert result.returncode == 0, result.stderr
    shown: dict[str, Any] = json.loads(result.stdout)
    return shown


def test_production_settings_pass_check_deploy(tmp_path):
    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], _production_env(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_without_an_api_key_warns_but_runs(tmp_path):
    env = _production_env(tmp_path)
    del env["OPENROUTER_API_KEY"]

    result = _run(["manage.py", "check", "--deploy"], env)

    assert result.returncode == 0, result.stderr
    assert "chat.W001" in result.stderr + result.stdout
    assert "OPENROUTER_API_KEY" in result.stderr + result.stdout


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("OPENROUTER_READ_TIMEOUT", "soon"),
        ("OPENROUTER_CONNECT_TIMEOUT", "-1"),
        ("OPENROUTER_MAX_RETRIES", "many"),
        ("OPENROUTER_RETRY_MAX_WAIT", "nan"),
    ],
)
def test_bad_provider_settings_fail_at_start_naming_the_variable(tmp_path, name, value):
    result = _run(["manage.py", "check"], _env(tmp_path, **{name: value}))

    assert result.returncode != 0
    assert name in _error_line(result)


def test_production_settings_with_hsts_preload_opted_in_pass_check_deploy(tmp_path):
    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        _production_env(tmp_path, SECURE_HSTS_PRELOAD="1"),
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_defaults_are_https_only(tmp_path):
    shown = _settings(_production_env(tmp_path))
    assert shown["DEBUG"] is False
    assert shown["SECURE_SSL_REDIRECT"] is True
    assert shown["SESSION_COOKIE_SECURE"] is True


def test_the_embedded_defaults_are_sqlite_and_the_in_memory_layer(tmp_path):
    shown = _settings(_env(tmp_path))
    assert shown["DATABASE"]["ENGINE"] == "django.db.backends.sqlite3"
    assert shown["DATABASE"]["NAME"] == str(tmp_path / "db.sqlite3")
    assert shown["CHANNEL_BACKEND"] == "chat.live.layer.LiveLayer"
    assert shown["CHANNEL_CONFIG"]["redis_url"] == ""
    assert shown["CACHE_BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


def test_database_url_selects_postgresql(tmp_path):
    shown = _settings(_env(tmp_path, DATABASE_URL="postgres://u:p@h:5432/d"))
    assert shown["DATABASE"] == {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "d",
        "USER": "u",
        "PASSWORD": "p",
        "HOST": "h",
        "PORT": 5432,
    }


def test_redis_url_takes_the_channel_layer_across_processes_and_selects_the_redis_cache(
    tmp_path,
):
    url = "redis://redis.internal:6379/2"
    shown = _settings(_env(tmp_path, REDIS_URL=url))
    assert shown["CHANNEL_BACKEND"] == "chat.live.layer.LiveLayer"
    assert shown["CHANNEL_CONFIG"]["redis_url"] == url
    assert shown["CACHE_BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert shown["CACHE_LOCATION"] == url


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("DEBUG", "maybe", "DEBUG must be 1 or 0 (true/false), not 'maybe'."),
        ("BUILTIT_MAX_FILES", "abc", "BUILTIT_MAX_FILES must be a whole number, not 'abc'."),
        ("BUILTIT_MAX_FILES", "0", "BUILTIT_MAX_FILES must be at least 1, not 0."),
        (
            "BUILTIT_HTTPS",
            "sometimes",
            "BUILTIT_HTTPS must be 1 or 0 (true/false), not 'sometimes'.",
        ),
    ],
)
def test_a_bad_environment_value_fails_with_a_clear_message(tmp_path, variable, value, message):
    result = _run(["manage.py", "check"], _env(tmp_path, **{variable: value}))
    assert result.returncode != 0
    assert _error_line(result) == f"django.core.exceptions.ImproperlyConfigured: {message}"


@pytest.mark.parametrize(
    ("variable", "value"), [("DATABASE_URL", "nonsense"), ("LOG_LEVEL", "LOUD")]
)
def test_a_bad_url_or_log_level_fails_with_a_message_naming_the_variable(tmp_path, variable, value):
    result = _run(["manage.py", "check"], _env(tmp_path, **{variable: value}))
    assert result.returncode != 0
    error = _error_line(result)
    assert error.startswith("django.core.exceptions.ImproperlyConfigured:")
    assert variable in error


def test_a_whole_number_setting_is_read_from_the_environment(tmp_path):
    assert _settings(_env(tmp_path, BUILTIT_MAX_FILES=" 42 "))["MAX_FILES"] == 42


def test_a_fresh_data_dir_gets_a_persistent_secret_key_reused_on_the_next_start(tmp_path):
    data_dir = tmp_path / "fresh" / "data"
    first = _settings(_env(data_dir))["SECRET_KEY"]
    key_file = data_dir / "secret_key"
    assert key_file.read_text().strip() == first
    assert len(first) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert _settings(_env(data_dir))["SECRET_KEY"] == first
    assert _settings(_env(tmp_path / "other"))["SECRET_KEY"] != first


def test_a_secret_key_from_the_environment_wins_and_writes_no_file(tmp_path):
    shown = _settings(_env(tmp_path, SECRET_KEY="from-the-environment-" * 3))
    assert shown["SECRET_KEY"] == "from-the-environment-" * 3
    assert not (tmp_path / "secret_key").exists()


def test_models_and_migrations_agree(tmp_path):
    result = _run(["manage.py", "makemigrations", "--check", "--dry-run"], _env(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No changes detected" in result.stdout


def test_sign_up_is_closed_in_production_unless_turned_on(tmp_path):
    assert _settings(_production_env(tmp_path))["ALLOW_SIGNUP"] is False
    opened = _production_env(tmp_path, BUILTIT_ALLOW_SIGNUP="1")
    assert _settings(opened)["ALLOW_SIGNUP"] is True
    assert _settings(_env(tmp_path, DEBUG="1"))["ALLOW_SIGNUP"] is True
