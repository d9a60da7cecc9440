"""The workspace page with its chat panel, and starting a new conversation.

The page is the projects app's workspace (files, editor, preview) plus the
chat panel; it lives here because chat depends on projects, never the reverse.
"""

from __future__ import annotations

import uuid
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from chat import services
from chat.agent import attachments
from chat.live import closing, snapshot
from chat.models import Message
from chat.records.tool_calls import CallRecord
from chat.render import panel
from chat.selectors.conversations import conversation_for, conversation_get, message_get_for
from chat.selectors.running import turns_sent_to
from chat.selectors.turns import turn_of
from common.bridge import PROBLEMS_PER_PAGE
from common.users import current_user
from projects.access import access_for, project_for
from projects.selectors import revision_newest
from projects.web.sites import frame_sites
from projects.web.workspace import workspace_context


@require_GET
def workspace(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    access = access_for(request, project_id, "view")
    project = access.project
    # Read before the files are drawn: the page's first socket asks for what
    # changed after it, which reached no socket of the page's (chat.live.consumers).
    files_drawn = revision_newest(project=project)
    raw = request.GET.get("conversation", "")
    conversation = conversation_for(project=project, raw=raw)
    if raw and conversation is None:
        return redirect("workspace", project_id=project.pk)
    # A viewer opening a project no one has chatted about writes nothing: the
    # panel says so, and the socket follows the project with no conversation.
    if conversation is None and access.allows("chat"):
        conversation = services.conversation_start(project=project)
    # The person's own key and caps: they pay for the turns they send.
    chat = snapshot.panel_context(
        project, conversation, user_id=current_user(request).pk, role=access.role
    )
    context = {
        **workspace_context(access, current_user(request)),
        **chat,
        # The websocket routes are Channels', outside Django's URLconf (builtit.routing).
        # The role the page is drawn for: one changed before the socket connects
        # is shown by its first frame (chat.live.consumers).
        "chat_socket_url": f"/ws/projects/{project.pk}/chat/?"
        + urlencode(
            {**({"conversation": conversation.pk} if conversation else {}), "role": access.role}
        ),
        "files_drawn": files_drawn,
        "chat_closing": closing.for_the_page(),
        # The numbers the page keeps to, from the rules the server checks.
        "chat_limits": {
            "pictures": settings.BUILTIT_MAX_CHAT_IMAGES,
            "attachments": attachments.for_the_page(),
            "page_problems": PROBLEMS_PER_PAGE,
        },
        # Where `git clone` finds the project (projects.git.http), on the app's own origin.
        "git_address": request.build_absolute_uri(reverse("git_repository", args=[project.pk])),
        # A request from the dashboard waits to be sent: its turn is what the page is for.
        "opening": bool(conversation and conversation.opening),
        # The keyless notice in one line, once the person has tried the demo it offers.
        "demo_tried": chat["setup"] == "none"
        and bool(chat["demo_model"])
        and turns_sent_to(user_id=request.user.pk or 0, model=str(chat["demo_model"])),
    }
    return frame_sites(request, render(request, "projects/workspace.html", context))


@require_POST
def conversation_new(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "chat")
    conversation = services.conversation_start(project=project)
    url = reverse("workspace", kwargs={"project_id": project.pk})
    return redirect(f"{url}?conversation={conversation.pk}")


@require_GET
def conversation_earlier(
    request: HttpRequest, project_id: uuid.UUID, conversation_id: int
) -> HttpResponse:
    """The turns before `?before=` (a sequence number), for "Show earlier"."""
    project = project_for(request, project_id, "view")
    conversation = conversation_get(project=project, conversation_id=conversation_id)
    before = request.GET.get("before", "")
    if conversation is None or not before.isdigit() or len(before) > 18:
        raise Http404("No such conversation.")
    return HttpResponse(panel.page_html(conversation, before=int(before)))


@require_GET
def message_turn(request: HttpRequest, project_id: uuid.UUID, message_id: int) -> HttpResponse:
    """The History dialog's "See the turn": the conversation of the turn that
    made a change, opened on that turn (chat/log.js scrolls to `#t<id>`)."""
    project = project_for(request, project_id, "view")
    turn = turn_of(project=project, message_id=message_id)
    if turn is None:
        raise Http404("No such turn.")
    url = reverse("workspace", kwargs={"project_id": project.pk})
    return redirect(f"{url}?conversation={turn.conversation_id}#t{turn.pk}")


@require_GET
def message_text(request: HttpRequest, message_id: int, part: str) -> HttpResponse:
    """The whole text of a message the chat panel shows cut: its answer (or a
    tool's result), its reasoning, or one call's arguments (`call-<id>`)."""
    message = message_get_for(user=request.user, message_id=message_id)
    text = None if message is None else _part(message, part)
    if text is None:
        raise Http404("No such text.")
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = "inline"
    return response


def _part(message: Message, part: str) -> str | None:
    if part == "content":
        return message.content
    if part == "reasoning":
        return message.reasoning
    call_id = part.removeprefix("call-")
    for call in CallRecord.all_from(message.tool_calls):
        if call.id and call.id == call_id and call_id != part:
            return call.arguments
    return None
