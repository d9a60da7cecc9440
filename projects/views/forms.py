"""The owner's inbox of what a project's site forms received
(projects.publish.forms): `/projects/<id>/forms/`, and `forms.csv`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header, urlencode
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from projects.access import access_for, project_for
from projects.models import FormSettings, FormSubmission, Project
from projects.publish.forms.fields import Fields
from projects.publish.forms.selectors import (
    INBOX_PAGE,
    form_counts,
    inbox_size,
    mail_choice,
    mail_configured,
    submissions_for,
)
from projects.publish.forms.services import (
    form_settings_set,
    submission_delete,
    submissions_delete,
    submissions_mark_read,
)
from projects.publish.forms.table import submissions_csv
from projects.publish.selectors import site_of

MAX_CSV_ROWS = 50_000
NEARLY_FULL = 0.9  # of the inbox's bounds: the owner is warned


@require_GET
def inbox(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    access = access_for(request, project_id, "forms")
    project = access.project
    shown = _shown(request)
    found = _found(project, shown)
    page = Paginator(found, INBOX_PAGE).get_page(request.GET.get("page"))
    rows = [(row, Fields.stored(row.fields).pairs) for row in page.object_list]
    share = inbox_size(project_id=project.pk).share
    context = {
        "project": project,
        "site": site_of(project),
        "forms": form_counts(project=project, spam=False),
        "spam_count": sum(count.total for count in form_counts(project=project, spam=True)),
        "rows": rows,
        "page": page,
        "shown": shown,
        "query": shown.query(),
        "mail_configured": mail_configured(),
        "mail_choice": mail_choice(project=project),
        "mail_choices": FormSettings.Mail.choices,
        "owner_email": project.owner.email,
        # Where submissions are mailed is the owner's to choose, as publishing is.
        "may_publish": access.allows("publish"),
        # Full: the next real submission is refused unless spam makes room
        # (projects.publish.forms.services.submission_receive).
        "inbox_full": share >= 1,
        "inbox_nearly_full": share >= NEARLY_FULL,
        "inbox_percent": min(99, int(share * 100)),
    }
    return render(request, "projects/forms.html", context)


@require_GET
def inbox_csv(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "forms")
    shown = _shown(request)
    rows = _found(project, shown)[:MAX_CSV_ROWS]
    response = HttpResponse(submissions_csv(rows), content_type="text/csv; charset=utf-8")
    name = f"{slugify(project.name) or 'site'}-forms.csv"
    response["Content-Disposition"] = content_disposition_header(True, name)
    return response


@require_POST
def inbox_read(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Mark submissions read (or unread again): the ones named, or all shown."""
    project = project_for(request, project_id, "forms")
    ids = [int(value) for value in request.POST.getlist("id") if value.isdigit()]
    if request.POST.get("all"):
        ids = list(_found(project, _shown(request)).values_list("pk", flat=True))
    submissions_mark_read(project=project, ids=ids, read=request.POST.get("read") != "0")
    return _back(request, project_id)


@require_POST
def inbox_delete(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Delete one submission (`id`), or all of them, or all the spam."""
    project = project_for(request, project_id, "forms")
    which = request.POST.get("which", "")
    if which == "all":
        count = submissions_delete(project=project, spam=False)
        messages.success(request, f"Deleted {count} submission{'s' if count != 1 else ''}.")
    elif which == "spam":
        count = submissions_delete(project=project, spam=True)
        messages.success(request, f"Deleted {count} spam submission{'s' if count != 1 else ''}.")
    elif request.POST.get("id", "").isdigit() and submission_delete(
        project=project, submission_id=int(request.POST["id"])
    ):
        messages.success(request, "Deleted the submission.")
    return _back(request, project_id)


@require_POST
def inbox_settings(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "publish")
    result = form_settings_set(project=project, mail=request.POST.get("mail", ""))
    if isinstance(result, str):
        messages.error(request, result)
    else:
        messages.success(request, f"Saved: {result.get_mail_display()}.")
    return redirect("forms_inbox", project_id=project.pk)


@dataclass(frozen=True)
class Shown:
    """Which submissions the inbox shows: of one form, spam or not, holding words."""

    form: str
    spam: bool
    search: str

    def query(self) -> str:
        asked = {"form": self.form, "spam": "1" if self.spam else "", "q": self.search}
        return urlencode({key: value for key, value in asked.items() if value})


def _shown(request: HttpRequest) -> Shown:
    source = request.GET if request.method == "GET" else request.POST
    return Shown(
        form=source.get("form", "")[:40],
        spam=source.get("spam") == "1",
        search=source.get("q", "")[:200],
    )


def _found(project: Project, shown: Shown) -> QuerySet[FormSubmission]:
    return submissions_for(project=project, form=shown.form, spam=shown.spam, search=shown.search)


def _back(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    query = _shown(request).query()
    page = request.POST.get("page", "")
    if page.isdigit():
        query = "&".join(filter(None, [query, f"page={page}"]))
    response = redirect("forms_inbox", project_id=project_id)
    response["Location"] += f"?{query}" if query else ""
    return response
