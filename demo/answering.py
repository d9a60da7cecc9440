"""The demo's one answer to a chat request, read from the request alone: a
summary of earlier turns when that is what is asked (chat.agent.compaction),
else a change to the site it built, else the planner's next step. Stateless, so
any number of turns and clients need nothing remembered; the in-process
provider (demo.transport) and the fake OpenRouter (fakes.demo) both serve it.
"""

from __future__ import annotations

from typing import Any

from demo.improving import improve_step
from demo.planner import next_step
from demo.steps import Step
from demo.summaries import demo_summary, is_summary_request


def demo_step(body: dict[str, Any]) -> Step:
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if is_summary_request(messages):
        return Step("Listing what was asked and changed.", demo_summary(messages))
    return improve_step(body) or next_step(body)
