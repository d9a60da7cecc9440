"""Visual edits from the preview (static/builtit/visual/): one change written as
the person's revision, what the edit panel offers, and taking an edit back.
JSON in, JSON out; the project's other tabs are told, as after a save."""

from __future__ import annotations

import uuid
from dataclasses import asdict

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET, require_POST

from common.jsontypes import NOT_JSON, as_int, as_list, decoded
from common.users import current_user
from projects.access import project_for
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.files.visual import VisualRefused
from projects.history.undo import UndoRefused, changes_undo
from projects.models import FileRevision, Project, Reversal
from projects.preview_edits import PreviewEdited, preview_edit
from projects.web.responses import announce
from projects.web.visual_edits import edit_from_json, panel_choices

_STATUS = {ErrorCode.CONFLICT: 409, ErrorCode.BUSY: 423, ErrorCode.NOT_FOUND: 404}
_UNDO_MOST = 4  # revisions one visual edit writes at most


@require_POST
def preview_edit_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "edit")
    raw = decoded(request.body or b"null")
    edit = edit_from_json(None if raw is NOT_JSON else raw)
    if isinstance(edit, VisualRefused):
        return _refused(edit.message, "invalid", 400)
    result = preview_edit(project=project, user=current_user(request), edit=edit)
    if isinstance(result, VisualRefused):
        return _refused(result.message, "refused", 422, ask=result.ask)
    if isinstance(result, FileError):
        return _refused(result.for_people, result.code, _STATUS.get(result.code, 422))
    return _done(request, project, result)


def _done(request: HttpRequest, project: Project, result: PreviewEdited) -> JsonResponse:
    for written in result.writes:
        announce(request, project, written)
    return JsonResponse(
        {
            "ok": True,
            "note": result.note,
            "source": result.source,
            "paths": [written.path for written in result.writes],
            "revisions": [written.revision_id for written in result.writes],
            # What was written to the page, for the preview to do the same in place.
            "in_place": asdict(result.in_place) if result.in_place is not None else None,
        }
    )


def _refused(message: str, code: str, status: int, *, ask: str = "") -> JsonResponse:
    return JsonResponse({"ok": False, "error": message, "code": code, "ask": ask}, status=status)


@require_GET
def preview_edit_choices(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "edit")
    return JsonResponse(panel_choices(project, request.GET.get("page", "")))


@require_POST
def preview_edit_undo(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Take back one visual edit (its revisions, as its answer named them)."""
    project = project_for(request, project_id, "edit")
    raw = decoded(request.body or b"null")
    ids = [as_int(each) for each in as_list(raw if isinstance(raw, list) else [])][:_UNDO_MOST]
    revisions = list(
        FileRevision.objects.filter(
            project=project, pk__in=[i for i in ids if i is not None], user=current_user(request)
        ).exclude(note="")
    )
    if not revisions:
        return _refused("There is no edit of yours to take back.", "not_found", 404)
    note = revisions[0].note.removeprefix("Edited in the preview: ")
    result = changes_undo(
        project=project,
        revisions=revisions,
        user=current_user(request),
        kind=Reversal.Kind.UNDO,
        summary=f"Undid an edit made in the preview ({note}).",
    )
    if isinstance(result, UndoRefused):
        return _refused(result.message, "refused", 409)
    paths = sorted({revision.path for revision in revisions})
    for revision in result.revisions.all():
        announce(request, project, _write_of(revision))
    return JsonResponse({"ok": True, "paths": paths})


def _write_of(revision: FileRevision) -> FileWrite:
    return FileWrite(revision.path, revision.action, revision.version_after, 0, revision.pk)
