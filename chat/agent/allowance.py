"""What a turn may still spend under the caps it shares with the person's other
turns: the project's, and the person's per day and per month (chat.spending's
holds). The turn's own cap is its own (chat.agent.state.Spend).

The turn reserves in steps what its answers may cost (`grow`, from the stream
meter: chat.agent.meter) and spends only what it holds, so turns running
side by side, in this process or another, never hold more than the caps leave
between them. Each step reads the ledger and the holds again, so the turn
stands against the caps as they were at its latest step. Opening, growing
and releasing are the only database work; the meter's count between steps is
local.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from chat import spending
from chat.agent.person_limits import PersonBudget, person_budget, person_caps
from common import threads

# A hold outlives the longest its turn can run by this much (its closing
# message, the site check), then counts no more: a crashed process's holds
# lapse by themselves.
_GRACE = timedelta(minutes=5)


@dataclass
class Allowance:
    hold_id: int
    user_id: int
    project_id: uuid.UUID | None
    caps: spending.Caps
    standing: spending.Standing
    lasts: timedelta
    released: bool = False

    @classmethod
    def open(
        cls, *, user_id: int, project_id: uuid.UUID, project_cap: Decimal | None, seconds: float
    ) -> Allowance | None:
        """The allowance of a turn that runs at most `seconds`; None when no cap
        is shared (nothing to hold). In a pool thread."""
        caps = person_caps(user_id=user_id, project_cap=project_cap)
        if not caps.any:
            return None
        lasts = timedelta(seconds=seconds) + _GRACE
        hold_id, standing = spending.hold_open(
            user_id=user_id, project_id=project_id, lasts=lasts, caps=caps
        )
        return cls(hold_id, user_id, project_id, caps, standing, lasts)

    async def grow(self, want: Decimal) -> Decimal:
        """Hold `want` more, or what the caps leave if less; what was held."""
        self.standing = await threads.run(
            spending.hold_grow,
            hold_id=self.hold_id,
            user_id=self.user_id,
            project_id=self.project_id,
            want=want,
            lasts=self.lasts,
            caps=self.caps,
        )
        return self.standing.step

    def headroom(self, turn_cost: Decimal) -> Decimal:
        """What the turn holds and has not spent (below nothing when the provider
        reported more than was held)."""
        return self.standing.granted - turn_cost

    def person(self) -> PersonBudget | None:
        if self.caps.day is None and self.caps.month is None:
            return None
        return person_budget(self.caps, self.standing)

    def project_before(self) -> Decimal:
        """What the project's spending and other holds come to, without this turn."""
        return self.standing.project

    async def release(self) -> None:
        """The hold let go, once the turn's costs are all in the ledger."""
        if not self.released:
            self.released = True
            await asyncio.shield(threads.run(spending.hold_release, hold_id=self.hold_id))
