"""History's texts, compressed and stored once per project (RevisionBlob), and
what a person's projects take in storage. Only the file service writes blobs,
inside its own transaction (with the project's writers serialised)."""

from __future__ import annotations

import hashlib
import zlib

from django.db.models import Sum

from projects.models import Project, ProjectFile, RevisionBlob


def blob_for(project: Project, text: str | None) -> RevisionBlob | None:
    """The blob holding `text` in this project's history (made if new); None for "no file"."""
    if text is None:
        return None
    raw = text.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(raw).hexdigest()
    found = RevisionBlob.objects.filter(project=project, digest=digest).first()
    if found is not None:
        return found
    data = zlib.compress(raw, 6)
    return RevisionBlob.objects.create(
        project=project,
        digest=digest,
        data=data,
        size=len(raw),
        chars=len(text),
        stored_size=len(data),
    )


def storage_used(owner_id: int) -> int:
    """Bytes a person's projects take: their files and their history, the trash too."""
    files = ProjectFile.objects.filter(project__owner_id=owner_id)
    blobs = RevisionBlob.objects.filter(project__owner_id=owner_id)
    in_files = files.aggregate(total=Sum("size"))["total"] or 0
    in_history = blobs.aggregate(total=Sum("stored_size"))["total"] or 0
    return int(in_files) + int(in_history)
