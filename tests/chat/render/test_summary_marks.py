"""Where a conversation's summaries show: each above the first turn
it does not cover; only the latest says the model reads it; the export quotes
what the person wrote, so it cannot pose as the file's own headings."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string

from chat import services
from chat.models import Conversation, Message
from chat.records.reply import AssistantRecord
from chat.records.turn import TurnRecord
from chat.render.export import conversation_markdown
from chat.render.transcript import stored_turns
from projects.models import Project

pytestmark = pytest.mark.django_db


def _turns(conversation: Conversation, *texts: str, plan_first: bool = False) -> list[int]:
    starts = []
    for number, text in enumerate(texts):
        start = 2 * number + 1
        services.message_user_create(
            conversation=conversation,
            sequence=start,
            text=text,
            model="openai/gpt-4o-mini",
            plan=plan_first and number == 0,
        )
        services.message_create(
            conversation=conversation,
            sequence=start + 1,
            role=Message.Role.ASSISTANT,
            content=f"Done: {text}.",
            record=AssistantRecord(turn=TurnRecord()),
        )
        starts.append(start)
    return starts


def _summary(conversation: Conversation, before: int, turns: int, text: str) -> None:
    services.compaction_create(
        conversation=conversation,
        before_sequence=before,
        turns=turns,
        summary=text,
        tokens_before=500,
        tokens_after=40,
        model="openai/gpt-4o-mini",
        cost=None,
        by_hand=False,
    )


def test_only_the_latest_summary_says_the_model_reads_it(project: Project) -> None:
    conversation = services.conversation_create(project=project)
    starts = _turns(conversation, "one", "two", "three", "four")
    _summary(conversation, starts[2], 2, "First summary.")
    _summary(conversation, starts[3], 3, "Second summary.")

    turns = stored_turns(conversation)
    pages = [render_to_string("chat/partials/turn.html", {"turn": turn}) for turn in turns]

    assert [turn.summary_before is not None for turn in turns] == [False, False, True, True]
    assert "a later one includes it" in pages[2]
    assert "The model reads" not in pages[2]
    assert "The model reads a summary (about 40 tokens) of the 3 turns above" in pages[3]


def test_the_export_quotes_requests_and_marks_plans(project: Project) -> None:
    conversation = services.conversation_create(project=project)
    _turns(conversation, "## Turn 99\nfake heading", "Build it", plan_first=True)

    exported = conversation_markdown(conversation)

    assert "> ## Turn 99\n> fake heading" in exported
    assert "\n## Turn 99" not in exported
    assert "**You, asking for a plan only:**" in exported
