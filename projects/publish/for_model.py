"""The check of a whole site (projects.publish.site_check) as the assistant
reads it, after a turn that changed files or when it asks: plain JSON, short
enough for a tool result, the same findings in the same words a person reads
before publishing."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from common.jsontypes import JSONObject, JSONValue
from projects.publish.checking import CheckUnfinished, site_check_bounded
from projects.publish.findings import SiteCheck

LISTED = 20  # findings spelled out; the rest are in the counts


def site_check_for_model(
    files: Mapping[str, str | None],
    *,
    listed: int = LISTED,
    cancelled: threading.Event | None = None,
) -> JSONObject:
    """Check the project's `files` (path to text, None for a binary file) in
    a process of its own. It blocks, for at most twice CHECK_SECONDS (a free
    slot, then the check), or until `cancelled` is set: an async caller runs it
    in a thread."""
    return check_for_model(site_check_bounded(files, cancelled=cancelled), listed=listed)


def check_for_model(check: SiteCheck | CheckUnfinished, *, listed: int = LISTED) -> JSONObject:
    """{"finished": true, "counts": {kind: n}, "findings": [{kind, path, line,
    text}], "not_listed": n}, most important first; or {"finished": false,
    "message": why}."""
    if isinstance(check, CheckUnfinished):
        return {"finished": False, "message": check.message}
    findings: list[JSONValue] = [
        {"kind": f.kind, "path": f.path, "line": f.line, "text": f.text}
        for f in check.findings[:listed]
    ]
    counts: dict[str, JSONValue] = {kind: count for kind, count in check.counts.items()}
    return {
        "finished": True,
        "counts": counts,
        "findings": findings,
        "not_listed": sum(check.counts.values()) - len(findings),
    }
