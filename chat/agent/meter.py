"""What one answer costs as it streams (DESIGN §6, point 15): counted from its
text, reasoning and call arguments as they arrive, at the model's price and
three characters a token (chat.agent.budget, as an answer whose cost is never
reported is charged), and held against what the turn may still spend.

Counting is local: a few additions a piece (`passed`). Past the limit, the
meter holds more of what the caps shared with the person's other turns leave
(chat.agent.allowance: one step in the database, each twice the last), or
ends the answer with the words of the cap it passed (CostCapError); the
caller closes the stream at once. So whatever the provider does with
`max_tokens`, an answer passes a cap by at most the piece that crossed it.

A model whose price is not known at all (a local server, the provider's list
never read) is bounded by length instead: an answer past LENGTH_SLACK times
the tokens it asked for at most, counted the same way, is ended as too large.
A model priced at nothing is bounded only as every answer is
(BUILTIT_MAX_ANSWER_BYTES). A one-off answer (a summary, an improved request)
is bounded by that length whatever its price too: it is thrown away when cut,
so a model that ignores `max_tokens` would otherwise spend all the caps leave
(a whole day's, with a loose turn cap) on words nobody sees.
"""

from __future__ import annotations

import sys
from decimal import Decimal

from chat.agent import budget
from chat.agent.state import Spend
from chat.llm import (
    AnswerTooLargeError,
    ContentDelta,
    CostCapError,
    ReasoningDelta,
    StreamEvent,
    ToolCallDelta,
)

# Tokens are three characters here and more than three in most text (four in
# English prose), so an honest answer at its `max_tokens` is well within this.
LENGTH_SLACK = 3
_UNBOUNDED = sys.maxsize


class Meter:
    """One answer's cost so far, against what the turn may spend."""

    def __init__(
        self, spend: Spend, *, prompt_tokens: int, max_tokens: int, in_turn: bool = True
    ) -> None:
        info = spend.model_info
        self.spend = spend
        self.max_tokens = max_tokens
        # A turn's answer is kept when cut, and the words say so; a one-off's is not.
        self.in_turn = in_turn
        self.price = info.completion_price if info is not None and info.priced else None
        self.base = budget.prompt_cost(info, prompt_tokens) if info and self.price else Decimal(0)
        # The first step holds a quarter of the answer asked for (or a short one).
        self.step = (self.price or Decimal(0)) * max(budget.MIN_ANSWER_TOKENS, max_tokens // 4)
        self.chars = 0
        self.limit = self._limit()

    def passed(self, piece: StreamEvent) -> bool:
        """Count `piece`; whether the answer is now past what it may cost."""
        if isinstance(piece, ContentDelta | ReasoningDelta):
            self.chars += len(piece.text)
        elif isinstance(piece, ToolCallDelta):
            self.chars += len(piece.arguments) + len(piece.name or "")
        return self.chars > self.limit

    def cost(self) -> Decimal:
        """The answer so far, its prompt included, as it is charged if its cost
        is never reported."""
        if not self.price:
            return Decimal(0)
        return self.base + budget.answer_cost(self.chars, self.price)

    async def begin(self) -> None:
        """Before the request is sent: its prompt and a first step held, or
        CostCapError when what is left would not pay for its prompt."""
        allowance = self.spend.allowance
        if allowance is not None and self.price:
            headroom = allowance.headroom(self.spend.turn_cost())
            if headroom < self.base + self.step:
                await allowance.grow(self.base + self.step - headroom)
                self.step *= 2
            self.limit = self._limit()
        if self.chars > self.limit:
            raise CostCapError(self.spend.stopped_by(Decimal(0), writing=False))

    async def settle(self) -> None:
        """The answer passed its limit: hold more, or end it (CostCapError, or
        AnswerTooLargeError for a model without a price)."""
        if self.price is None or (not self.in_turn and self.chars > self._length()):
            raise AnswerTooLargeError(
                f"The model wrote far past the {self.max_tokens:,} tokens it was asked for at most"
            )
        spend = self.spend
        allowance = spend.allowance
        cost = self.cost()
        if allowance is not None and self._held_binds(cost):
            shortfall = cost - allowance.headroom(spend.turn_cost())
            await allowance.grow(shortfall + self.step)
            self.step *= 2
            self.limit = self._limit()
        if self.chars > self.limit:
            raise CostCapError(spend.stopped_by(cost, writing=self.in_turn))

    def _limit(self) -> int:
        """The characters of answer it may reach before `settle` is due."""
        if self.price is None:
            return self._length()
        room = self._room()
        money = (
            _UNBOUNDED
            if not self.price or room is None
            else budget.chars_within(room - self.base, self.price)
        )
        return money if self.in_turn else min(money, self._length())

    def _length(self) -> int:
        """The characters past which an answer is far longer than it was asked to be."""
        return budget.chars_of_tokens(self.max_tokens * LENGTH_SLACK)

    def _room(self) -> Decimal | None:
        """What the turn's own cap leaves and what it holds of the shared caps,
        the less of the two; None: neither applies."""
        spend = self.spend
        turn_cost = spend.turn_cost()
        rooms = []
        if spend.limits.turn_cost_limit:
            rooms.append(spend.limits.turn_cost_limit - turn_cost)
        if spend.allowance is not None:
            rooms.append(spend.allowance.headroom(turn_cost))
        return min(rooms, default=None)

    def _held_binds(self, cost: Decimal) -> bool:
        """Whether more held would let the answer go on: what it holds runs out
        before the turn's own cap does."""
        turn_cap = self.spend.limits.turn_cost_limit
        return not turn_cap or cost <= turn_cap - self.spend.turn_cost()
