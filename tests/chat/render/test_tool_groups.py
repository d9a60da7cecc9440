"""Quiet tool calls folded into one line of the chat, by the metadata their
events carry: live, fragment by fragment, and read back from the database the
same way."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest

from chat import services
from chat.agent.events import (
    AnnouncedCall,
    Done,
    Event,
    ToolCallsAnnounced,
    ToolExecuting,
    ToolResultEvent,
    TurnStarted,
)
from chat.models import Conversation, Message
from chat.records.tool_result import ToolRecord
from chat.render.cards import CardGroup, CardState, ToolCard, card_runs
from chat.render.fragments import TurnDrawing, render
from chat.render.transcript import TurnView, stored_turns
from projects.models import Project

STARTED = TurnStarted(1, 7, "openai/gpt-5-mini", "Rename the bakery")


def read(call_id: str, path: str) -> AnnouncedCall:
    return AnnouncedCall.of(call_id, "read_file", json.dumps({"path": path}))


def write(call_id: str, path: str) -> AnnouncedCall:
    arguments = json.dumps({"path": path, "content": "<h1>Crumb</h1>"})
    return AnnouncedCall.of(call_id, "update_file", arguments)


READS = (read("r1", "/index.html"), read("r2", "/styles.css"), read("r3", "/script.js"))
WRITE = write("w1", "/index.html")


def finished(call: AnnouncedCall, *, ok: bool = True) -> list[Event]:
    result = ToolResultEvent(call.id, call.name, ok, f"Did {call.path}", {}, 2.0, call.path)
    return [ToolExecuting(call.id, call.name), result]


def drawn(*events: Event) -> tuple[TurnDrawing, list[str]]:
    turn = TurnDrawing(STARTED)
    turn.start()
    return turn, [turn.show(event) for event in events]


# --- the words of a group -------------------------------------------------------------------


def card(number: int, name: str, path: str | None, state: CardState = "done") -> ToolCard:
    call = AnnouncedCall.of(f"c{number}", name, json.dumps({"path": path} if path else {}))
    return ToolCard(
        f"t7-c{number}", call.id, name, path, "", call.label, call.category, call.visibility, state
    )


def groups(*cards: ToolCard) -> list[CardGroup]:
    return [run for run in card_runs(list(cards)) if isinstance(run, CardGroup)]


def test_a_group_says_what_its_calls_did_in_the_order_they_came() -> None:
    (looked,) = groups(
        card(1, "list_project_files", None),
        card(2, "read_file", "/index.html"),
        card(3, "read_file", "/index.html"),  # another part of the same file
        card(4, "read_file", "/styles.css"),
        card(5, "search_files", None),
    )

    assert looked.line == "Listed the files, looked at 2 files and searched the files"
    assert looked.dom_id == "t7-c1-group"
    assert looked.state == "done"


def test_a_groups_line_counts_its_failures_and_shows_it_running_until_all_finish() -> None:
    (failing,) = groups(card(1, "read_file", "/a.html", "failed"), card(2, "read_file", "/b.html"))
    (running,) = groups(
        card(1, "read_file", "/a.html", "failed"), card(2, "search_files", None, "running")
    )

    assert (failing.line, failing.state, failing.failures) == ("Looked at 2 files", "failed", 1)
    html = render("tool_group_line.html", {"group": failing})
    assert '<span class="tool-group-failures">1 failed</span>' in html
    assert running.state == "running"


def test_a_primary_call_ends_a_run_of_quiet_ones() -> None:
    runs = card_runs(
        [
            card(1, "read_file", "/a.html"),
            card(2, "create_file", "/b.html"),
            card(3, "search_files", None),
            card(4, "search_files", None),
        ]
    )

    assert [run.dom_id for run in runs] == ["t7-c1-group", "t7-c2", "t7-c3-group"]
    last = runs[-1]
    assert isinstance(last, CardGroup)
    assert last.line == "Searched 2 times"


# --- live: fragment by fragment ---------------------------------------------------------------


def test_quiet_calls_fold_into_one_line_counted_as_they_arrive_and_a_write_stands_apart() -> None:
    first, second, third = READS
    turn, (opened, grown, grown_more, *_, alone) = drawn(
        ToolCallsAnnounced((first,)),
        ToolCallsAnnounced((second,)),
        ToolCallsAnnounced((third,)),
        *finished(first),
        *finished(second),
        *finished(third),
        ToolCallsAnnounced((WRITE,)),
    )

    # The first quiet call opens a group, in a new list of steps.
    assert '<ol class="tool-cards" id="t7-b1"' in opened
    assert '<li class="tool-group" id="t7-c1-group">' in opened
    assert "Looked at 1 file<" in opened
    # The next ones go into the group's own list, and only its line is redrawn.
    for fragment, count in ((grown, 2), (grown_more, 3)):
        assert fragment.startswith('<div hx-swap-oob="beforeend:#t7-c1-group-cards">')
        assert f"Looked at {count} files<" in fragment
        assert 'id="t7-c1-group-line" data-state="running" hx-swap-oob="true"' in fragment
        assert 'class="tool-group"' not in fragment  # a group someone opened stays open
    # The write is a card of its own, after the group.
    assert alone.startswith('<div hx-swap-oob="beforeend:#t7-b1">')
    assert '<li class="tool-card queued" id="t7-c4"' in alone
    assert "tool-group" not in alone
    html = render("block.html", {"block": turn.view.blocks[0], "turn": turn.view})
    assert len(re.findall(r'class="tool-group"', html)) == 1
    assert re.findall(r'id="(t7-c\d)" data-state', html) == ["t7-c1", "t7-c2", "t7-c3", "t7-c4"]


def test_a_groups_line_follows_its_cards_as_they_run_and_finish() -> None:
    first, second, _ = READS
    _, (_, executing, done, failed_run, failed) = drawn(
        ToolCallsAnnounced((first, second)),
        *finished(first),
        *finished(second, ok=False),
    )

    assert 'id="t7-c1" data-state="running"' in executing
    assert 'id="t7-c1-group-line" data-state="running"' in executing
    assert 'id="t7-c1-group-line" data-state="running"' in done  # the second is still queued
    assert 'id="t7-c1-group-line" data-state="running"' in failed_run
    assert 'id="t7-c1-group-line" data-state="failed"' in failed
    assert "1 failed" in failed


def test_calls_announced_together_are_grouped_in_the_first_drawing() -> None:
    _, (announced,) = drawn(ToolCallsAnnounced((*READS, WRITE)))

    assert announced.count('class="tool-group"') == 1
    assert "Looked at 3 files" in announced
    group_part, rest = announced.split('id="t7-c1-group-cards"', 1)[1].split("</ol>", 1)
    assert re.findall(r'id="(t7-c\d)" data-state', group_part) == ["t7-c1", "t7-c2", "t7-c3"]
    assert re.findall(r'id="(t7-c\d)" data-state', rest) == ["t7-c4"]


# --- read back from the database ---------------------------------------------------------------


def tool_call(call: AnnouncedCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }


def store(conversation: Conversation, rounds: list[tuple[AnnouncedCall, ...]]) -> Message:
    """A turn whose model asked for `rounds` of calls, each answered."""
    user = services.message_user_create(
        conversation=conversation, sequence=1, text=STARTED.text, model=STARTED.model
    )
    sequences = itertools.count(2)
    for calls in rounds:
        services.message_create(
            conversation=conversation,
            sequence=next(sequences),
            role=Message.Role.ASSISTANT,
            tool_calls=[tool_call(call) for call in calls],
        )
        for call in calls:
            record = {"name": call.name, "ok": True, "summary": f"Did {call.path}"}
            services.message_create(
                conversation=conversation,
                sequence=next(sequences),
                role=Message.Role.TOOL,
                tool_call_id=call.id,
                content="{}",
                record=ToolRecord.from_stored(record),
            )
    return user


def runs_seen(view: TurnView) -> list[tuple[str, ...]]:
    shown: list[tuple[str, ...]] = []
    for run in view.blocks[0].runs:
        if isinstance(run, CardGroup):
            shown.append((run.dom_id, run.line, run.state, *(c.dom_id for c in run.cards)))
        else:
            shown.append((run.dom_id, run.category, run.visibility, run.state))
    return shown


ROUNDS = {
    "announced together": [(*READS, WRITE)],
    "one round each": [(call,) for call in (*READS, WRITE)],
}


@pytest.mark.django_db
@pytest.mark.parametrize("rounds", ROUNDS.values(), ids=ROUNDS.keys())
def test_a_reloaded_turn_folds_its_quiet_calls_as_the_live_one_did(
    project: Project, rounds: list[tuple[AnnouncedCall, ...]]
) -> None:
    conversation = services.conversation_create(project=project)
    user = store(conversation, rounds)
    live = TurnDrawing(TurnStarted(conversation.pk, user.pk, STARTED.model, STARTED.text))
    for calls in rounds:
        live.show(ToolCallsAnnounced(calls))
        for call in calls:
            for event in finished(call):
                live.show(event)
    live.show(Done("stop", "completed", len(rounds) + 1, None))

    (stored,) = stored_turns(conversation)

    assert [block.dom_id for block in stored.blocks] == [f"t{user.pk}-b1"]
    assert runs_seen(stored) == runs_seen(live.view)
    group, written = stored.blocks[0].runs
    assert isinstance(group, CardGroup)
    assert group.line == "Looked at 3 files"
    assert isinstance(written, ToolCard)
    assert (written.category, written.visibility) == ("write", "primary")
