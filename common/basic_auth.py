"""HTTP Basic credentials, read one way wherever they are read (the Git
endpoint, and the body limits that let a signed-in push send more)."""

from __future__ import annotations

import base64
import binascii

_MAX_HEADER = 1000


def basic_credentials(header: str) -> tuple[str, str] | None:
    """(name, password) from an `Authorization: Basic …` value; None for any
    other scheme, a malformed value or an empty password."""
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic" or len(encoded) > _MAX_HEADER:
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    name, colon, secret = decoded.partition(":")
    return (name, secret) if colon and secret else None
