"""Our changes to daphne (builtit.server.patches) are in place in the
application as the guide serves it: daphne started by its production command
refuses a stranger's large body from its headers, logs the visitor's address
as the application reads it, and drains before it exits on SIGTERM. Each would
silently stop if builtit.asgi no longer installed it, or if daphne moved what
it replaces; the latter stops the process at its start instead."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from daphne import http_protocol
from django.core.exceptions import ImproperlyConfigured

from builtit.server import patches
from tests.builtit.server.test_body_limits import exchange, post_head
from tests.servers import ServerProcess, daphne_cli_start, database_url

VISITOR = "203.0.113.7"


@pytest.fixture
def served(tmp_path: Path, transactional_db: None) -> Iterator[tuple[ServerProcess, Path]]:
    access_log = tmp_path / "access.log"
    server = daphne_cli_start(
        [
            *("--proxy-headers", "--ping-interval", "50"),
            *("-b", "127.0.0.1", "-p", "0", "builtit.asgi:application"),
        ],
        {"BUILTIT_BEHIND_PROXY": "1", "DATABASE_URL": database_url()},
        stdout=access_log,
        stderr=tmp_path / "server.log",
    )
    try:
        yield server, access_log
    finally:
        server.stop()


def test_the_served_application_runs_on_our_daphne(served: tuple[ServerProcess, Path]) -> None:
    server, access_log = served
    refused = exchange(
        ("127.0.0.1", server.port), post_head("/projects/import/", length=20 * 2**20)
    )
    assert refused.startswith(b"HTTP/1.1 413"), "a stranger's body is bounded from its headers"

    forwarded = {"X-Forwarded-For": f"198.51.100.1, {VISITOR}"}
    assert httpx.get(f"{server.url}/healthz", headers=forwarded).status_code == 200

    assert server.terminate() == 0
    assert "Shut down: 0 turns finished, 0 stopped as interrupted" in server.logged()
    logged = access_log.read_text()
    assert VISITOR in logged
    assert "198.51.100.1" not in logged, "daphne's log shows the address the client wrote"


def test_a_daphne_without_what_we_replace_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(http_protocol, "WebRequest")
    with pytest.raises(
        ImproperlyConfigured, match=re.escape("has no daphne.http_protocol.WebRequest,")
    ):
        patches.install()
