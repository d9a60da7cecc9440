"""Dashboard and project-level pages: list, create, import, rename, delete, export."""

from __future__ import annotations

import uuid
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from common.users import current_user
from projects.access import project_for
from projects.archive import ImportRefused, project_export_zip, project_import_zip, skipped_shown
from projects.lifecycle import (
    ProjectRefused,
    clean_name,
    project_create,
    project_purge,
    project_rename,
    project_restore,
    project_trash,
    trash_purge_date,
)
from projects.models import Project, ProjectFile
from projects.publish.forms.selectors import unread_annotation
from projects.selectors import (
    project_list_for,
    trash_list_for,
    trashed_get_for,
)
from projects.sharing import hand_over_offers_to
from projects.starter import START_DRAFT_KEY, STARTING_POINTS
from projects.usage import storage_used
from projects.web.sites import frame_sites


@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    projects = project_list_for(request.user).annotate(unread_forms=unread_annotation())
    context = {
        "projects": projects,
        # Projects their owners offer this person, waiting for Accept or Decline.
        "offers": hand_over_offers_to(user=current_user(request)),
        "storage": _storage(request),
        # The request becomes the first chat message: the message limit bounds it.
        "max_request_chars": settings.BUILTIT_MAX_MESSAGE_CHARS,
        "starting_points": STARTING_POINTS,
        # A request just refused (too long, storage full), back in the box once.
        "draft": request.session.pop(START_DRAFT_KEY, ""),
    }
    # The cards' thumbnails are the sites themselves, framed from the sites origin.
    return frame_sites(request, render(request, "projects/dashboard.html", context))


@require_POST
def project_new(request: HttpRequest) -> HttpResponse:
    result = project_create(
        owner=current_user(request),
        name=request.POST.get("name", ""),
        description=request.POST.get("description", ""),
        starter=request.POST.get("start") == "starter",
    )
    if isinstance(result, ProjectRefused):
        messages.error(request, result.message)
        return redirect("dashboard")
    asked = clean_name(request.POST.get("name", ""))
    if asked != result.name:
        messages.info(
            request, f"You already have a project named {asked}, so this one is {result.name}."
        )
    return redirect("workspace", project_id=result.pk)


def _named(asked: str, project: Project) -> str:
    """The project's name, and why it is not the one asked for when it was taken."""
    cleaned = clean_name(asked)
    if isinstance(cleaned, str) and cleaned != project.name:
        return f"{cleaned} as {project.name} (you already have a project named {cleaned})"
    return project.name


@require_POST
def project_import(request: HttpRequest) -> HttpResponse:
    upload = request.FILES.get("archive")
    if upload is None:
        messages.error(request, "Choose a ZIP file to import.")
        return redirect("dashboard")
    name = request.POST.get("name", "").strip() or PurePosixPath(upload.name or "").stem
    result = project_import_zip(
        owner=current_user(request),
        name=name or "Imported site",
        upload=upload,
        upload_size=upload.size or 0,
    )
    if isinstance(result, ImportRefused):
        messages.error(request, result.message, extra_tags="import")
        for problem in result.problems:
            messages.error(request, problem, extra_tags="import detail")
        return redirect("dashboard")
    project = result.project
    named = _named(name or "Imported site", project)
    # Where the files went: a ZIP's one top folder is the site itself.
    placed = (
        f" Everything in the ZIP was inside the folder {result.folder}, so that folder's "
        "files are at the project's top level."
        if result.folder
        else ""
    )
    if result.skipped:
        count = len(result.skipped)
        messages.warning(
            request,
            f"Imported {named}.{placed} Left out {count} "
            f"file{'s' if count != 1 else ''} (named as in the ZIP):",
            extra_tags="import",
        )
        for reason in skipped_shown(result.skipped):
            messages.warning(request, reason, extra_tags="import detail")
    else:
        messages.success(request, f"Imported {named}.{placed}", extra_tags="import")
    return redirect("workspace", project_id=project.pk)


@require_POST
def project_rename_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "settings")
    result = project_rename(project=project, name=request.POST.get("name", ""))
    if isinstance(result, ProjectRefused):
        messages.error(request, result.message)
    next_url = request.POST.get("next")
    if next_url == "workspace":
        return redirect("workspace", project_id=project.pk)
    return redirect("dashboard")


@require_http_methods(["GET", "POST"])
def project_delete_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "delete")
    if request.method == "POST":
        problem = project_trash(project=project)
        if problem is not None:
            messages.error(request, problem.message)
            return redirect("dashboard")
        days = settings.BUILTIT_TRASH_DAYS
        messages.success(
            request, f"Moved {project.name} to the trash. You can restore it there for {days} days."
        )
        return redirect("dashboard")
    file_count = project.files.count()
    context = {"project": project, "file_count": file_count, "days": settings.BUILTIT_TRASH_DAYS}
    return render(request, "projects/delete_confirm.html", context)


@require_GET
def trash(request: HttpRequest) -> HttpResponse:
    rows = [(project, trash_purge_date(project)) for project in trash_list_for(request.user)]
    return render(request, "projects/trash.html", {"rows": rows, "storage": _storage(request)})


@require_http_methods(["GET", "POST"])
def project_purge_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Deleting for good what is already in the trash: the owner's way to make room."""
    project = trashed_get_for(request.user, project_id)
    if project is None:
        raise Http404("No such project in your trash.")
    if request.method == "POST":
        problem = project_purge(project=project)
        if problem is not None:
            messages.error(request, problem.message)
        else:
            messages.success(request, f"Deleted {project.name} for good.")
        return redirect("trash")
    file_count = ProjectFile.objects.filter(project=project).count()
    return render(
        request, "projects/purge_confirm.html", {"project": project, "file_count": file_count}
    )


def _storage(request: HttpRequest) -> dict[str, int | bool]:
    used = storage_used(current_user(request).pk)
    quota = settings.BUILTIT_MAX_USER_STORAGE_BYTES
    # Said before a write is refused, while there is still room to act.
    return {"used": used, "quota": quota, "nearly_full": bool(quota) and used >= 0.9 * quota}


@require_POST
def project_restore_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = trashed_get_for(request.user, project_id)
    if project is None:
        raise Http404("No such project in your trash.")
    asked = project.name
    named = _named(asked, project_restore(project=project))
    messages.success(request, f"Restored {named}, with its files, history and chats.")
    return redirect("dashboard")


@require_GET
def project_export(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    # ?forms=1: with what the site's forms received (the forms inbox offers it).
    with_forms = request.GET.get("forms") == "1"
    project = project_for(request, project_id, "forms" if with_forms else "view")
    filename = f"{slugify(project.name) or 'site'}.zip"
    data = project_export_zip(project, with_forms=with_forms)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
