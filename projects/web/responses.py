"""The workspace's answers to a change of files, shared by every view that
changes them (the file endpoints, history, and chat's "Add to project"): the
editor and tree redrawn, or an error in words where the page asked for it; and
the project's other tabs told."""

from __future__ import annotations

import re

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django_htmx.http import reswap, retarget, trigger_client_event

from common.users import current_user
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.models import Project
from projects.selectors import file_read
from projects.signals import files_changed
from projects.web.workspace import editor_context, tree_html

_STATUS_FOR = {
    ErrorCode.CONFLICT: 409,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.BUSY: 423,
}


# The page's name among the project's tabs (workspace/page.js), as it may be echoed back.
_TAB = re.compile(r"[a-z0-9]{1,40}")


def changed_response(
    request: HttpRequest, project: Project, open_path: str | None, *, written: FileWrite | None
) -> HttpResponse:
    """After a create, rename, delete or restore (`written`, if anything was):
    the editor shows `open_path` (or nothing), the tree is redrawn out of band,
    and the page is told which files changed, as are the project's other tabs."""
    if written is not None:
        announce(request, project, written)
    opened = file_read(project, open_path) if open_path else None
    context = {"project": project, **editor_context(opened)}
    body = render_to_string("projects/partials/editor.html", context, request=request)
    response = reswap(
        retarget(HttpResponse(body + tree_html(project)), "#editor-pane"), "innerHTML"
    )
    return trigger_client_event(
        response, "filesChanged", {"paths": [open_path] if open_path else []}
    )


def error_response(
    request: HttpRequest, error: FileError, *, target: str, offer_save: bool = True
) -> HttpResponse:
    """The error, in words, where `target` says; `offer_save`: a missing file comes
    with "Save my text as a new file" (the open editor's text is that file's)."""
    context = {"error": error, "offer_save": offer_save}
    body = render_to_string("projects/partials/file_error.html", context, request=request)
    response = HttpResponse(body, status=_STATUS_FOR.get(error.code, 422))
    return reswap(retarget(response, target), "innerHTML")


def announce(request: HttpRequest, project: Project, written: FileWrite) -> None:
    """The project's other open tabs follow a person's change (chat listens); the
    tab that made it is named, as it has followed already. Robust: a channel
    layer that is down costs the other tabs a live update, never the change."""
    paths = [path for path in (written.old_path, written.path) if path]
    raw = request.headers.get("X-Builtit-Tab", "")
    tab = raw if _TAB.fullmatch(raw) else ""
    user = current_user(request)
    transaction.on_commit(
        lambda: files_changed.send(Project, project=project, paths=paths, tab=tab, user=user),
        robust=True,
    )
