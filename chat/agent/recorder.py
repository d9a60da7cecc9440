"""Storing one turn's messages in order, as the loop goes (DESIGN §2, §6 step 8).

Runs in a pool thread. Sequence numbers are handed out here; the tool runner
stores each tool result at the number reserved for it, right after the
assistant message that asked for it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from chat import services
from chat.agent import records
from chat.llm import AssistantMessage
from chat.models import Conversation, Message


class TurnRecorder:
    def __init__(self, conversation: Conversation, model: str) -> None:
        self.conversation = conversation
        self.model = model
        self.sequence = 0  # the next free sequence number

    def begin(self, text: str) -> Message:
        self.sequence = services.next_sequence(self.conversation)
        message = services.message_user_create(
            conversation=self.conversation, sequence=self.sequence, text=text, model=self.model
        )
        self.sequence += 1
        return message

    def store_reply(
        self,
        reply: AssistantMessage,
        row: Message | None,
        *,
        iteration: int,
        seconds: float | None,
    ) -> Message:
        """An assistant message with tool calls: created when its first call
        starts (so file changes can point to it), completed when it ends."""
        metadata = records.reply_metadata(
            reply, model=self.model, iteration=iteration, seconds=seconds
        )
        calls = [call.to_wire() for call in reply.tool_calls]
        cost = reply.usage.cost if reply.usage else None
        if row is not None:
            services.message_update(
                message_id=row.pk,
                content=reply.content,
                reasoning=reply.reasoning,
                tool_calls=calls,
                metadata=metadata,
                cost=cost,
            )
            return row
        return self._add(
            content=reply.content,
            reasoning=reply.reasoning,
            tool_calls=calls,
            metadata=metadata,
            cost=cost,
        )

    def store_closing(
        self,
        *,
        final: AssistantMessage | None,
        final_seconds: float | None,
        text: str,
        iteration: int,
        extra_cost: Decimal,
        turn: dict[str, Any],
    ) -> Message:
        """The message that ends every turn: the answer (or what was shown of
        one), with the turn's outcome in `metadata["turn"]`. `extra_cost` is
        what replies stored nowhere else cost (empty ones)."""
        metadata: dict[str, Any] = {}
        cost = extra_cost or None
        if final is not None:
            metadata = records.reply_metadata(
                final, model=self.model, iteration=iteration, seconds=final_seconds
            )
            if final.usage and final.usage.cost is not None:
                cost = (cost or Decimal(0)) + final.usage.cost
        metadata["turn"] = turn
        return self._add(
            content=final.content if final is not None else text,
            reasoning=final.reasoning if final is not None else "",
            metadata=metadata,
            cost=cost,
        )

    def _add(self, **fields: Any) -> Message:
        message = services.message_create(
            conversation=self.conversation,
            sequence=self.sequence,
            role=Message.Role.ASSISTANT,
            **fields,
        )
        self.sequence += 1
        return message
