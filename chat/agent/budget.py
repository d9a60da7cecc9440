"""What one model request may cost: the answer tokens it asks for (`max_tokens`)
and the least it can cost, at the model's price from the provider's list.

A request asks for no more answer tokens than the tightest spending cap has
left pays for (after its prompt), and no more than the model answers or its
context holds; never fewer than MIN_ANSWER_TOKENS, since an answer cut short
is money spent for nothing. A turn sends another request with tools only
while what is left pays for its prompt and MIN_ANSWER_TOKENS (`reserve`);
otherwise it ends with one closing answer of at most MIN_ANSWER_TOKENS. So
spending passes a cap by at most that closing answer, plus the error of the
prompt's estimate. A model whose price the list does not give (a local
server, the list unreachable) asks for at most BUILTIT_MAX_ANSWER_TOKENS, and
its spending is counted as the provider reports it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal

from django.conf import settings

from chat.agent.prompt import estimate_tokens
from chat.llm import ChatMessage, ModelInfo, ToolSpec

MIN_ANSWER_TOKENS = 1024
# A picture as providers bill it, roughly: a megapixel image is about 1,600
# tokens (its data: URL's characters are not what is billed).
_IMAGE_TOKENS = 1600


def prompt_tokens(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> int:
    """An estimate of a request's prompt, in tokens."""
    total = estimate_tokens(json.dumps([tool.to_wire() for tool in tools]))
    for message in messages:
        calls = "".join(call.name + call.arguments for call in message.tool_calls)
        total += estimate_tokens((message.content or "") + calls)
        total += _IMAGE_TOKENS * len(message.images)
    return total


def answer_tokens(*, info: ModelInfo | None, prompt: int, left: Decimal | None) -> int:
    """`max_tokens` for a request with a prompt of `prompt` tokens, when the
    tightest cap has `left` credits (None: no cap applies)."""
    known = info or ModelInfo()
    ceiling = known.max_answer_tokens or settings.BUILTIT_MAX_ANSWER_TOKENS
    if known.context_length:
        ceiling = min(ceiling, known.context_length - prompt)
    price = known.completion_price
    if left is not None and known.priced and price:
        affordable = (left - _prompt_cost(known, prompt)) / price
        ceiling = min(ceiling, int(affordable))
    return max(MIN_ANSWER_TOKENS, ceiling)


def reserve(*, info: ModelInfo | None, prompt: int) -> Decimal:
    """The least a request with tools can cost: its prompt and MIN_ANSWER_TOKENS
    of answer (nothing known: nothing reserved)."""
    if info is None or not info.priced or info.completion_price is None:
        return Decimal(0)
    return _prompt_cost(info, prompt) + MIN_ANSWER_TOKENS * info.completion_price


def _prompt_cost(info: ModelInfo, prompt: int) -> Decimal:
    return prompt * (info.prompt_price or Decimal(0)) + info.request_price
