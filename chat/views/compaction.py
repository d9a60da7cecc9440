"""The conversation compacted by hand, and exported with its summaries.

Thin: chat.agent.compaction summarises; chat.render.export writes the file.
"""

from __future__ import annotations

import uuid

from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST

from chat.agent.compaction import compact_by_hand
from chat.agent.one_shot import AskRefused
from chat.live.broadcast import conversation_compacted
from chat.models import Conversation
from chat.render.export import conversation_markdown, export_name
from chat.selectors.conversations import conversation_get
from common import threads
from common.users import current_user
from projects.access import Action, project_for
from projects.models import Project


@require_POST
async def conversation_compact(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Every turn but the latest summarised for the model; the answer says so,
    and redraws the latest turn with the summary's mark above it."""
    project, conversation = await threads.run(
        _found, request, project_id, request.POST.get("conversation", ""), "chat"
    )
    # Paid by the person who asked, with their key (a project may be shared).
    done = await compact_by_hand(
        project=project, conversation=conversation, user=current_user(request)
    )
    if isinstance(done, AskRefused):
        # Said in the chat's notice, like a message that could not be sent.
        return HttpResponse(
            render_to_string("chat/partials/compacted.html", {"refused": done.message})
        )
    # Every tab showing the conversation (this one too) redraws its latest turn.
    await conversation_compacted(project, conversation_id=conversation.pk)
    return HttpResponse(render_to_string("chat/partials/compacted.html", {"compaction": done}))


@require_GET
def conversation_export(
    request: HttpRequest, project_id: uuid.UUID, conversation_id: int
) -> HttpResponse:
    """The whole conversation as Markdown: every turn as it was, each summary
    where it was made."""
    project, conversation = _found(request, project_id, str(conversation_id), "view")
    response = HttpResponse(
        conversation_markdown(conversation), content_type="text/markdown; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{export_name(project, conversation)}"'
    return response


def _found(
    request: HttpRequest, project_id: uuid.UUID, raw: str, action: Action
) -> tuple[Project, Conversation]:
    project = project_for(request, project_id, action)
    conversation = (
        conversation_get(project=project, conversation_id=int(raw))
        if raw.isdigit() and len(raw) < 18
        else None
    )
    if conversation is None:
        raise Http404("No such conversation.")
    return project, conversation
