"""Configuration that would send the app's cookies to the sites origin
(projects.web.sites), or that no domain could be proven with
(projects.publish.dns_records), reported at start-up."""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning, register

from common.sites import origin_domain
from projects.publish.dns_records import ServersError, servers_parsed


@register()
def check_sites_origin(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    configured: str | None = settings.BUILTIT_SITES_ORIGIN
    sites = origin_domain(configured) if configured is not None else None
    for name in ("SESSION_COOKIE_DOMAIN", "CSRF_COOKIE_DOMAIN", "LANGUAGE_COOKIE_DOMAIN"):
        domain = getattr(settings, name, None)
        if domain and _reaches(str(domain), sites):
            messages.append(
                Error(
                    f"{name} is {domain!r}: the browser would send the app's cookies to "
                    "the sites origin, where people's pages run.",
                    hint="Leave it unset (cookies for the app's host only), or choose a "
                    "BUILTIT_SITES_ORIGIN outside that domain.",
                    id="projects.E001",
                )
            )
    if configured is None:
        messages += [_no_name(host) for host in settings.ALLOWED_HOSTS if _is_address(host)]
    return messages


@register()
def check_dns_servers(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    try:
        servers_parsed(settings.BUILTIT_DNS_SERVERS)
    except ServersError as error:
        return [
            Error(
                f"BUILTIT_DNS_SERVERS is wrong: {error} No site's own domain could be proven.",
                hint="Comma-separated resolver addresses, each `host` or `host:port` (like "
                "9.9.9.9,149.112.112.112 or 127.0.0.1:5353); empty for the system's.",
                id="projects.E002",
            )
        ]
    return []


def _is_address(host: str) -> bool:
    """An IP address other than this machine's: "sites." before it names nothing."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return not address.is_loopback


def _no_name(host: str) -> Warning:
    return Warning(
        f"People may reach the app at {host}, an address with no name: previews there "
        f"would be sent to sites.{host}, which no browser can open.",
        hint="Set BUILTIT_SITES_ORIGIN to an origin with a name of its own.",
        id="projects.W001",
    )


def _reaches(cookie_domain: str, sites: str | None) -> bool:
    """Whether a cookie for `cookie_domain` is sent to the sites host."""
    domain = cookie_domain.lower().lstrip(".")
    if sites is None:  # "sites." before each of the app's names
        return True
    return sites == domain or sites.endswith("." + domain)
