"""The chat's reads (chat.selectors): which messages make a turn, the next
sequence number, how a turn ended, what a dead turn had stored."""

from __future__ import annotations

import pytest

from chat import services
from chat.llm import Usage
from chat.models import Conversation, Message
from chat.records.reply import AssistantRecord, ReplyRecord
from chat.records.turn import TurnRecord, TurnStatus
from chat.selectors.conversations import conversation_usage, latest_answer, next_sequence
from chat.selectors.turns import turn_closed, turn_end, turn_messages, turn_of, turn_so_far
from projects.models import Project

pytestmark = pytest.mark.django_db


def add(conversation: Conversation, role: Message.Role, **fields: object) -> Message:
    sequence = next_sequence(conversation=conversation)
    if role == Message.Role.USER:
        return services.message_user_create(
            conversation=conversation, sequence=sequence, text=str(fields["content"]), model="m"
        )
    return services.message_create(
        conversation=conversation,
        sequence=sequence,
        role=role,
        **fields,  # type: ignore[arg-type]
    )


def closing(status: TurnStatus = "completed") -> AssistantRecord:
    return AssistantRecord(turn=TurnRecord(status=status, finish_reason="stop", iterations=1))


@pytest.fixture
def conversation(project: Project) -> Conversation:
    return services.conversation_create(project=project)


def test_sequence_numbers_start_at_one_and_follow_the_highest(conversation: Conversation) -> None:
    assert next_sequence(conversation=conversation) == 1
    services.message_create(conversation=conversation, sequence=7, role=Message.Role.USER)
    assert next_sequence(conversation=conversation) == 8


def test_a_turn_is_its_request_and_what_follows_up_to_the_next_request(
    conversation: Conversation, project: Project
) -> None:
    first = add(conversation, Message.Role.USER, content="Make a page")
    call = add(conversation, Message.Role.ASSISTANT, content="")
    result = add(conversation, Message.Role.TOOL, content="{}", tool_call_id="c1")
    answer = add(conversation, Message.Role.ASSISTANT, content="Done", record=closing())
    second = add(conversation, Message.Role.USER, content="And another")
    later = add(conversation, Message.Role.ASSISTANT, content="Sure", record=closing())

    assert list(turn_messages(turn=first)) == [first, call, result, answer]
    assert list(turn_messages(turn=second)) == [second, later]
    assert turn_end(turn=first) == second.sequence
    assert turn_end(turn=second) is None
    assert turn_of(project=project, message_id=result.pk) == first
    assert turn_of(project=project, message_id=later.pk) == second
    other = Project.objects.create(owner=project.owner, name="Another")
    assert turn_of(project=other, message_id=result.pk) is None


def test_how_a_turn_ended_is_read_from_its_own_closing_message(
    conversation: Conversation,
) -> None:
    unclosed = add(conversation, Message.Role.USER, content="Never finished")
    add(conversation, Message.Role.ASSISTANT, content="Working")
    closed = add(conversation, Message.Role.USER, content="Finished")
    answer = add(conversation, Message.Role.ASSISTANT, content="Done", record=closing("stopped"))

    assert turn_closed(request_id=unclosed.pk) is None  # not the next turn's end
    found = turn_closed(request_id=closed.pk)
    assert found is not None
    assert found.message_id == answer.pk
    assert found.record.status == "stopped"
    assert turn_closed(request_id=answer.pk) is None  # not a request


def test_what_a_turn_stored_before_its_server_died_adds_up_its_replies(
    conversation: Conversation,
) -> None:
    asked = add(conversation, Message.Role.USER, content="Build it")
    for tokens in (100, 250):
        usage = Usage(total_tokens=tokens, reasoning_tokens=tokens // 10)
        record = AssistantRecord(ReplyRecord(model="m", iteration=1, usage=usage))
        add(conversation, Message.Role.ASSISTANT, record=record)

    so_far = turn_so_far(conversation=conversation, first_sequence=asked.sequence)
    assert so_far is not None
    assert so_far.replies == 2
    assert (so_far.usage.total_tokens, so_far.usage.reasoning_tokens) == (350, 35)

    add(conversation, Message.Role.ASSISTANT, record=closing())
    assert turn_so_far(conversation=conversation, first_sequence=asked.sequence) is None


def test_conversation_usage_counts_a_closing_message_whose_record_is_broken(
    conversation: Conversation,
) -> None:
    add(conversation, Message.Role.USER, content="Hi")
    good = TurnRecord(usage=Usage(total_tokens=40))
    add(conversation, Message.Role.ASSISTANT, record=AssistantRecord(turn=good))
    add(conversation, Message.Role.USER, content="Again")
    garbled = {"turn": "garbled"}  # as no writer of ours stores it: a row written by hand
    Message.objects.create(
        conversation=conversation, sequence=4, role=Message.Role.ASSISTANT, metadata=garbled
    )

    usage = conversation_usage(conversation=conversation)
    assert (usage.turns, usage.tokens) == (2, 40)


def test_the_latest_answer_is_the_last_turns_closing_words(
    conversation: Conversation, project: Project, starter_project: Project
) -> None:
    assert latest_answer(project=project, conversation_id=conversation.pk) == ""
    add(conversation, Message.Role.USER, content="Build it")
    add(conversation, Message.Role.ASSISTANT, content="Done: built.", record=closing())
    add(conversation, Message.Role.USER, content="Add a page")
    add(conversation, Message.Role.ASSISTANT, content="Reading index.html.")  # not closing

    found = latest_answer(project=project, conversation_id=conversation.pk)
    assert found == "Done: built."
    assert latest_answer(project=starter_project, conversation_id=conversation.pk) == ""
