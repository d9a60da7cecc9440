"""A person's message as the order for a turn, checked before anything is asked
of a model: its words, the model it may use (the person's pick, the project's,
the server's default; chat.agent.model_choice), the pictures that model reads
(from the provider's model list), and the person's own key. The socket
(chat.live.consumers) reaches the agent and the provider only through here and
the live turn (chat.live.turns)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.contrib.auth.models import User

from chat import images, services
from chat.agent.loop import TurnRequest
from chat.agent.model_choice import ModelRefused, choose_model, clean_model_id
from chat.live import connect_cache
from chat.live.frames import Frame
from chat.models import Conversation
from chat.personal_keys import key_for
from chat.providers import client_for, is_offline
from chat.selectors.conversations import SocketProject, project_with_conversation
from common import threads
from common.refusals import Refusal
from projects.models import Project


@dataclass(frozen=True)
class OrderRefused(Refusal):
    """Why the message was not sent, in words, and the notice's code."""

    code: str


async def order_from(
    frame: Frame, *, project: Project, user: User, conversation: Conversation | None
) -> TurnRequest | OrderRefused:
    """The turn `frame` asks for, in `conversation` (a new one when None), or why
    it cannot go."""
    text = services.clean_user_message(frame.message)
    if isinstance(text, services.MessageRefused):
        return OrderRefused(text.message, "bad_message")
    model = clean_model_id(frame.model) if frame.model else None
    if isinstance(model, ModelRefused):
        return OrderRefused(model.message, "bad_model")
    api_key = await threads.run(key_for, user)
    refused = await _pictures_refused(frame, project=project, user=user, model=model, key=api_key)
    if refused:
        return OrderRefused(refused, "bad_images")
    if conversation is None:
        conversation = await threads.run(services.conversation_create, project=project)
    return TurnRequest(
        project,
        conversation,
        text,
        model,
        user,
        api_key,
        frame.attachments,
        frame.images,
        plan=frame.plan,
    )


async def _pictures_refused(
    frame: Frame, *, project: Project, user: User, model: str | None, key: str | None
) -> str:
    """Why the message's pictures cannot go (gone, too many, or a model that
    does not read them), before any request is made; "" when they can. `key`:
    the person's own, if any, which decides the model and the list it is in."""
    if not frame.images:
        return ""
    found = await threads.run(
        images.images_waiting, user=user, project=project, ids=list(frame.images)
    )
    if isinstance(found, images.ImageRefused):
        return found.message
    chosen = choose_model(model, project, personal_key=bool(key))
    if is_offline(chosen):  # often the only model a person without a key can use
        return (
            "The offline demo cannot see pictures. Send the message without them, or add "
            "your OpenRouter key in Settings to use a model that reads them."
        )
    listed = await client_for(chosen).model_inputs(api_key=key)
    if not images.reads_images(chosen, listed):
        return (
            f"{chosen} does not read pictures. Pick a model that does (for example "
            "google/gemini-2.5-flash or anthropic/claude-sonnet-4.5), or send the "
            "message without them."
        )
    return ""


def socket_project(
    user: User, project_id: uuid.UUID, raw_conversation: str
) -> SocketProject | None:
    """The project as `user` may use it (their own, or shared with them: their
    role in it) and the conversation asked for (the latest when none was); None
    refuses the socket. One query, the person's membership and the conversation
    joined to the project (chat.selectors.conversations.project_with_conversation);
    none for a project this person's connect read since with no conversation yet
    (chat.live.connect_cache). The project's owner stays its owner: the socket's
    person is the one who sends (and pays for) its turns."""
    kept = None if raw_conversation else connect_cache.project_kept(user.pk, project_id)
    if kept is not None and not kept.has_conversation:
        return SocketProject(kept.project, kept.role, None)
    word = connect_cache.project_word(project_id)  # before the rows are read
    found = project_with_conversation(user_id=user.pk, project_id=project_id, raw=raw_conversation)
    if found is None:
        return None  # not shared with this person, in the trash, or not one of its conversations
    connect_cache.project_keep(
        user.pk,
        found.project,
        role=found.role,
        has_conversation=found.conversation is not None,
        word=word,
    )
    return found
