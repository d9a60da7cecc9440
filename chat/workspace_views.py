"""The workspace page with its chat panel, and starting a new conversation.

The page is the projects app's workspace (files, editor, preview) plus the
chat panel; it lives here because chat depends on projects, never the reverse.
"""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from chat import panel, services
from projects.views import owned_project
from projects.workspace import workspace_context


@require_GET
def workspace(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = owned_project(request, project_id)
    raw = request.GET.get("conversation", "")
    conversation = panel.conversation_for(project, raw)
    if raw and conversation is None:
        return redirect("workspace", project_id=project.pk)
    if conversation is None:
        conversation = services.conversation_start(project=project)
    context = {
        **workspace_context(project),
        **panel.panel_context(project, conversation),
        # The websocket routes are Channels', outside Django's URLconf (builtit.routing).
        "chat_socket_url": f"/ws/projects/{project.pk}/chat/?conversation={conversation.pk}",
    }
    return render(request, "projects/workspace.html", context)


@require_POST
def conversation_new(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = owned_project(request, project_id)
    conversation = services.conversation_start(project=project)
    url = reverse("workspace", kwargs={"project_id": project.pk})
    return redirect(f"{url}?conversation={conversation.pk}")
