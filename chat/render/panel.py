"""The chat panel drawn from what is stored (synchronous reads): the log's recent
turns, about a screen of them, "Show earlier" (a page of earlier turns within one
frame's budget), the status, the usage and the conversation's name. What a
connecting tab gets is put together from these in chat.live.snapshot."""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from chat.agent.events import TurnStarted
from chat.changes import turn_changes
from chat.models import Conversation
from chat.records.context_window import ContextRecord
from chat.render.fragments import oob
from chat.render.gauge import ContextGauge
from chat.render.transcript import Footer, TurnView, stored_turns, turn_dom_id, turn_page
from chat.selectors.conversations import (
    ConversationUsage,
    conversation_fresh_title,
    conversation_title,
    conversation_usage,
    latest_context,
)
from chat.selectors.turns import turn_get, turn_latest
from projects.access import ACTIONS

# Room in a catch-up frame for what goes with the log (status, usage, signal).
_FRAME_ROOM = 16 * 1024
_COMPACT_TEXT_CHARS = 2_000
# What the log opens with, on the page and on every (re)connect: about what a tall
# screen shows. The rest is one "Show earlier" away. After a restart every tab
# reconnects at once, and each drew up to BUILTIT_CHAT_PAGE_TURNS turns (up to a
# whole frame, 240 KiB) only to show the last few.
SCREEN_TURNS = 6
SCREEN_BYTES = 48 * 1024


def frame_budget() -> int:
    """Bytes of turns one catch-up frame (or one page of earlier turns) may carry."""
    return max(settings.BUILTIT_MAX_FRAME_BYTES - _FRAME_ROOM, _FRAME_ROOM)


def log_html(conversation: Conversation | None, *, before: int | None = None) -> SafeString:
    """The chat log: its empty-state line, then the latest turns begun before
    `before` that fill about a screen, preceded by "Show earlier" when there are more."""
    empty = render_to_string("chat/partials/chat_log.html")
    if conversation is None:
        return mark_safe(empty)  # noqa: S308 (our own template)
    turns = min(SCREEN_TURNS, settings.BUILTIT_CHAT_PAGE_TURNS)
    page = page_html(conversation, before=before, turns=turns, budget=SCREEN_BYTES)
    return mark_safe(empty + page)  # noqa: S308


def page_html(
    conversation: Conversation,
    *,
    before: int | None,
    turns: int | None = None,
    budget: int | None = None,
) -> str:
    """The turns begun before `before` (at most `turns`, BUILTIT_CHAT_PAGE_TURNS
    unless given) that fit `budget` bytes (the frame budget unless given; the
    newest turn always, cut down if it must), newest kept, after a "Show
    earlier" button when earlier turns exist."""
    limit = turns or settings.BUILTIT_CHAT_PAGE_TURNS
    page = turn_page(conversation, before=before, limit=limit)
    budget = min(budget or frame_budget(), frame_budget())
    shown: list[str] = []
    size = 0
    earlier = page.earlier
    for index in range(len(page.turns) - 1, -1, -1):
        html = _turn_html(page.turns[index], frame_budget())
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


def latest_turn_html(conversation: Conversation) -> str:
    """The conversation's latest turn drawn again from the store, in place (after a
    summary by hand: its mark sits above that turn)."""
    latest = turn_latest(conversation=conversation)
    turns = stored_turns(conversation, start=latest.sequence) if latest is not None else []
    if not turns:
        return ""
    html = render_to_string("chat/partials/turn.html", {"turn": turns[-1]})
    return oob(f"#{turns[-1].dom_id}", html, how="outerHTML") + conversation_gauge_html(
        conversation, swap=True
    )


def composer_gauge_html(
    record: ContextRecord | None, *, compacted_since: bool = False, swap: bool = False
) -> str:
    """The context gauge by the message box: how full the latest turn's first
    request was, which the next message starts from (hidden while no turn has
    measured it); `swap` for an out-of-band swap."""
    context = {
        "gauge": None if record is None else ContextGauge.of(record),
        "compacted_since": compacted_since,
    }
    html = render_to_string("chat/partials/composer_gauge.html", context)  # as fragments draws it
    return oob("#composer-gauge", html, how="outerHTML") if swap else html


def conversation_gauge_html(conversation: Conversation | None, *, swap: bool = False) -> str:
    latest = latest_context(conversation=conversation) if conversation is not None else None
    if latest is None:
        return composer_gauge_html(None, swap=swap)
    return composer_gauge_html(latest.record, compacted_since=latest.compacted_since, swap=swap)


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
    return conversation_title(conversation_id=started.conversation_id)


def conversation_html(conversation: Conversation) -> str:
    """After a turn: the conversation's totals, and its name in the picker."""
    title = escape(conversation_fresh_title(conversation=conversation) or "New conversation")
    option = (
        f'<option id="conversation-option-{conversation.pk}" value="{conversation.pk}" '
        f'title="{title}" selected>{title}</option>'
    )
    return usage_html(conversation_usage(conversation=conversation)) + oob(
        "", option, how="outerHTML"
    )


def turn_changes_html(turn_id: int, *, conversation: Conversation, running: bool) -> str:
    """A turn's "N files changed" summary, to replace the one a tab shows ("" when
    the turn is not in `conversation`)."""
    turn = turn_get(conversation=conversation, turn_id=turn_id)
    if turn is None:
        return ""
    dom_id = turn_dom_id(turn.pk)
    status = "running" if running else "completed"
    view = TurnView(dom_id, turn.content, Footer(f"{dom_id}-foot", status=status))
    view.changes = turn_changes(turn)
    html = render_to_string("chat/partials/turn_changes.html", {"turn": view})
    return oob(f"#{dom_id}-changes", html, how="outerHTML")


def notice_html(message: str) -> str:
    html = render_to_string("chat/partials/notice.html", {"message": message})
    return oob("#chat-notice", html, how="outerHTML")


def signal_html(
    number: int,
    *,
    sent: bool,
    files: list[str],
    by: str = "assistant",
    tab: str = "",
    who: str = "",
    draft: str = "",
    role: str = "",
) -> str:
    """A hidden element the page's script reads after each frame (chat/signals.js);
    `by` says who changed `files`: the assistant, an undo or restore ("history"),
    or a person ("person") in the workspace tab `tab`, named `who` when it was
    someone else; `draft`, a message that
    could not go, for the message box; `role`, the person's role in the project
    when it changed (projects.access.Role), with what it may do now (`may`,
    as the page's root carries it: projects.web.workspace)."""
    may = " ".join(sorted(ACTIONS[role])) if role in ACTIONS else ""
    data = json.dumps(
        {
            "n": number,
            "sent": sent,
            "files": files,
            "by": by,
            "tab": tab,
            "who": who,
            "draft": draft,
            "role": role,
            "may": may,
        }
    )
    return render_to_string("chat/partials/signal.html", {"signal_json": data})


SHOWN_PEOPLE = 5  # dots in the top bar; the rest are "and N more"
_HUES = 8  # colours a dot may have (app.css: .presence-hue-0 … 7)


def presence_html(people: Sequence[Mapping[str, Any]], *, total: int, me: int) -> str:
    """Who else has the project open (chat.live.presence), for the top bar: a
    dot each (an initial, a colour from the name, the words in a tooltip and
    for screen readers), "and N more" past SHOWN_PEOPLE, and the files they
    have open, for the file tree's dots (workspace/presence.js). `people`:
    chat.live.messages.Person, which this layer does not import."""
    others = [person for person in people if person["user"] != me]
    counted_me = len(others) < len(people) or total > len(people)
    shown = others[:SHOWN_PEOPLE]
    dots = [
        {
            "user": person["user"],
            "name": person["name"],
            "initial": (person["name"][:1] or "?").upper(),
            "hue": zlib.crc32(person["name"].encode()) % _HUES,
            "label": _presence_label(person),
        }
        for person in shown
    ]
    more = max(total - (1 if counted_me else 0) - len(shown), 0)
    files: dict[str, list[str]] = {}
    for person in others:
        if person["path"]:
            files.setdefault(person["path"], []).append(person["name"])
    context = {
        "dots": dots,
        "more": more,
        "narrow_more": max(len(shown) + more - 1, 0),  # a phone shows one dot
        "files_json": json.dumps(files, ensure_ascii=False),
    }
    html = render_to_string("chat/partials/presence.html", context)
    return oob("#presence", html, how="outerHTML")


def _presence_label(person: Mapping[str, Any]) -> str:
    role = person["role"] if person["role"] in ACTIONS else ""  # one of the roles, or none
    label = f"{person['name']} — {role}" if role else person["name"]
    return f"{label}, has {person['path'].lstrip('/')} open" if person["path"] else label
