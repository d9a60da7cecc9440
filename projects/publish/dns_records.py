"""The TXT records at a name, asked of the resolvers BUILTIT_DNS_SERVERS names
(comma-separated `host` or `host:port`, IP addresses; empty: the system's),
with dnspython. A look-up is bounded: each server has TIMEOUT seconds to
answer and the whole look-up, every server and retry, LIFETIME. What goes
wrong is a value in words (LookupFailed), never an exception."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

import dns.exception
import dns.nameserver
import dns.rdtypes.ANY.TXT
import dns.resolver
from django.conf import settings

TIMEOUT = 2.0  # seconds one server has to answer
LIFETIME = 5.0  # seconds the whole look-up may take
MAX_VALUES = 50  # TXT values read from one answer


@dataclass(frozen=True)
class Records:
    """What the name holds: its TXT values (none: no record, or no such name)."""

    values: tuple[str, ...]


@dataclass(frozen=True)
class LookupFailed:
    said: str  # in words, for the person who asked


class ServersError(ValueError):
    """BUILTIT_DNS_SERVERS is not a list of resolvers' addresses."""


@dataclass(frozen=True)
class Server:
    address: str
    port: int = 53


def servers_parsed(raw: str) -> list[Server]:
    """BUILTIT_DNS_SERVERS as servers (empty: the system's), or ServersError in words."""
    return [_server_parsed(item.strip()) for item in raw.split(",") if item.strip()]


def _server_parsed(item: str) -> Server:
    host, port = item, 53
    if item.startswith("["):  # [IPv6]:port
        host, _, rest = item[1:].partition("]")
        if rest:
            port = _port(item, rest)
    elif item.count(":") == 1:  # IPv4:port (a bare IPv6 address has several)
        host, _, rest = item.partition(":")
        port = _port(item, ":" + rest)
    try:
        return Server(str(ipaddress.ip_address(host)), port)
    except ValueError:
        raise ServersError(
            f"{item!r} is not a resolver's IP address (like 9.9.9.9, 127.0.0.1:5353 or "
            "[2620:fe::fe]:53): name resolvers by address, not by name."
        ) from None


def _port(item: str, rest: str) -> int:
    digits = rest[1:] if rest.startswith(":") else ""
    if not digits.isdigit() or not 0 < int(digits) < 65536:
        raise ServersError(f"{item!r} has no valid port (1 to 65535) after its colon.")
    return int(digits)


def txt_records(name: str) -> Records | LookupFailed:
    """The TXT values at `name` (each record's strings joined, as SPF reads them)."""
    resolver = _resolver()
    if isinstance(resolver, LookupFailed):
        return resolver
    try:
        answer = resolver.resolve(name, "TXT", search=False, raise_on_no_answer=False)
    except dns.resolver.NXDOMAIN:
        return Records(())
    except dns.resolver.LifetimeTimeout:
        return LookupFailed(f"The DNS servers did not answer within {LIFETIME:g} seconds.")
    except dns.resolver.NoNameservers as error:
        return LookupFailed(f"No DNS server could answer for {name} ({_said_by(error)}).")
    except (dns.exception.DNSException, OSError) as error:
        return LookupFailed(f"The look-up of {name} failed: {error}")
    values = [
        b"".join(record.strings).decode("utf-8", "replace")
        for record in answer.rrset or ()
        if isinstance(record, dns.rdtypes.ANY.TXT.TXT)
    ]
    return Records(tuple(values[:MAX_VALUES]))


def _resolver() -> dns.resolver.Resolver | LookupFailed:
    try:
        servers = servers_parsed(settings.BUILTIT_DNS_SERVERS)
    except ServersError as error:
        return LookupFailed(f"BUILTIT_DNS_SERVERS is wrong: {error}")
    try:
        resolver = dns.resolver.Resolver(configure=not servers)
    except dns.resolver.NoResolverConfiguration:
        return LookupFailed("This server has no DNS resolver: set BUILTIT_DNS_SERVERS.")
    if servers:
        resolver.nameservers = [
            dns.nameserver.Do53Nameserver(server.address, server.port) for server in servers
        ]
    resolver.timeout = TIMEOUT
    resolver.lifetime = LIFETIME
    resolver.cache = None  # each check sees what the servers say now
    return resolver


def _said_by(error: dns.resolver.NoNameservers) -> str:
    """What each server answered: a code (SERVFAIL, REFUSED) or what failed."""
    errors = error.kwargs.get("errors") or []
    said = {str(entry[3]) for entry in errors if len(entry) > 3}
    return "; ".join(sorted(said)) or "no answer"
