"""The sites origin's names: an origin parsed strictly, the sites host derived from the app's."""

from __future__ import annotations

import pytest

from common.sites import (
    OriginError,
    is_sites_domain,
    origin_domain,
    origin_parsed,
    sites_allowed_hosts,
    sites_domain_for,
)


@pytest.mark.parametrize(
    ("raw", "origin"),
    [
        ("https://sites.example.com", "https://sites.example.com"),
        (" HTTPS://Sites.Example.COM./ ", "https://sites.example.com"),
        ("http://sites.localhost:8000", "http://sites.localhost:8000"),
        ("http://[::1]:8001", "http://[::1]:8001"),
    ],
)
def test_an_origin_is_scheme_host_and_port_in_lower_case(raw: str, origin: str) -> None:
    assert origin_parsed(raw) == origin


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("", "must start with http:// or https://"),
        ("sites.example.com", "must start with http:// or https://"),
        ("ftp://sites.example.com", "must start with http:// or https://"),
        ("https://user:secret@sites.example.com", "may not hold a user name or password"),
        ("https://sites.example.com/path", "must be an origin only"),
        ("https://sites.example.com?q=1", "must be an origin only"),
        ("https://sites.example.com:99999", "is not an address"),
    ],
)
def test_anything_but_an_origin_is_refused_saying_why(raw: str, said: str) -> None:
    with pytest.raises(OriginError, match=said):
        origin_parsed(raw)


def test_an_origins_domain_is_its_host_without_the_port() -> None:
    assert origin_domain("https://sites.example.com") == "sites.example.com"
    assert origin_domain("http://sites.localhost:8000") == "sites.localhost"
    assert origin_domain("http://[::1]:8001") == "[::1]"
    assert origin_domain("http://[::1]") == "[::1]"


def test_the_sites_host_is_sites_before_the_apps_name() -> None:
    assert sites_domain_for("Example.com.") == "sites.example.com"
    for loopback in ("127.0.0.1", "localhost", "[::1]"):
        assert sites_domain_for(loopback) == "sites.localhost"


def test_the_sites_hosts_are_allowed_beside_the_apps() -> None:
    hosts = ["example.com", "127.0.0.1", "localhost", "", "*", ".example.org"]
    assert sites_allowed_hosts(hosts, None) == ["sites.example.com", "sites.localhost"]
    assert sites_allowed_hosts(["example.com", "sites.example.com"], None) == [
        "sites.sites.example.com"
    ], "a host already allowed is not named twice"
    assert sites_allowed_hosts(hosts, "https://content.example.net:8443") == ["content.example.net"]


def test_the_sites_host_is_recognised() -> None:
    assert is_sites_domain("sites.example.com", None)
    assert not is_sites_domain("example.com", None)
    configured = "https://content.example.net"
    assert is_sites_domain("content.example.net", configured)
    assert not is_sites_domain("sites.example.com", configured)
