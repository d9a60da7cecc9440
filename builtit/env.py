"""Reading settings from environment variables, with clear errors for bad values."""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, TypeVar

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from common.sites import OriginError, origin_parsed

N = TypeVar("N", int, float, Decimal)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_origin(name: str) -> str | None:
    """An origin (`https://host[:port]`), or None when unset or empty."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return origin_parsed(raw)
    except OriginError as error:
        raise ImproperlyConfigured(f"{name}: {error}") from None


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be 1 or 0 (true/false), not {raw!r}.")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    return _env_number(name, default, int, "a whole number", minimum)


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    return _env_number(name, default, float, "a number", minimum)


def env_decimal(name: str, default: str, *, minimum: str = "0") -> Decimal:
    """Money: exact, so caps compare with reported costs without float rounding."""
    return _env_number(name, Decimal(default), _parse_decimal, "a number", Decimal(minimum))


def _parse_decimal(raw: str) -> Decimal:
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ValueError(raw) from None
    if not value.is_finite():  # NaN would not even compare with the minimum
        raise ValueError(raw)
    return value


def _env_number(name: str, default: N, parse: Callable[[str], N], kind: str, minimum: N) -> N:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = parse(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {kind}, not {raw!r}.") from None
    # Written so that NaN fails too; infinity is no setting either.
    if not value >= minimum or value == float("inf"):
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {raw.strip()}.")
    return value


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


def env_database(name: str, default: str, *, conn_max_age: int) -> dict[str, Any]:
    url = env_str(name, "") or default
    try:
        config = dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=True)
    except ValueError as error:
        raise ImproperlyConfigured(
            f"{name} is not a database URL Built-It understands ({error}). "
            "Use e.g. postgres://user:password@host:5432/name or sqlite:////path/db.sqlite3."
        ) from None
    return dict(config)


def env_log_level(name: str, default: str) -> str:
    level = env_str(name, default).strip().upper()
    if level not in logging.getLevelNamesMapping():
        raise ImproperlyConfigured(
            f"{name} must be one of DEBUG, INFO, WARNING, ERROR or CRITICAL, not {level!r}."
        )
    return level


def persistent_secret_key(data_dir: Path) -> str:
    """A random key kept in the data directory, so a fresh install needs no setup.

    Several processes on one machine share the file; processes on several
    machines must be given the same SECRET_KEY instead.
    """
    key_file = data_dir / "secret_key"
    if key_file.exists():
        return key_file.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    # O_EXCL: two processes starting at once must not end up with two keys.
    try:
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return key_file.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    return key
