"""The fake OpenRouter's answers when no test scripted one: the product's own
offline demo (demo.answering), spoken over the OpenRouter protocol under a
priced model's name, so a page shows a turn as it would with a real provider
(reasoning, text, tool calls in pieces, usage with a cost). One demo, served two
ways: in-process as `builtit/demo`, and here over HTTP.
"""

from __future__ import annotations

import json
from typing import Any

from demo.answering import demo_step
from fakes.script import RecordedRequest, Reply, Scripted, ToolCallScript, never_stops

MODEL = "openai/gpt-4o-mini"
# A model that ignores max_tokens and writes without end, to see the spending
# caps stop it (listed, with a price, in the fake's model list).
NEVER_STOPS = "builtit-test/never-stops"
# gpt-4o-mini's price per token, so the demo's costs look like the real ones.
PROMPT_PRICE = 0.15 / 1_000_000
COMPLETION_PRICE = 0.6 / 1_000_000


def demo_responder(request: RecordedRequest) -> Scripted:
    body: dict[str, Any] = request.json if isinstance(request.json, dict) else {}
    asked = body.get("model")
    model = asked if isinstance(asked, str) else MODEL
    if model == NEVER_STOPS:
        return never_stops()
    step = demo_step(body)
    calls = [ToolCallScript(name, arguments) for name, arguments in step.calls]
    written = len(step.reasoning) + len(step.content)
    written += sum(len(json.dumps(arguments)) for _, arguments in step.calls)
    prompt_tokens = max(1, len(request.body) // 4)
    completion_tokens = max(1, written // 4)
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "cost": round(prompt_tokens * PROMPT_PRICE + completion_tokens * COMPLETION_PRICE, 8),
        "completion_tokens_details": {"reasoning_tokens": 0},
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    # Small pauses and many pieces so a page shows the reply arriving live.
    return Reply(
        content=step.content,
        reasoning=step.reasoning or None,
        tool_calls=calls,
        usage=usage,
        model=model,
        content_pieces=8,
        argument_pieces=24,
        pause=0.01,
    )
