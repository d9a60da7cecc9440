"""The sites origin's names, as a rule with no Django in it: the settings read it
(BUILTIT_SITES_ORIGIN, and the hosts the server answers) and so does the app
(projects.web.sites), which applies it to a request.

Project content (previews, published sites) is served from an origin that is
not the app's, on a host of its own: browsers send a host's cookies to every
port of it, so a port alone would not keep the app's cookies from a project's
page. Unless BUILTIT_SITES_ORIGIN names one, the sites host is "sites." before
the name the app is reached by, and `sites.localhost` for this machine's own
names (browsers resolve every `*.localhost` name to this machine, RFC 6761).
"""

from __future__ import annotations

from urllib.parse import urlsplit

PREFIX = "sites."
LOOPBACK = frozenset({"127.0.0.1", "localhost", "[::1]"})
LOCAL_SITES = PREFIX + "localhost"


class OriginError(ValueError):
    """A sites origin that is not `scheme://host[:port]`."""


def origin_parsed(raw: str) -> str:
    """`raw` as an origin, `http(s)://host[:port]` in lower case, or OriginError
    saying what is wrong with it."""
    text = raw.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise OriginError(f"{raw!r} is not an address.") from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise OriginError(f"{raw!r} must start with http:// or https:// and name a host.")
    if parts.username is not None or parts.password is not None:
        raise OriginError(f"{raw!r} may not hold a user name or password.")
    if parts.path not in {"", "/"} or parts.query or parts.fragment:
        raise OriginError(f"{raw!r} must be an origin only, with no path, query or fragment.")
    host = parts.hostname.lower().rstrip(".")  # a request's host never has the dot
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def origin_domain(origin: str) -> str:
    """The host name of an origin `origin_parsed` made (without its port)."""
    host = origin.split("://", 1)[1]
    return host if host.startswith("[") and host.endswith("]") else host.rsplit(":", 1)[0]


def sites_domain_for(app_domain: str) -> str:
    """Where content of the app reached at `app_domain` is served, unless an
    origin is set: `sites.localhost` for this machine, else `sites.<domain>`."""
    domain = app_domain.lower().rstrip(".")
    return LOCAL_SITES if domain in LOOPBACK else PREFIX + domain


def sites_allowed_hosts(app_hosts: list[str], configured: str | None) -> list[str]:
    """The host names the sites origin answers on, for ALLOWED_HOSTS."""
    if configured is not None:
        return [origin_domain(configured)]
    # A wildcard ("*", ".example.com") already lets the sites host in.
    named = [host for host in app_hosts if host and not host.startswith((".", "*"))]
    return sorted({sites_domain_for(host) for host in named} - set(app_hosts))


def is_sites_domain(domain: str, configured: str | None) -> bool:
    """Whether `domain` is the sites host (for a configured origin, its host;
    else any name "sites." starts)."""
    if configured is not None:
        return domain == origin_domain(configured)
    return domain.startswith(PREFIX)
