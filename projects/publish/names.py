"""A site's name: its address on the sites origin (`/<name>/`), and perhaps one
day its subdomain, so it follows DNS's rules for a label: lower-case letters,
digits and hyphens, 3 to 63 of them, starting and ending with a letter or digit."""

from __future__ import annotations

import re
import unicodedata

MIN_LENGTH = 3
MAX_LENGTH = 63
NAME_PATTERN = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
_NAME = re.compile(NAME_PATTERN)
# What the sites origin serves besides sites, and names that would pass for
# the operator's own pages.
RESERVED = frozenset(
    {
        "preview",
        "static",
        "media",
        "admin",
        "api",
        "www",
        "sites",
        "site",
        "app",
        "accounts",
        "login",
        "logout",
        "signup",
        "settings",
        "healthz",
        "favicon-ico",
        "robots-txt",
        "well-known",
        "builtit",
        "built-it",
        "help",
        "support",
        "status",
    }
)


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a site's name, in words; None if it can (whether
    another site has it is the service's to say)."""
    if len(name) < MIN_LENGTH:
        return f"A site's name needs at least {MIN_LENGTH} characters."
    if len(name) > MAX_LENGTH:
        return f"A site's name has at most {MAX_LENGTH} characters."
    if not _NAME.fullmatch(name):
        return (
            "A site's name may hold lower-case letters, digits and hyphens, and starts "
            "and ends with a letter or digit (like my-bakery)."
        )
    if "--" in name:
        return "A site's name may not hold two hyphens in a row."
    if name in RESERVED:
        return f"“{name}” is kept for the server itself: choose another name."
    return None


def name_suggested(text: str) -> str:
    """A name made from a project's name ("Café Lisboa!" → "cafe-lisboa")."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    name = re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9]+", "-", plain)).strip("-")[:MAX_LENGTH]
    name = name.rstrip("-")
    if not name:
        return "my-site"
    if len(name) < MIN_LENGTH or name in RESERVED:
        name = name + "-site"
    return name


_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
# Where a site's own domain holds the record that proves it is the owner's
# (projects.publish.domain_proof): a name too, of at most 253 characters.
RECORD_PREFIX = "_builtit."
MAX_DOMAIN = 253 - len(RECORD_PREFIX)


def domain_parsed(raw: str) -> str:
    """What a person typed for a domain, as a host name: lower case, without a
    scheme, a path or the final dot ("https://Shop.Example.com/" → "shop.example.com")."""
    text = raw.strip().lower()
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text)
    return text.split("/", 1)[0].rstrip(".")


def domain_problem(domain: str) -> str | None:
    """Why `domain` (as domain_parsed made it) cannot be a site's own domain, in
    words; None if it can. Whether it is the app's, the sites origin's or another
    site's is the service's to say."""
    if len(domain) > MAX_DOMAIN:
        return f"A domain has at most {MAX_DOMAIN} characters."
    labels = domain.split(".")
    if len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels):
        return (
            "That is not a domain: write one like shop.example.com (letters, digits and "
            "hyphens, in parts joined by dots; no address, port or path)."
        )
    if labels[-1].isdigit():
        return "Write a domain name, not an IP address."
    return None
