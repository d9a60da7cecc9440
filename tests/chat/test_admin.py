"""Staff see conversations, their messages (read-only) and what each project has cost."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from chat.models import Compaction, Conversation, Message
from chat.records.reply import AssistantRecord
from chat.records.turn import TurnRecord
from chat.services import conversation_create, message_create
from projects.models import Project


@pytest.fixture
def conversation(project: Project) -> Conversation:
    talk = conversation_create(project=project, title="Bakery site")
    message_create(conversation=talk, sequence=1, role=Message.Role.USER, content="Build it")
    message_create(
        conversation=talk,
        sequence=2,
        role=Message.Role.ASSISTANT,
        tool_calls=[
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "create_file", "arguments": '{"path": "/index.html"}'},
            }
        ],
        record=AssistantRecord.from_stored(
            {"model": "openai/gpt-5-mini", "usage": {"total_tokens": 1234}}
        ),
        cost=Decimal("0.0125"),
    )
    message_create(
        conversation=talk,
        sequence=3,
        role=Message.Role.TOOL,
        tool_call_id="call_1",
        content='{"success": true}',
    )
    message_create(
        conversation=talk,
        sequence=4,
        role=Message.Role.ASSISTANT,
        content="Done: <b>your</b> site is ready.",
        record=AssistantRecord(
            turn=TurnRecord(status="completed", finish_reason="stop", iterations=2, cost="0.02")
        ),
        cost=Decimal("0.0075"),
    )
    return talk


def test_conversation_list_shows_project_owner_and_cost(
    admin_client: Client, conversation: Conversation
) -> None:
    page = admin_client.get(reverse("admin:chat_conversation_changelist")).content.decode()
    assert "Bakery site" in page
    assert "Empty site" in page
    assert "ada" in page
    assert "$0.02" in page


@pytest.mark.parametrize("query", ["Empty site", "ada", "Bakery"])
def test_conversations_are_searchable_by_project_owner_and_title(
    admin_client: Client, conversation: Conversation, query: str
) -> None:
    url = reverse("admin:chat_conversation_changelist")
    assert "Bakery site" in admin_client.get(url, {"q": query}).content.decode()
    assert "Bakery site" not in admin_client.get(url, {"q": "zzz-nothing"}).content.decode()


def test_conversation_page_lists_messages_read_only_with_tool_calls_usage_and_cost(
    admin_client: Client, conversation: Conversation
) -> None:
    url = reverse("admin:chat_conversation_change", args=[conversation.pk])
    page = admin_client.get(url).content.decode()
    assert "Build it" in page
    assert "create_file(" in page
    assert "1234 tokens" in page
    assert "$0.0125" in page
    assert "turn completed (stop)" in page
    # Model output is escaped, never rendered as HTML in the admin.
    assert "&lt;b&gt;your&lt;/b&gt;" in page
    assert 'name="messages-0-content"' not in page  # no editable message fields


def test_messages_cannot_be_added_or_changed_from_the_admin(
    admin_client: Client, conversation: Conversation
) -> None:
    url = reverse("admin:chat_conversation_change", args=[conversation.pk])
    admin_client.post(
        url,
        {
            "title": "Renamed",
            "messages-TOTAL_FORMS": "1",
            "messages-INITIAL_FORMS": "0",
            "messages-0-content": "forged",
            "messages-0-sequence": "9",
            "messages-0-role": "user",
        },
    )
    assert not Message.objects.filter(content="forged").exists()
    assert Message.objects.filter(conversation=conversation).count() == 4


def test_spending_per_project_totals_the_costs_of_all_its_conversations(
    admin_client: Client, conversation: Conversation, project: Project
) -> None:
    second = conversation_create(project=project, title="Second")
    message_create(
        conversation=second, sequence=1, role=Message.Role.ASSISTANT, cost=Decimal("1.5")
    )
    page = admin_client.get(reverse("admin:chat_projectspending_changelist")).content.decode()
    assert "Empty site" in page
    assert "$1.52" in page


def test_a_project_cost_cap_can_be_set_from_the_spending_page(
    admin_client: Client, project: Project
) -> None:
    url = reverse("admin:chat_projectspending_change", args=[project.pk])
    response = admin_client.post(url, {"turn_cost_limit": "0.25", "project_cost_limit": "5"})
    assert response.status_code == 302
    project.refresh_from_db()
    assert project.turn_cost_limit == Decimal("0.25")
    assert project.project_cost_limit == Decimal("5")


def test_conversation_page_shows_its_summaries_read_only(
    admin_client: Client, conversation: Conversation
) -> None:
    Compaction.objects.create(
        conversation=conversation,
        before_sequence=3,
        turns=1,
        summary="- The site: a <b>bakery</b>.",
        tokens_before=900,
        tokens_after=40,
        model="openai/gpt-4o-mini",
        by_hand=True,
    )
    url = reverse("admin:chat_conversation_change", args=[conversation.pk])
    page = admin_client.get(url).content.decode()
    assert "900 → 40" in page
    assert "- The site: a &lt;b&gt;bakery&lt;/b&gt;." in page
    assert 'name="compactions-0-summary"' not in page
