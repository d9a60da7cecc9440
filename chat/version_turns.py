"""The requests of the turns whose file changes a published version holds, for
the Publish dialog's list of versions (projects.publish.notes, which does not
know chat: chat registers `turn_requests` with it when the app is ready).

A turn's changes are the revisions its assistant messages made; its request is
the person's message that began it (chat.selectors: a turn runs from a
person's message to their next one)."""

from __future__ import annotations

import uuid
from bisect import bisect_left
from datetime import datetime

from django.db.models.functions import Substr

from chat.models import Message
from projects.models import FileRevision
from projects.publish.notes import TurnRequest

# Revisions read at most between two versions: a rebuilt site is a few hundred.
MAX_REVISIONS = 10_000
_REQUEST_START = 300  # characters of a request read: a note shows its first line


def turn_requests(
    project_id: uuid.UUID, after: datetime | None, until: datetime
) -> list[TurnRequest]:
    """The requests of the turns that changed the project's files after `after`
    (None: from the start) up to `until`, each with when it last did."""
    revisions = FileRevision.objects.filter(
        project_id=project_id, message__isnull=False, created_at__lte=until
    )
    if after is not None:
        revisions = revisions.filter(created_at__gt=after)
    rows = revisions.order_by("-created_at").values_list(
        "message__conversation_id", "message__sequence", "created_at"
    )[:MAX_REVISIONS]
    changed: dict[tuple[int, int], datetime] = {}
    for conversation_id, sequence, at in rows:
        key = (conversation_id, sequence)
        changed[key] = max(at, changed.get(key, at))
    latest = _requests_of(changed)
    texts = dict(
        Message.objects.filter(pk__in=latest)
        .annotate(start=Substr("content", 1, _REQUEST_START))
        .values_list("pk", "start")
    )
    return [TurnRequest(texts[pk], at) for pk, at in latest.items() if pk in texts]


def _requests_of(changed: dict[tuple[int, int], datetime]) -> dict[int, datetime]:
    """For each (conversation, sequence) of an assistant message, the person's
    message that began its turn: when the turn last changed a file, by request."""
    conversations = {conversation for conversation, _ in changed}
    people: dict[int, list[tuple[int, int]]] = {}
    rows = (
        Message.objects.filter(conversation_id__in=conversations, role=Message.Role.USER)
        .order_by("conversation_id", "sequence")
        .values_list("conversation_id", "sequence", "pk")
    )
    for conversation_id, sequence, pk in rows:
        people.setdefault(conversation_id, []).append((sequence, pk))
    latest: dict[int, datetime] = {}
    for (conversation_id, sequence), at in changed.items():
        asked = people.get(conversation_id, [])
        index = bisect_left(asked, (sequence,)) - 1
        if index < 0:
            continue
        request = asked[index][1]
        latest[request] = max(at, latest.get(request, at))
    return latest
