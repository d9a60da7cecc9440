"""The seal on an address of the project as it was (projects.views.preview_past).

The preview's token is made to be shared, and a shared link must show the site
as it is, never its history (a file the owner deleted, a secret written once
and taken out). So each address of a past state carries a seal, signed with
the server's secret for that project, that kind of point and that number,
which the workspace makes when the person asks to see it and which lapses: a
holder of the token alone cannot walk back through the revisions.
"""

from __future__ import annotations

import re
import uuid

from django.core import signing

SEAL_HOURS = 6  # long enough to compare states at leisure, then asked for again
SEAL_PATTERN = r"[0-9A-Za-z]{1,16}\.[0-9A-Za-z_-]{20,100}"
_SEAL = re.compile(SEAL_PATTERN)
_SIGNER = signing.TimestampSigner(salt="builtit.preview-past")


def past_seal(*, project_id: uuid.UUID, kind: str, number: int) -> str:
    """The seal for `kind` ("point" or "file") `number` of the project."""
    signed = _SIGNER.sign(_value(project_id, kind, number))
    stamp, signature = signed.rsplit(":", 2)[1:]
    return f"{stamp}.{signature}"


def past_seal_valid(*, project_id: uuid.UUID, kind: str, number: int, seal: str) -> bool:
    if not _SEAL.fullmatch(seal):
        return False
    stamp, signature = seal.split(".", 1)
    signed = f"{_value(project_id, kind, number)}:{stamp}:{signature}"
    try:
        _SIGNER.unsign(signed, max_age=SEAL_HOURS * 3600)
    except signing.BadSignature:  # SignatureExpired is one too
        return False
    return True


def _value(project_id: uuid.UUID, kind: str, number: int) -> str:
    return f"{project_id.hex}:{kind}:{number}"
