"""A project's Git remote from the workspace (save it, push to it, pull from
it) and a new project from a Git URL on the dashboard; the work is
projects.git.remotes'."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from common.users import current_user
from projects.access import project_for
from projects.archive import skipped_shown
from projects.git.remotes import (
    PullDiverged,
    RemoteRefused,
    project_import_git,
    remote_delete,
    remote_pull,
    remote_push,
    remote_save,
)

_PULLED = {
    "up to date": "The project already has everything the remote's main has.",
    "pulled": "Pulled: the project's files are now those of the remote's main.",
    "replaced": "Replaced the project's files with the remote's. To take it back, restore "
    "the project to before it from a turn's history.",
}


def _back(project_id: uuid.UUID) -> HttpResponse:
    return redirect("workspace", project_id=project_id)


def _refused(request: HttpRequest, refused: RemoteRefused) -> None:
    messages.error(request, refused.message, extra_tags="import")
    for line in skipped_shown(refused.lines):
        messages.error(request, line, extra_tags="import detail")


@sensitive_post_parameters("token")
@require_POST
def remote_save_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "settings")
    saved = remote_save(
        project=project,
        url=request.POST.get("url", ""),
        username=request.POST.get("username", ""),
        token=request.POST.get("token", ""),
    )
    if isinstance(saved, RemoteRefused):
        _refused(request, saved)
    else:
        messages.success(request, f"Remote saved: {saved.url}.")
    return _back(project.pk)


@require_POST
def remote_delete_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "settings")
    if remote_delete(project=project):
        messages.success(
            request, "Remote removed, with its token. The repository itself is untouched."
        )
    return _back(project.pk)


@require_POST
def remote_push_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "settings")
    said = remote_push(project=project)
    if isinstance(said, RemoteRefused):
        _refused(request, said)
    else:
        messages.success(request, said)
    return _back(project.pk)


@require_POST
def remote_pull_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    # The owner's, as the remote is: the pull signs in with the owner's host token.
    project = project_for(request, project_id, "settings")
    pulled = remote_pull(
        project=project, user=current_user(request), replace=request.POST.get("replace") == "1"
    )
    if isinstance(pulled, PullDiverged):
        return render(request, "projects/pull_diverged.html", {"project": project}, status=409)
    if isinstance(pulled, RemoteRefused):
        _refused(request, pulled)
    else:
        messages.success(request, _PULLED[pulled])
    return _back(project.pk)


@sensitive_post_parameters("token")
@require_POST
def project_import_git_view(request: HttpRequest) -> HttpResponse:
    url = request.POST.get("url", "").strip()
    name = request.POST.get("name", "").strip() or _name_of(url)
    result = project_import_git(
        owner=current_user(request),
        name=name,
        url=url,
        username=request.POST.get("username", ""),
        token=request.POST.get("token", ""),
    )
    if isinstance(result, RemoteRefused):
        _refused(request, result)
        return redirect("dashboard")
    if result.skipped:
        count = len(result.skipped)
        messages.warning(
            request,
            f"Cloned {result.project.name}. Left out {count} file{'s' if count != 1 else ''} "
            "the project's rules refuse:",
            extra_tags="import",
        )
        for reason in skipped_shown(result.skipped):
            messages.warning(request, reason, extra_tags="import detail")
    else:
        messages.success(request, f"Cloned {result.project.name}.", extra_tags="import")
    return _back(result.project.pk)


def _name_of(url: str) -> str:
    """`bakery` for https://github.com/ada/bakery.git."""
    last = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    return last[:100] or "Imported site"
