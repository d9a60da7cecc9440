"""Workspace endpoints for a file's history: list, view a version, preview the
site with it, restore."""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from common.users import current_user
from projects.access import project_for
from projects.files.binaries import is_marker
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.history.past import past_version
from projects.history.revisions import file_history, file_restore, revision_diff, revision_state
from projects.services import Author
from projects.web.diff_html import file_diff, layout_of
from projects.web.responses import changed_response, error_response
from projects.web.sites import version_preview_url


@require_GET
def history(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "view")
    path = request.GET.get("path", "")
    revisions = file_history(project, path)
    if isinstance(revisions, FileError):
        return error_response(request, revisions, target="#history-body")
    context = {
        "project": project,
        "path": path,
        "revisions": revisions,
        "viewer": current_user(request).get_username(),
    }
    return render(request, "projects/partials/history.html", context)


@require_GET
def revision(request: HttpRequest, project_id: uuid.UUID, revision_id: int) -> HttpResponse:
    project = project_for(request, project_id, "view")
    state = revision_state(project, revision_id)
    if isinstance(state, FileError):
        return error_response(request, state, target="#history-view")
    context = {"project": project, "state": state, "binary": is_marker(state.content)}
    return render(request, "projects/partials/revision.html", context)


@require_GET
def revision_diff_view(
    request: HttpRequest, project_id: uuid.UUID, revision_id: int
) -> HttpResponse:
    """What a revision changed (`?against=previous`) or what changed since it
    (`?against=current`), as a diff in the History dialog."""
    project = project_for(request, project_id, "view")
    against = "current" if request.GET.get("against") == "current" else "previous"
    found = revision_diff(project, revision_id, against_current=against == "current")
    if isinstance(found, FileError):
        return error_response(request, found, target="#history-view")
    layout = layout_of(request.GET.get("layout"))
    context = {
        "title": found.title,
        "title_id": "history-diff-title",
        "diffs": [file_diff(found.before, found.after, path=found.path, layout=layout)],
        "layout": layout,
        "layout_url": f"{request.path}?against={against}",
        "layout_target": "#history-view",
    }
    return render(request, "projects/partials/diff.html", context)


@require_GET
def revision_preview(request: HttpRequest, project_id: uuid.UUID, revision_id: int) -> HttpResponse:
    """The History dialog's Preview: the site with this version of the file,
    in the preview pane, before anything is restored (projects.views.preview_past)."""
    project = project_for(request, project_id, "view")
    version = past_version(project_id=project.pk, revision_id=revision_id)
    if version is None:
        error = FileError(ErrorCode.NOT_FOUND, "That version does not exist in this project.")
        return error_response(request, error, target="#history-view")
    # A page opens on itself; a stylesheet, script or picture on the home page.
    page = version.path.lstrip("/") if version.path.endswith((".html", ".htm")) else ""
    src = version_preview_url(
        request, project.preview_token, project_id=project.pk, revision=revision_id, page=page
    )
    context = {"project": project, "version": version, "revision_id": revision_id, "src": src}
    return render(request, "projects/partials/past_version.html", context)


@require_POST
def restore(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "edit")
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
    written = result if isinstance(result, FileWrite) else None
    return changed_response(request, project, path, written=written)
