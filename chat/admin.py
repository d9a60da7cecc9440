"""Staff views of conversations, their messages (read-only), spending per project,
the spending ledger and users' personal API keys (never the key itself)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django.contrib import admin
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery, Sum
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.text import Truncator

from chat.models import (
    AccessToken,
    Charge,
    Compaction,
    Conversation,
    Message,
    PersonalKey,
    PersonLimits,
    ProjectSpending,
)
from chat.money import dollars
from chat.records.reply import AssistantRecord
from chat.records.tool_calls import CallRecord
from common.admin import ReadOnlyAdmin

_PREVIEW = 160


def _cost(value: Decimal | None) -> str:
    return dollars(value) or "—"


class MessageInline(admin.TabularInline[Message, Conversation]):
    model = Message
    extra = 0
    can_delete = False
    ordering = ["sequence"]
    fields = ["sequence", "role", "sent_by", "text", "calls", "usage", "cost_display", "created_at"]
    readonly_fields = [
        "sequence",
        "role",
        "sent_by",
        "text",
        "calls",
        "usage",
        "cost_display",
        "created_at",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Message]:
        return super().get_queryset(request).select_related("sender")

    @admin.display(description="turn of")
    def sent_by(self, message: Message) -> str:
        # Whose turn it is part of, who paid for it (chat.spending); the owner's
        # for turns from before projects were shared.
        return message.sender.get_username() if message.sender is not None else ""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="content")
    def text(self, message: Message) -> str:
        shown = message.content or (f"[reasoning] {message.reasoning}" if message.reasoning else "")
        if message.tool_call_id:
            shown = f"[{message.tool_call_id}] {shown}"
        return Truncator(shown).chars(_PREVIEW)

    @admin.display(description="tool calls")
    def calls(self, message: Message) -> str:
        names = []
        for call in CallRecord.all_from(message.tool_calls):
            names.append(f"{call.name or '?'}({Truncator(call.arguments).chars(60)})")
        return "; ".join(names)

    @admin.display(description="usage")
    def usage(self, message: Message) -> str:
        record = AssistantRecord.from_stored(message.metadata)
        turn = record.turn
        parts = []
        if record.usage is not None:
            parts.append(f"{record.usage.total_tokens} tokens, {record.model}")
        if turn is not None:
            parts.append(
                f"turn {turn.status} ({turn.finish_reason}), "
                f"{turn.iterations} requests, turn cost {turn.cost or '—'}"
            )
            if turn.error is not None:
                parts.append(f"error: {json.dumps(turn.error.to_stored())}")
        return " · ".join(parts)

    @admin.display(description="cost")
    def cost_display(self, message: Message) -> str:
        return _cost(message.cost)


class CompactionInline(admin.TabularInline[Compaction, Conversation]):
    """Summaries of earlier turns the model read instead of them (chat.agent.compaction)."""

    model = Compaction
    extra = 0
    can_delete = False
    ordering = ["before_sequence"]
    fields = ("created_at", "turns", "before_sequence", "tokens", "by_hand", "model", "summary")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="tokens")
    def tokens(self, compaction: Compaction) -> str:
        return f"{compaction.tokens_before:,} → {compaction.tokens_after:,}"


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin[Conversation]):
    list_display = ["__str__", "project", "owner", "message_count", "cost_display", "updated_at"]
    list_select_related = ["project", "project__owner"]
    list_filter = ["updated_at"]
    search_fields = ["title", "project__name", "project__owner__username", "project__owner__email"]
    readonly_fields = ["project", "created_at", "updated_at", "cost_display"]
    fields = ["title", "project", "cost_display", "created_at", "updated_at"]
    date_hierarchy = "updated_at"
    inlines = [CompactionInline, MessageInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Conversation]:
        return (
            super()
            .get_queryset(request)
            .annotate(_messages=Count("messages"), _cost=Sum("messages__cost"))
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # conversations start from the chat, never empty from here

    @admin.display(description="owner", ordering="project__owner__username")
    def owner(self, conversation: Conversation) -> str:
        return conversation.project.owner.get_username()

    @admin.display(description="messages", ordering="_messages")
    def message_count(self, conversation: Conversation) -> int:
        return int(getattr(conversation, "_messages", 0))

    @admin.display(description="cost", ordering="_cost")
    def cost_display(self, conversation: Conversation) -> str:
        cost = getattr(conversation, "_cost", None)
        if cost is None and conversation.pk and not hasattr(conversation, "_cost"):
            cost = conversation.messages.aggregate(total=Sum("cost"))["total"]
        return _cost(cost)


@admin.register(ProjectSpending)
class ProjectSpendingAdmin(admin.ModelAdmin[ProjectSpending]):
    list_display = [
        "name",
        "owner",
        "conversation_count",
        "turn_count",
        "cost_display",
        "limits",
        "updated_at",
    ]
    list_select_related = ["owner"]
    search_fields = ["name", "owner__username", "owner__email"]
    fields = ["name", "owner", "cost_display", "turn_cost_limit", "project_cost_limit"]
    readonly_fields = ["name", "owner", "cost_display"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ProjectSpending]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                _conversations=Count("conversations", distinct=True),
                _turns=Count(
                    "conversations__messages",
                    filter=Q(conversations__messages__role=Message.Role.USER),
                    distinct=True,
                ),
                # From the ledger, like the caps (in a subquery: beside the counts'
                # joins, a sum would count each charge once per message).
                _cost=Subquery(
                    Charge.objects.filter(project=OuterRef("pk"))
                    .values("project")
                    .annotate(total=Sum("cost"))
                    .values("total")
                ),
            )
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # projects are deleted from the Projects page

    @admin.display(description="conversations", ordering="_conversations")
    def conversation_count(self, project: ProjectSpending) -> int:
        return int(getattr(project, "_conversations", 0))

    @admin.display(description="turns", ordering="_turns")
    def turn_count(self, project: ProjectSpending) -> int:
        return int(getattr(project, "_turns", 0))

    @admin.display(description="total cost", ordering="_cost")
    def cost_display(self, project: ProjectSpending) -> str:
        return _cost(getattr(project, "_cost", None))

    @admin.display(description="caps (turn / project)")
    def limits(self, project: ProjectSpending) -> str:
        def shown(value: Decimal | None) -> str:
            return "server default" if value is None else _cost(value)

        return format_html(
            "{} / {}", shown(project.turn_cost_limit), shown(project.project_cost_limit)
        )


@admin.register(Charge)
class ChargeAdmin(ReadOnlyAdmin[Charge]):
    """The spending ledger, read-only: what each model request cost, and who paid
    (the person who sent the turn, in their own project or one shared with
    them), kept when its project is deleted (the caps count it)."""

    list_display = ["created_at", "paid_by", "project_name", "cost_display"]
    list_filter = ["created_at"]
    list_select_related = ["user"]
    search_fields = ["user__username", "project_name"]
    fields = ["user", "project", "project_name", "message", "cost_display", "created_at"]
    readonly_fields = ["user", "project", "project_name", "message", "cost_display", "created_at"]
    date_hierarchy = "created_at"

    @admin.display(description="cost", ordering="cost")
    def cost_display(self, charge: Charge) -> str:
        return _cost(charge.cost)

    @admin.display(description="paid by (who asked)", ordering="user__username")
    def paid_by(self, charge: Charge) -> str:
        return charge.user.get_username()


@admin.register(PersonalKey)
class PersonalKeyAdmin(admin.ModelAdmin[PersonalKey]):
    """Who has their own key, read-only. Staff may delete one to revoke it; the
    ciphertext is never shown: it is useless to look at and a secret all the same."""

    list_display = ["user", "last_four", "updated_at"]
    list_select_related = ["user"]
    search_fields = ["user__username", "user__email"]
    fields = ["user", "last_four", "created_at", "updated_at"]
    readonly_fields = ["user", "last_four", "created_at", "updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # only the user can paste their key, on the Settings page

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin[AccessToken]):
    """Tokens by name and first characters only; deleting one revokes it."""

    list_display = ["name", "user", "prefix", "can_write", "created_at", "last_used_at"]
    list_filter = ["can_write", "created_at"]
    search_fields = ["name", "user__username"]
    readonly_fields = ["user", "name", "prefix", "can_write", "created_at", "last_used_at"]
    exclude = ["digest"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a token is made by its owner, who alone sees it


@admin.register(PersonLimits)
class PersonLimitsAdmin(admin.ModelAdmin[PersonLimits]):
    """One person's bounds instead of the server's (blank: the server's; 0: none)."""

    list_display = ["user", "daily_cost_limit", "monthly_cost_limit", "max_running_turns"]
    search_fields = ["user__username"]
    autocomplete_fields = ["user"]
