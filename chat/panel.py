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
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from chat import services
from chat.events import TurnStarted
from chat.fragments import oob
from chat.model_choice import offered_models
from chat.models import Conversation
from chat.transcript import (
    ConversationUsage,
    TurnView,
    conversation_usage,
    turn_page,
)
from chat.turns import RunningTurn, running_turn
from projects.models import Project

# Room in a catch-up frame for what goes with the log (status, usage, signal).
_FRAME_ROOM = 16 * 1024
_COMPACT_TEXT_CHARS = 2_000


@dataclass(frozen=True)
class Snapshot:
    log: SafeString  # the recent turns, bounded in size, with "Show earlier"
    running: RunningTurn | None
    elsewhere: str  # the other conversation's title, when the running turn is there
    usage: ConversationUsage

    @property
    def busy(self) -> bool:
        return self.running is not None


def snapshot(project: Project, conversation: Conversation | None) -> Snapshot:
    # Messages first, then the lock: a turn that starts in between is then either
    # wholly in the lock (left out here, replayed) or wholly after (followed live).
    running = running_turn(project)
    before = None
    elsewhere = ""
    if running is not None and conversation is not None:
        if running.conversation_id == conversation.pk:
            before = running.first_sequence
        else:
            elsewhere = _title(running.conversation_id)
    log = log_html(conversation, before=before) if conversation is not None else log_html(None)
    usage = (
        conversation_usage(conversation)
        if conversation is not None
        else ConversationUsage(0, 0, None)
    )
    return Snapshot(log, running, elsewhere, usage)


def frame_budget() -> int:
    """Bytes of turns one catch-up frame (or one page of earlier turns) may carry."""
    return max(settings.BUILTIT_MAX_FRAME_BYTES - _FRAME_ROOM, _FRAME_ROOM)


def log_html(conversation: Conversation | None, *, before: int | None = None) -> SafeString:
    """The chat log: its empty-state line, then the latest turns begun before
    `before` that fit one frame, preceded by "Show earlier" when there are more."""
    empty = render_to_string("chat/partials/chat_log.html")
    if conversation is None:
        return mark_safe(empty)  # noqa: S308 (our own template)
    return mark_safe(empty + page_html(conversation, before=before))  # noqa: S308


def page_html(conversation: Conversation, *, before: int | None) -> str:
    """The turns begun before `before` that fit the frame budget, newest kept,
    after a "Show earlier" button when earlier turns exist."""
    page = turn_page(conversation, before=before, limit=settings.BUILTIT_CHAT_PAGE_TURNS)
    budget = frame_budget()
    shown: list[str] = []
    size = 0
    earlier = page.earlier
    for index in range(len(page.turns) - 1, -1, -1):
        html = _turn_html(page.turns[index], budget)
        if shown and size + len(html.encode()) > budget:
            earlier = page.turns[index + 1].sequence  # the oldest turn kept
            break
        shown.append(html)
        size += len(html.encode())
    button = _earlier_html(conversation, earlier) if earlier is not None else ""
    return button + "".join(reversed(shown))


def _turn_html(turn: TurnView, budget: int) -> str:
    html = render_to_string("chat/partials/turn.html", {"turn": turn})
    if len(html.encode()) <= budget:
        return html
    _compact(turn)
    html = render_to_string("chat/partials/turn.html", {"turn": turn})
    if len(html.encode()) <= budget:
        return html
    return render_to_string("chat/partials/turn_too_big.html", {"turn": turn})


def _compact(turn: TurnView) -> None:
    """A turn too big for a frame: its steps without their details, its text cut."""
    for block in turn.blocks:
        if block.kind in {"answer", "reasoning"} and len(block.text) > _COMPACT_TEXT_CHARS:
            full = max(block.full_chars, len(block.text))
            block.text = block.text[:_COMPACT_TEXT_CHARS]
            block.full_chars = full
        for card in block.cards:
            card.arguments = card.result = "(Too long to show with the rest of this turn.)"


def _earlier_html(conversation: Conversation, before: int) -> str:
    url = reverse(
        "conversation_earlier",
        kwargs={"project_id": conversation.project_id, "conversation_id": conversation.pk},
    )
    return render_to_string("chat/partials/earlier.html", {"url": f"{url}?before={before}"})


def panel_context(project: Project, conversation: Conversation | None) -> dict[str, object]:
    state = snapshot(project, conversation)
    return {
        "chat_log": state.log,
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
    """The log (its recent part), status and usage, replacing what a (re)connected tab shows."""
    return (
        oob("#chat-log", state.log, how="innerHTML")
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
