"""A visitor's address as a bound counts it: one IPv4 address, or an IPv6 /64."""

from __future__ import annotations

import pytest

from common.addresses import address_counted_as


def test_an_ipv4_address_counts_as_itself() -> None:
    assert address_counted_as("203.0.113.7") == "203.0.113.7"


def test_an_ipv4_visitor_over_ipv6_counts_as_the_ipv4_address() -> None:
    assert address_counted_as("::ffff:203.0.113.7") == "203.0.113.7"


def test_every_address_of_an_ipv6_64_counts_as_one() -> None:
    first = address_counted_as("2001:db8:1:2:3:4:5:6")
    assert first == "2001:db8:1:2::"
    assert address_counted_as("2001:DB8:1:2:ffff:ffff:ffff:ffff") == first
    assert address_counted_as("2001:db8:1:3::1") != first


@pytest.mark.parametrize(
    "junk", [None, "", "localhost", "203.0.113", "1.2.3.4.5", "::g", " 1.2.3.4"]
)
def test_what_is_no_address_is_counted_nowhere(junk: str | None) -> None:
    assert address_counted_as(junk) is None
