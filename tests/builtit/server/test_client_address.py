"""The visitor's address is the one our proxy added, never one the client wrote:
behind the guide's nginx, X-Forwarded-For arrives as
"<whatever the client sent>, <the visitor's real address>", and daphne's
--proxy-headers took the left-most entry, so twelve wrong passwords, each with
a new made-up first entry, were never locked out. Here daphne is started with
the guide's production command line (docs/production.md), over real HTTP on 127.0.0.1."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings as SettingsWrapper

from builtit.server.client_address import ClientAddress, client_host
from tests.servers import ServerProcess, daphne_cli_start, database_url

PASSWORD = "correct horse battery"
VISITOR = "203.0.113.7"  # what nginx appends: the address it saw
WRONG_PASSWORDS = 12


@pytest.mark.parametrize(
    ("forwarded", "proxies", "expected"),
    [
        (["198.51.100.1, 203.0.113.7"], 1, "203.0.113.7"),
        (["198.51.100.1, 203.0.113.7"], 0, "10.0.0.2"),  # 0: the header is ignored
        (["198.51.100.1, 203.0.113.7, 10.0.0.9"], 2, "203.0.113.7"),  # a CDN, then nginx
        (["203.0.113.7"], 2, "203.0.113.7"),  # fewer entries than proxies
        (["198.51.100.1", "203.0.113.7"], 1, "203.0.113.7"),  # two header lines
        (["forged, , 203.0.113.7:4711"], 1, "203.0.113.7"),
        (["[2001:db8::7]:443"], 1, "2001:db8::7"),
        (["2001:DB8::7"], 1, "2001:db8::7"),
        (["fe80::7%eth0"], 1, "fe80::7"),
        (["198.51.100.1, not-an-address"], 1, "10.0.0.2"),
        ([], 1, "10.0.0.2"),  # straight to the server: its health check, say
        ([" , "], 1, "10.0.0.2"),
    ],
)
def test_the_visitor_is_the_entry_our_proxies_added(
    forwarded: list[str], proxies: int, expected: str
) -> None:
    assert client_host("10.0.0.2", forwarded, proxies) == expected


async def _client_seen(kind: str, headers: list[tuple[bytes, bytes]]) -> Any:
    """The `client` the application behind ClientAddress is given."""
    seen: dict[str, Any] = {}

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.update(scope)

    scope = {"type": kind, "path": "/", "headers": headers, "client": ["10.0.0.2", 51000]}
    await ClientAddress(inner)(scope, None, None)
    return seen["client"]


@pytest.mark.parametrize("kind", ["http", "websocket"])
async def test_pages_and_sockets_get_the_same_visitor(kind: str, settings: SettingsWrapper) -> None:
    settings.BUILTIT_TRUSTED_PROXIES = 1
    headers = [(b"host", b"localhost"), (b"x-forwarded-for", b"198.51.100.1, 203.0.113.7")]
    assert await _client_seen(kind, headers) == ["203.0.113.7", 0]
    assert await _client_seen(kind, headers[:1]) == ["10.0.0.2", 51000]
    settings.BUILTIT_TRUSTED_PROXIES = 0
    assert await _client_seen(kind, headers) == ["10.0.0.2", 51000]


# --- the guide's production command, behind a (simulated) nginx -------------------


@pytest.fixture
def production(
    request: pytest.FixtureRequest, tmp_path: Path, transactional_db: None
) -> Iterator[tuple[ServerProcess, Path]]:
    """daphne as the guide starts it (BUILTIT_BEHIND_PROXY=1, bound to
    127.0.0.1), with or without --proxy-headers, on the test database."""
    flags, env = request.param
    access_log = tmp_path / "access.log"
    server = daphne_cli_start(
        [*flags, "-b", "127.0.0.1", "-p", "0", "builtit.asgi:application"],
        {"BUILTIT_BEHIND_PROXY": "1", "DATABASE_URL": database_url(), **env},
        stdout=access_log,
    )
    try:
        yield server, access_log
    finally:
        server.stop()


Setup = tuple[list[str], dict[str, str]]  # daphne's flags, the environment
README: Setup = (["--proxy-headers"], {})
WITHOUT_FLAG: Setup = ([], {})
NO_PROXY_TRUSTED: Setup = (["--proxy-headers"], {"BUILTIT_TRUSTED_PROXIES": "0"})


def _sign_in(server: ServerProcess, password: str, forwarded: str) -> httpx.Response:
    """One sign-in as a browser makes it (the page, then the form with its
    CSRF token), through nginx: X-Forwarded-For as $proxy_add_x_forwarded_for
    writes it."""
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        browser.get("/accounts/login/", headers={"X-Forwarded-For": forwarded})
        return browser.post(
            "/accounts/login/",
            data={
                "username": "ada",
                "password": password,
                "csrfmiddlewaretoken": browser.cookies["csrftoken"],
            },
            headers={"X-Forwarded-For": forwarded},
        )


async def _guess(server: ServerProcess, right_most: str) -> list[int]:
    """Twelve wrong passwords, each with a new made-up first entry."""
    return [
        (
            await sync_to_async(_sign_in)(server, "wrong", f"198.51.100.{n}, {right_most}")
        ).status_code
        for n in range(1, WRONG_PASSWORDS + 1)
    ]


@pytest.mark.parametrize(
    "production", [README, WITHOUT_FLAG], indirect=True, ids=["readme", "no-flag"]
)
async def test_a_forged_first_entry_does_not_escape_the_lockout(
    production: tuple[ServerProcess, Path], user: User
) -> None:
    server, access_log = production
    statuses = await _guess(server, VISITOR)
    assert 429 in statuses, "the wrong passwords were never counted together"
    right = await sync_to_async(_sign_in)(server, PASSWORD, f"198.51.100.99, {VISITOR}")
    assert right.status_code == 429, "the right password is refused while locked out"
    assert "Too many failed sign-ins" in right.text
    # Counted per visitor, not per proxy: someone else behind the same nginx signs in.
    other = await sync_to_async(_sign_in)(server, PASSWORD, f"198.51.100.99, {VISITOR[:-1]}8")
    assert other.status_code == 302
    logged = access_log.read_text()
    assert "198.51.100." not in logged, "the access log shows a made-up address"


@pytest.mark.parametrize("production", [NO_PROXY_TRUSTED], indirect=True, ids=["zero"])
async def test_with_no_trusted_proxy_the_header_is_ignored(
    production: tuple[ServerProcess, Path], user: User
) -> None:
    server, access_log = production
    statuses = await _guess(server, VISITOR)
    assert 429 in statuses
    # Every entry is the client's to write: the connection's own address counts.
    elsewhere = await sync_to_async(_sign_in)(server, PASSWORD, "198.51.100.99, 192.0.2.1")
    assert elsewhere.status_code == 429
    assert re.search(r"^127\.0\.0\.1:\d+ ", access_log.read_text(), re.MULTILINE)
