"""The chat panel's state as the page and the socket show it (synchronous reads).

A snapshot is what is stored: the conversation's finished turns, whether a turn
is running (here or in another conversation), and the conversation's usage. A
running turn's own messages are left out: the tab follows that turn live from
its events instead (after a replay of those it missed), so nothing shows twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.template.loader import render_to_string
from django.utils.html import escape

from chat import services
from chat.events import TurnStarted
from chat.fragments import oob
from chat.model_choice import offered_models
from chat.models import Conversation
from chat.transcript import ConversationUsage, TurnView, conversation_usage, stored_turns
from chat.turns import RunningTurn, running_turn
from projects.models import Project


@dataclass(frozen=True)
class Snapshot:
    turns: list[TurnView]
    running: RunningTurn | None
    elsewhere: str  # the other conversation's title, when the running turn is there
    usage: ConversationUsage

    @property
    def busy(self) -> bool:
        return self.running is not None


def snapshot(project: Project, conversation: Conversation | None) -> Snapshot:
    # Messages first, then the lock: a turn that starts in between is then either
    # wholly in the lock (left out here, replayed) or wholly after (followed live).
    shown = stored_turns(conversation) if conversation is not None else []
    running = running_turn(project)
    elsewhere = ""
    if running is not None and conversation is not None:
        if running.conversation_id == conversation.pk:
            shown = [turn for turn in shown if turn.sequence < running.first_sequence]
        else:
            elsewhere = _title(running.conversation_id)
    usage = (
        conversation_usage(conversation)
        if conversation is not None
        else ConversationUsage(0, 0, None)
    )
    return Snapshot(shown, running, elsewhere, usage)


def panel_context(project: Project, conversation: Conversation | None) -> dict[str, object]:
    state = snapshot(project, conversation)
    return {
        "turns": state.turns,
        "busy": state.busy,
        "elsewhere": state.elsewhere,
        "usage": state.usage,
        "conversation": conversation,
        "conversations": list(project.conversations.all()[:50]),
        "models": offered_models(project),
        "model": project.default_model,
        "default_model": settings.BUILTIT_DEFAULT_MODEL,
        "max_message_chars": settings.BUILTIT_MAX_MESSAGE_CHARS,
    }


def snapshot_html(state: Snapshot) -> str:
    """The whole log, status and usage, replacing what a (re)connected tab shows."""
    log = render_to_string("chat/partials/chat_log.html", {"turns": state.turns})
    return (
        oob("#chat-log", log, how="innerHTML")
        + status_html(state.busy, state.elsewhere)
        + (usage_html(state.usage))
    )


def status_html(busy: bool, elsewhere: str = "") -> str:
    html = render_to_string(
        "chat/partials/chat_status.html", {"busy": busy, "elsewhere": elsewhere}
    )
    return oob("#chat-status", html, how="outerHTML")


def usage_html(usage: ConversationUsage) -> str:
    html = render_to_string("chat/partials/conversation_usage.html", {"usage": usage})
    return oob("#conversation-usage", html, how="outerHTML")


def title_of(started: TurnStarted) -> str:
    """The name of the conversation a turn runs in, for tabs showing another one."""
    return _title(started.conversation_id)


def _title(conversation_id: int | None) -> str:
    other = Conversation.objects.filter(pk=conversation_id or 0).first()
    return str(other) if other is not None else "another conversation"


def conversation_html(conversation: Conversation) -> str:
    """After a turn: the conversation's totals, and its name in the picker."""
    conversation.refresh_from_db(fields=["title"])
    option = (
        f'<option id="conversation-option-{conversation.pk}" value="{conversation.pk}" selected>'
        f"{escape(conversation.title or 'New conversation')}</option>"
    )
    return usage_html(conversation_usage(conversation)) + oob("", option, how="outerHTML")


def notice_html(message: str) -> str:
    html = render_to_string("chat/partials/notice.html", {"message": message})
    return oob("#chat-notice", html, how="outerHTML")


def conversation_for(project: Project, raw: str | None) -> Conversation | None:
    """The conversation a page or socket asked for (None if it is not one of the
    project's), or the project's latest when none was asked for."""
    if not raw:
        return project.conversations.first()
    if not raw.isdigit() or len(raw) > 18:
        return None
    return services.conversation_get(project=project, conversation_id=int(raw))
