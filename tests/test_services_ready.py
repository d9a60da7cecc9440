"""`make test-services` runs the suite on PostgreSQL and Redis when they answer,
skips with the reason when they do not, and fails instead in CI
(BUILTIT_REQUIRE_SERVICES=1): tests.services_ready decides."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests import services_ready


@pytest.fixture
def listening() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = int(probe.getsockname()[1])
    probe.close()
    return port


def test_both_answering_runs(monkeypatch: pytest.MonkeyPatch, listening: int) -> None:
    monkeypatch.setenv("DATABASE_URL", f"postgres://x@127.0.0.1:{listening}/db")
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{listening}/0")
    assert services_ready.main() == 0


def test_a_missing_service_skips_with_the_reason_or_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch, listening: int, capsys: pytest.CaptureFixture[str]
) -> None:
    port = closed_port()
    monkeypatch.setenv("DATABASE_URL", f"postgres://x@127.0.0.1:{listening}/db")
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{port}/0")
    monkeypatch.delenv("BUILTIT_REQUIRE_SERVICES", raising=False)
    assert services_ready.main() == 3
    assert f"Skipped: Redis at 127.0.0.1:{port} is not reachable" in capsys.readouterr().err
    monkeypatch.setenv("BUILTIT_REQUIRE_SERVICES", "1")
    assert services_ready.main() == 1
    assert f"FAILED: Redis at 127.0.0.1:{port}" in capsys.readouterr().err
