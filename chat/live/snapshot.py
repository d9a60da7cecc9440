"""What a tab gets when it connects or reloads: the stored conversation, whether
a turn is running (here or in another conversation), and the usage.

A running turn's own messages are left out: the tab follows that turn live from
its events instead (after a replay of those it missed), so nothing shows twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.utils.safestring import SafeString

from chat.agent.model_choice import default_model, offered_models, setup_of
from chat.models import Conversation
from chat.personal_keys import key_exists
from chat.providers import model_label, offline_model
from chat.render.fragments import oob
from chat.render.panel import (
    composer_gauge_html,
    log_html,
    status_html,
    usage_html,
)
from chat.selectors.conversations import (
    ConversationUsage,
    LatestContext,
    conversation_title,
    conversation_usage,
    latest_context,
)
from chat.selectors.running import RunningTurn, turn_now
from projects.access import Role
from projects.models import Project


@dataclass(frozen=True)
class Snapshot:
    log: SafeString  # the recent turns, bounded in size, with "Show earlier"
    running: RunningTurn | None
    elsewhere: str  # the other conversation's title, when the running turn is there
    usage: ConversationUsage
    context: LatestContext | None  # for the gauge by the message box
    # A turn whose server stopped, its lock lapsed, that no one recorded as
    # interrupted yet: the log shows it unended, without the reason.
    lapsed: str | None = None

    @property
    def busy(self) -> bool:
        return self.running is not None


def snapshot(project: Project, conversation: Conversation | None) -> Snapshot:
    # Messages first, then the lock: a turn that starts in between is then either
    # wholly in the lock (left out here, replayed) or wholly after (followed live).
    now = turn_now(project=project)
    running = now.running
    before = None
    elsewhere = ""
    if running is not None and conversation is not None:
        if running.conversation_id == conversation.pk:
            before = running.first_sequence
        else:
            elsewhere = conversation_title(conversation_id=running.conversation_id)
    log = log_html(conversation, before=before) if conversation is not None else log_html(None)
    usage = (
        conversation_usage(conversation=conversation)
        if conversation is not None
        else ConversationUsage(0, 0, None)
    )
    context = latest_context(conversation=conversation) if conversation is not None else None
    return Snapshot(log, running, elsewhere, usage, context, now.lapsed)


def panel_context(
    project: Project,
    conversation: Conversation | None,
    *,
    user_id: int,
    role: Role,
) -> dict[str, object]:
    """The chat panel for the person `user_id`, as their `role` lets them use
    it: the models offered are those their own key (if any) reaches, since
    they pay for the turns they send."""
    state = snapshot(project, conversation)
    personal_key = key_exists(user_id=user_id)
    models = offered_models(project, personal_key=personal_key)
    return {
        "chat_log": state.log,
        "busy": state.busy,
        "elsewhere": state.elsewhere,
        "usage": state.usage,
        "composer_gauge": gauge_html(state),
        "conversation": conversation,
        "conversations": list(project.conversations.all()[:50]),
        "models": [(model, model_label(model)) for model in models],
        "model": project.default_model,
        "default_model": default_model(personal_key=personal_key),
        "setup": setup_of(personal_key=personal_key),
        "demo_model": offline_model(),
        "max_message_chars": settings.BUILTIT_MAX_MESSAGE_CHARS,
        "chat_role": role,
    }


def snapshot_html(state: Snapshot) -> str:
    """The log (its recent part), status and usage, replacing what a (re)connected tab shows."""
    return (
        oob("#chat-log", state.log, how="innerHTML")
        + status_html(state.busy, state.elsewhere)
        + (usage_html(state.usage))
        + gauge_html(state, swap=True)
    )


def gauge_html(state: Snapshot, *, swap: bool = False) -> str:
    if state.context is None:
        return composer_gauge_html(None, swap=swap)
    return composer_gauge_html(
        state.context.record, compacted_since=state.context.compacted_since, swap=swap
    )
