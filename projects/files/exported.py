"""A file as it leaves the project whole: its bytes (a binary file's from its
blob) and its entry in a ZIP. The project's export (projects.archive) and a
published version's (projects.publish.services) write the same archives."""

from __future__ import annotations

import zipfile
from datetime import datetime

from django.utils import timezone

from projects.files.binaries import blob_bytes, blob_for_marker, is_marker
from projects.models import Project


def file_bytes(project: Project, content: str) -> bytes:
    """The bytes of a file whose stored content is `content` (empty if a binary
    file's bytes are gone)."""
    if is_marker(content):
        blob = blob_for_marker(project, content)
        return blob_bytes(blob) if blob is not None else b""
    return content.encode("utf-8", "surrogatepass")


def zip_entry(path: str, moment: datetime) -> zipfile.ZipInfo:
    """The archive entry for the file at `path`, dated `moment` (local time),
    compressed, readable by all once unpacked."""
    info = zipfile.ZipInfo(path.lstrip("/"), date_time=timezone.localtime(moment).timetuple()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info
