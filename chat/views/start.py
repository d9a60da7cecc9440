"""The dashboard's "What do you want to build?": a new project from a request,
opened in the workspace, whose socket sends the request (chat.openings)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from chat.openings import StartRefused, project_start
from common.users import current_user
from projects.starter import START_DRAFT_KEY


@require_POST
def project_start_view(request: HttpRequest) -> HttpResponse:
    text = request.POST.get("request", "")
    started = project_start(owner=current_user(request), request=text)
    if isinstance(started, StartRefused):
        messages.error(request, started.message, extra_tags="start")
        # Refused, not lost: the words wait in the box to be shortened or sent again.
        request.session[START_DRAFT_KEY] = text[: settings.BUILTIT_MAX_MESSAGE_CHARS * 2]
        return redirect("dashboard")
    url = reverse("workspace", kwargs={"project_id": started.project_id})
    return redirect(f"{url}?conversation={started.pk}")
