"""The follow-up chips under a turn: live, the streamed "Next:" line leaves the
answer when the turn ends and comes back as chips in its footer; after a reload,
the stored turn shows the same."""

from __future__ import annotations

import pytest

from chat import services
from chat.agent.events import ContentText, Done, TurnStarted
from chat.models import Message
from chat.records.reply import AssistantRecord
from chat.records.turn import TurnRecord
from chat.render.fragments import TurnDrawing
from chat.render.transcript import stored_turns
from projects.models import Project

ANSWER = "Crumb has its **page**."
SUGGESTIONS = ("Add a contact form", "Make the header <dark> green")
STARTED = TurnStarted(1, 7, "openai/gpt-5-mini", "A page for Crumb")


def chips(html: str) -> list[str]:
    return [part.split('"', 1)[0] for part in html.split('data-suggest="')[1:]]


def test_live_the_next_line_leaves_the_answer_and_becomes_chips() -> None:
    turn = TurnDrawing(STARTED)
    turn.start()
    # In pieces, as a model streams it: the length counted as it comes.
    streamed = turn.show(ContentText(ANSWER)) + turn.flush()
    streamed += turn.show(ContentText(f"\n\nNext: {' | '.join(SUGGESTIONS)}")) + turn.flush()
    assert "Next:" not in streamed  # held back: it would vanish when the turn ends
    ended = turn.show(Done("stop", "completed", 1, 9, suggestions=SUGGESTIONS))

    answer, footer = ended.split('<footer class="turn-footer', 1)
    assert "<strong>page</strong>" in answer
    assert "Next:" not in answer
    assert "Showing the first" not in answer  # the whole answer, not a cut one
    assert chips(footer) == ["Add a contact form", "Make the header &lt;dark&gt; green"]
    assert 'aria-label="What to ask next"' in footer


def test_a_turn_without_suggestions_has_no_chips() -> None:
    turn = TurnDrawing(STARTED)
    turn.start()
    turn.show(ContentText(ANSWER))
    assert "data-suggest" not in turn.show(Done("stop", "completed", 1, 9))


@pytest.mark.django_db
def test_after_a_reload_the_stored_turn_shows_the_same_chips(project: Project) -> None:
    conversation = services.conversation_create(project=project)
    services.message_user_create(
        conversation=conversation, sequence=1, text="A page for Crumb", model="openai/gpt-5-mini"
    )
    services.message_create(
        conversation=conversation,
        sequence=2,
        role=Message.Role.ASSISTANT,
        content=ANSWER,
        record=AssistantRecord(turn=TurnRecord(suggestions=SUGGESTIONS)),
    )
    (turn,) = stored_turns(conversation)
    assert turn.footer.suggestions == SUGGESTIONS
    assert [block.text for block in turn.blocks] == [ANSWER]
