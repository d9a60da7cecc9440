"""Which Git hosts a project may talk to: HTTPS on public addresses only, so a
remote cannot be made to reach the server's own network (its database, its
cloud's metadata service). BUILTIT_GIT_PRIVATE_REMOTES allows plain HTTP and
private addresses, for a Git server on your own network (and tests).

Every address the name resolves to must be public; the name is resolved again
as the connection is made, so this narrows rather than closes the window of a
name that changes its answer in between (a proxy in front is the full answer
for such deployments)."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

MAX_URL = 500


def remote_url_problem(url: str) -> str | None:
    """Why Built-It will not reach `url`; None when it may."""
    if len(url) > MAX_URL:
        return f"A Git address has at most {MAX_URL} characters."
    parts = urlsplit(url)
    private_ok = bool(settings.BUILTIT_GIT_PRIVATE_REMOTES)
    problem = _form_problem(parts, private_ok)
    if problem or private_ok:
        return problem
    return _address_problem(parts)


def _form_problem(parts: SplitResult, private_ok: bool) -> str | None:
    schemes = ("https", "http") if private_ok else ("https",)
    if parts.scheme not in schemes or not parts.hostname:
        return "Give the repository's HTTPS address, e.g. https://github.com/you/site.git."
    if parts.username or parts.password:
        return "Give the token in its own field, not in the address."
    if parts.query or parts.fragment:
        return "A Git address has no ? or # part."
    return None


def _address_problem(parts: SplitResult) -> str | None:
    host = parts.hostname or ""
    try:
        found = socket.getaddrinfo(host, parts.port or 443, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError, ValueError):
        return f"{host} could not be found."
    for *_, address in found:
        if not ipaddress.ip_address(str(address[0])).is_global:
            return f"{host} is not a public address."
    return None
