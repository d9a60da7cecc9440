"""Improve my request, beside the message box: the draft rewritten by the
model (chat.agent.improving), as JSON for static/builtit/improve.js to put in the box.
Nothing is sent; a refusal comes back as words to show near the box."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_POST

from chat.agent.improving import Improved, draft_improve
from common import threads
from projects.access import project_for


@require_POST
async def draft_improve_view(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    # Async: the answer can take a minute, and a worker thread would wait all of it.
    user = await request.auser()
    if not isinstance(user, User):  # signed out meanwhile (builtit.middleware)
        raise PermissionDenied
    # Asking the model is chatting: a viewer is refused (403 in words), a stranger a 404.
    project = await threads.run(project_for, request, project_id, "chat")
    raw = request.POST.get("conversation", "")
    result = await draft_improve(
        project=project,
        user=user,
        draft=request.POST.get("draft", ""),
        model=request.POST.get("model", ""),
        conversation_id=int(raw) if raw.isdigit() and len(raw) <= 18 else None,
    )
    if isinstance(result, Improved):
        return JsonResponse({"text": result.text, "changed": result.changed})
    return JsonResponse({"error": result.message, "code": result.code}, status=422)
