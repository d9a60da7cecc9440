"""A visitor's address as a bound counts it: one IPv4 address, or an IPv6 /64.

One IPv6 customer usually holds a whole /64: counted per address, each could
make a bound's worth of tries (sign-ups, password guesses, sockets) from every
one of its 2^64 addresses. The address itself is the one the edge decided
(builtit.server.client_address), never one read from a header here.
"""

from __future__ import annotations

import ipaddress

IPV6_NETWORK = 64


def address_counted_as(address: str | None) -> str | None:
    """Where `address` is counted: the IPv4 address (an IPv4-mapped IPv6 one
    too), or the /64 of an IPv6 one; None when it is no address."""
    try:
        parsed = ipaddress.ip_address(address or "")
    except ValueError:
        return None
    if isinstance(parsed, ipaddress.IPv4Address):
        return str(parsed)
    if parsed.ipv4_mapped is not None:  # ::ffff:203.0.113.7, an IPv4 visitor
        return str(parsed.ipv4_mapped)
    return str(ipaddress.IPv6Network((int(parsed), IPV6_NETWORK), strict=False).network_address)
