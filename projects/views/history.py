"""Workspace endpoints for a file's history: list, view a version, restore."""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from builtit.users import current_user
from projects.history import file_history, file_restore, revision_state
from projects.results import ErrorCode, FileError
from projects.selectors import owned_project
from projects.services import Author
from projects.views.files import changed_response, error_response


@require_GET
def history(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = owned_project(request, project_id)
    path = request.GET.get("path", "")
    revisions = file_history(project, path)
    if isinstance(revisions, FileError):
        return error_response(request, revisions, target="#history-body")
    context = {"project": project, "path": path, "revisions": revisions}
    return render(request, "projects/partials/history.html", context)


@require_GET
def revision(request: HttpRequest, project_id: uuid.UUID, revision_id: int) -> HttpResponse:
    project = owned_project(request, project_id)
    state = revision_state(project, revision_id)
    if isinstance(state, FileError):
        return error_response(request, state, target="#history-view")
    return render(request, "projects/partials/revision.html", {"project": project, "state": state})


@require_POST
def restore(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = owned_project(request, project_id)
    try:
        revision_id = int(request.POST.get("revision", ""))
    except ValueError:
        revision_id = 0
    result = file_restore(
        project=project, revision_id=revision_id, author=Author.person(current_user(request))
    )
    if isinstance(result, FileError) and result.code != ErrorCode.NO_CHANGE:
        return error_response(request, result, target="#editor-status")
    path = result.path if result.path else None
    return changed_response(request, project, path)
