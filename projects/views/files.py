"""The workspace's file endpoints (htmx): open, save, new, rename, delete, and a
new preview link.

Each calls the file service and renders a partial; the file tree is
re-rendered out of band after every change, and an HX-Trigger tells the page
to reload the preview.
"""

from __future__ import annotations

import re
import uuid

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from common.users import current_user
from projects.access import project_for
from projects.files.paths import extension_of
from projects.files.results import ErrorCode, FileContent, FileError, FileWrite
from projects.lifecycle import project_rotate_preview_token
from projects.models import Project
from projects.selectors import file_read
from projects.services import (
    Author,
    file_create,
    file_delete,
    file_rename,
    file_update,
    file_upload,
)
from projects.web.responses import announce, changed_response, error_response
from projects.web.workspace import editor_context, tree_html

_NEW_FILE_CONTENT = {
    "html": (
        '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n'
        '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "  <title></title>\n</head>\n<body>\n\n</body>\n</html>\n"
    ),
}


@require_GET
def file_open(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "view")
    opened = file_read(project, request.GET.get("path", ""))
    if isinstance(opened, FileError):
        # Said beside the open editor, whose text is another file's: nothing to save.
        return error_response(request, opened, target="#editor-status", offer_save=False)
    return _editor(request, project, opened)


@require_POST
def file_save(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "edit")
    version = _int_or_none(request.POST.get("version"))
    result = file_update(
        project=project,
        path=request.POST.get("path", ""),
        content=request.POST.get("content", ""),
        author=Author.person(current_user(request)),
        expected_version=version,
    )
    if isinstance(result, FileError):
        if result.code == ErrorCode.NO_CHANGE:
            return HttpResponse('<span class="status ok">No changes to save.</span>')
        return error_response(request, result, target="#editor-status")
    return _saved(request, project, result)


@require_POST
def file_new(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "edit")
    path = request.POST.get("path", "").strip()
    content = request.POST.get("content")
    if content is None:
        content = _NEW_FILE_CONTENT.get(extension_of(path), "") if "." in path else ""
    result = file_create(
        project=project,
        path=path,
        content=content,
        author=Author.person(current_user(request)),
    )
    if isinstance(result, FileError):
        return error_response(request, result, target="#new-file-error")
    return changed_response(request, project, result.path, written=result)


@require_POST
def file_upload_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """One binary file (an image, a font…) into `folder`, or replacing `path`."""
    project = project_for(request, project_id, "edit")
    upload = request.FILES.get("file")
    if upload is None:
        return HttpResponse("Choose a file to upload.", status=400)
    path = request.POST.get("path") or _upload_path(request.POST.get("folder", ""), upload.name)
    result = file_upload(
        project=project,
        path=path,
        data=upload.read(settings.BUILTIT_MAX_BINARY_BYTES + 1),
        author=Author.person(current_user(request)),
    )
    if isinstance(result, FileError):
        return error_response(request, result, target="#new-file-error")
    return changed_response(request, project, result.path, written=result)


def _upload_path(folder: str, name: str | None) -> str:
    """Where an uploaded file goes: its name made a valid path segment (spaces and
    other characters paths may not have become '-'), in `folder`."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", (name or "upload").rsplit("/", 1)[-1]).strip("-.")
    return f"{folder.strip('/')}/{cleaned}".lstrip("/") if folder.strip("/") else cleaned


@require_POST
def file_rename_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "edit")
    result = file_rename(
        project=project,
        path=request.POST.get("path", ""),
        new_path=request.POST.get("new_path", "").strip(),
        author=Author.person(current_user(request)),
        expected_version=_int_or_none(request.POST.get("version")),
    )
    if isinstance(result, FileError):
        return error_response(request, result, target="#editor-status")
    return changed_response(request, project, result.path, written=result)


@require_POST
def file_delete_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "edit")
    result = file_delete(
        project=project,
        path=request.POST.get("path", ""),
        author=Author.person(current_user(request)),
        expected_version=_int_or_none(request.POST.get("version")),
    )
    if isinstance(result, FileError):
        return error_response(request, result, target="#editor-status")
    return changed_response(request, project, None, written=result)


@require_POST
def preview_token_rotate(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "settings")
    project_rotate_preview_token(project=project)
    return render(request, "projects/partials/preview.html", {"project": project})


# --- responses -----------------------------------------------------------------


def _editor(request: HttpRequest, project: Project, opened: FileContent) -> HttpResponse:
    context = {"project": project, **editor_context(opened)}
    return render(request, "projects/partials/editor.html", context)


def _saved(request: HttpRequest, project: Project, result: FileWrite) -> HttpResponse:
    body = render_to_string(
        "projects/partials/saved.html", {"result": result, "project": project}, request=request
    )
    announce(request, project, result)
    response = HttpResponse(body + tree_html(project))
    return trigger_client_event(response, "filesChanged", {"paths": [result.path]})


def _int_or_none(raw: str | None) -> int | None:
    try:
        return int(raw) if raw not in (None, "") else None
    except ValueError:
        return None
