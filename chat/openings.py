"""A project started from a request (the dashboard's "What do you want to
build?"): the project, named from the request, and its first conversation, with
the request waiting on it until the workspace's socket takes it and starts the
turn (chat.live.consumers).

The request is taken once, by a conditional update: a reload, or a second tab
on the same conversation, finds nothing waiting and follows the running turn
instead of sending it again. The server, not the page, holds it, so nothing in
the address can be replayed.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from chat import services
from chat.models import Conversation
from common.refusals import Refusal
from projects.lifecycle import MAX_DESCRIPTION, ProjectRefused, project_create
from projects.naming import project_name_from


@dataclass(frozen=True)
class StartRefused(Refusal):
    """A project not started from a request, and why."""


@transaction.atomic
def project_start(*, owner: User, request: object) -> Conversation | StartRefused:
    """A blank project for `request`, and the conversation that will send it.

    Without the starter site: the model builds what was asked from nothing
    rather than reading three generic files and rewriting them (tokens spent,
    and the starter's look leaking into the result). With the starter's short
    /AGENTS.md, as a starter project has: the person's standing instructions
    to make their own. The request is also the project's description when it
    fits one, so the brief stays in the model's system prompt after the first
    turn has left its history budget."""
    text = services.clean_user_message(request)
    if isinstance(text, services.MessageRefused):
        return StartRefused(text.message)
    project = project_create(
        owner=owner,
        name=project_name_from(text),
        description=text if len(text) <= MAX_DESCRIPTION else "",
        instructions=True,
    )
    if isinstance(project, ProjectRefused):
        return StartRefused(project.message)
    return Conversation.objects.create(
        project=project, title=services.conversation_title_for(text), opening=text
    )


def opening_take(*, conversation: Conversation) -> str:
    """The request waiting on `conversation`, taken: "" when none waits, or
    another tab took it first."""
    waiting = Conversation.objects.filter(pk=conversation.pk).values_list("opening", flat=True)
    text = waiting.first() or ""
    if not text:
        return ""
    taken = Conversation.objects.filter(pk=conversation.pk, opening=text).update(opening="")
    return text if taken else ""
