"""Storing one turn's messages in order, as the loop goes (DESIGN §2, §6 step 8).

Writes run in a pool thread; sequence numbers are reserved on the event loop.
Each tool result is stored at the number reserved when its call started,
after the assistant message that asked for it.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from chat import services, spending
from chat.llm import AssistantMessage, ToolCall
from chat.models import Conversation, Message
from chat.records.reply import AssistantRecord, ReplyRecord
from chat.records.tool_calls import CallRecord
from chat.records.tool_result import ToolRecord
from chat.records.turn import TurnRecord
from chat.selectors.conversations import next_sequence
from chat.tools import ToolOutcome
from common.jsontypes import JSONObject


class TurnRecorder:
    """The one owner of a running turn's sequence numbers (the first is
    chat.selectors.conversations.next_sequence) and the one writer of its messages.

    Numbers are reserved on the event loop (`reserve`), before the row is written
    in a pool thread: rows written at once (a draft reply, tool results, the
    closing message after an error) can never be given the same number.
    """

    def __init__(
        self, conversation: Conversation, model: str, *, sender_id: int | None = None
    ) -> None:
        self.conversation = conversation
        self.model = model
        # The person who sent the turn: each of its messages is theirs, and
        # theirs to pay for (chat.spending). None: the project's owner.
        self.sender_id = sender_id
        self._next = 0
        # The turn's spending hold (chat.agent.allowance), lowered by every cost
        # written, in the same transaction, and let go with the closing message.
        self.hold_id: int | None = None
        self._charged: dict[int, Decimal] = {}  # each message's cost as last written

    def begin(
        self,
        text: str,
        *,
        attachments: list[JSONObject] | None = None,
        images: list[int] | None = None,
        plan: bool = False,
    ) -> Message:
        """The person's message; runs before anything else of the turn."""
        self._next = next_sequence(conversation=self.conversation)
        return services.message_user_create(
            conversation=self.conversation,
            sequence=self.reserve(),
            text=text,
            model=self.model,
            attachments=attachments or [],
            images=images or [],
            plan=plan,
            sender_id=self.sender_id,
        )

    def reserve(self) -> int:
        number = self._next
        self._next += 1
        return number

    def store_reply(
        self,
        reply: AssistantMessage,
        at: Message | int,
        *,
        iteration: int,
        seconds: float | None,
    ) -> Message:
        """An assistant message with tool calls: created at a reserved number when
        its first call starts (so file changes can point to it), completed in its
        row when it ends."""
        record = ReplyRecord.of(reply, model=self.model, iteration=iteration, seconds=seconds)
        return self._write(
            at,
            content=reply.content,
            reasoning=reply.reasoning,
            tool_calls=[CallRecord.of(call).to_stored() for call in reply.tool_calls],
            record=AssistantRecord(record),
            cost=reply.usage.cost if reply.usage else None,
        )

    def store_tool_result(
        self, sequence: int, *, call: ToolCall, outcome: ToolOutcome, content: str, ms: float
    ) -> Message:
        return services.message_create(
            conversation=self.conversation,
            sequence=sequence,
            role=Message.Role.TOOL,
            content=content,
            tool_call_id=call.id,
            record=ToolRecord(call.name, outcome.ok, outcome.summary, round(ms, 2)),
            sender_id=self.sender_id,
        )

    def store_closing(
        self,
        at: Message | int,
        *,
        final: AssistantMessage | None,
        final_seconds: float | None,
        text: str,
        iteration: int,
        extra_cost: Decimal,
        turn: TurnRecord,
    ) -> Message:
        """The message that ends every turn: the answer (or what was shown of
        one), with the turn's outcome (its TurnRecord). `extra_cost` is
        what replies stored nowhere else cost (empty ones, and the estimates
        for answers whose cost was never reported). `at` is a reserved
        number, or the row of a reply that began storing but started no call."""
        reply = None
        cost = extra_cost or None
        if final is not None:
            reply = ReplyRecord.of(
                final, model=self.model, iteration=iteration, seconds=final_seconds
            )
            if final.usage and final.usage.cost is not None:
                cost = (cost or Decimal(0)) + final.usage.cost
        with transaction.atomic():
            closing = self._write(
                at,
                content=final.content if final is not None else text,
                reasoning=final.reasoning if final is not None else "",
                tool_calls=[],
                record=AssistantRecord(reply, turn),
                cost=cost,
            )
            if self.hold_id is not None:
                spending.hold_release(hold_id=self.hold_id)
        return closing

    def _write(
        self,
        at: Message | int,
        *,
        content: str,
        reasoning: str,
        tool_calls: list[JSONObject],
        record: AssistantRecord,
        cost: Decimal | None,
    ) -> Message:
        with transaction.atomic():
            if isinstance(at, int):
                message = services.message_create(
                    conversation=self.conversation,
                    sequence=at,
                    role=Message.Role.ASSISTANT,
                    content=content,
                    reasoning=reasoning,
                    tool_calls=tool_calls,
                    record=record,
                    cost=cost,
                    sender_id=self.sender_id,
                )
            else:
                message = services.message_update(
                    message=at,
                    content=content,
                    reasoning=reasoning,
                    tool_calls=tool_calls,
                    record=record,
                    cost=cost,
                )
            self._held_less(message, cost or Decimal(0))
        return message

    def _held_less(self, message: Message, cost: Decimal) -> None:
        """What reached the ledger is no longer held, or it would count twice."""
        before = self._charged.get(message.pk, Decimal(0))
        self._charged[message.pk] = cost
        if self.hold_id is not None:
            spending.hold_charged(hold_id=self.hold_id, cost=cost - before)
