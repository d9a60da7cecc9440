"""What one model request may cost: the answer tokens it asks for (`max_tokens`),
the least it can cost, and what one cost that the provider never reported.

A request asks for no more answer tokens than what the tightest spending cap
has left pays for (after its prompt), and no more than the model answers or
its context holds; never fewer than MIN_ANSWER_TOKENS, since an answer cut
short is money spent for nothing. A turn sends another request with tools
only while what is left pays for its prompt and MIN_ANSWER_TOKENS
(`reserve`); otherwise it ends with one closing answer of at most
MIN_ANSWER_TOKENS. Whatever the provider does with `max_tokens`, an answer's
cost is counted as it streams (chat.agent.meter, at `answer_cost`) and the
answer is stopped where it passes what the caps leave. An answer that ends
before the provider reports its cost (stopped, cut off, asked again) is
counted at the same estimate (`unreported_cost`), so stopping a turn cannot
dodge the caps.

Prices come from the provider's list (chat.llm.catalog). A model the list
does not price, while it prices others (an unlisted id, a router whose price
varies), is counted at the dearest listed price, so the bound holds for it
too; with no prices at all (a local server, the list never read) a request
asks for at most BUILTIT_MAX_ANSWER_TOKENS, its cost is what the provider
reports, and its answer is bounded by length instead (chat.agent.meter).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from decimal import Decimal

from django.conf import settings

from chat.llm import ChatMessage, ModelInfo, ToolSpec, Usage

MIN_ANSWER_TOKENS = 1024
# Estimates count tokens high: about four characters make a token of English
# prose, three of code or JSON, fewer of other scripts. Counting three, and
# two against the context (where a request that does not fit is refused), a
# request's cost is rarely underestimated and its max_tokens rarely too large.
_CHARS_PER_TOKEN = 3
_CONTEXT_CHARS_PER_TOKEN = 2
_MESSAGE_OVERHEAD_TOKENS = 4
# A picture as providers bill it, roughly: a megapixel image is about 1,600
# tokens (its data: URL's characters are not what is billed).
_IMAGE_TOKENS = 1600


def model_info(catalog: Mapping[str, ModelInfo] | None, model: str) -> ModelInfo | None:
    """What the provider's list says of `model`: its own entry, or its base id's
    (OpenRouter's variants, "vendor/model:nitro"); priced, when the list prices
    any model, at the dearest listed price if its entry has none."""
    if catalog is None:
        return None
    info = catalog.get(model) or catalog.get(model.partition(":")[0]) or ModelInfo()
    if info.priced:
        return info
    priced = [entry for entry in catalog.values() if entry.priced]
    if not priced:
        return info if info != ModelInfo() else None
    return ModelInfo(
        inputs=info.inputs,
        prompt_price=max(entry.prompt_price or Decimal(0) for entry in priced),
        completion_price=max(entry.completion_price or Decimal(0) for entry in priced),
        request_price=max(entry.request_price for entry in priced),
        context_length=info.context_length,
        max_answer_tokens=info.max_answer_tokens,
    )


def prompt_tokens(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> int:
    """An estimate of a request's prompt, in tokens, counted high."""
    return _tokens(_prompt_chars(messages, tools), _CHARS_PER_TOKEN) + _IMAGE_TOKENS * sum(
        len(message.images) for message in messages
    )


def answer_tokens(*, info: ModelInfo | None, prompt: int, left: Decimal | None) -> int:
    """`max_tokens` for a request with a prompt of `prompt` tokens (as
    `prompt_tokens` counts them), when the tightest cap has `left` credits
    (None: no cap applies)."""
    known = info or ModelInfo()
    ceiling = known.max_answer_tokens or settings.BUILTIT_MAX_ANSWER_TOKENS
    if known.context_length:
        # The prompt counted higher still: a request past the context is refused.
        in_context = prompt * _CHARS_PER_TOKEN // _CONTEXT_CHARS_PER_TOKEN
        ceiling = min(ceiling, known.context_length - in_context)
    price = known.completion_price
    if left is not None and known.priced and price:
        affordable = (left - prompt_cost(known, prompt)) / price
        ceiling = min(ceiling, int(affordable))
    return max(MIN_ANSWER_TOKENS, ceiling)


def reserve(*, info: ModelInfo | None, prompt: int) -> Decimal:
    """The least a request with tools can cost: its prompt and MIN_ANSWER_TOKENS
    of answer (nothing known: nothing reserved)."""
    if info is None or not info.priced or info.completion_price is None:
        return Decimal(0)
    return prompt_cost(info, prompt) + MIN_ANSWER_TOKENS * info.completion_price


def unreported_cost(
    *, info: ModelInfo | None, prompt: int, written: int, usage: Usage | None
) -> Decimal:
    """What an answer the provider reported no cost for cost, at the model's
    price: its prompt and what it wrote (`written` characters), or the tokens
    it did report. Nothing when the model's price is not known."""
    price = info.completion_price if info is not None else None
    if info is None or not info.priced or price is None:
        return Decimal(0)
    if usage is not None and usage.total_tokens:
        return prompt_cost(info, usage.prompt_tokens) + usage.completion_tokens * price
    return prompt_cost(info, prompt) + answer_cost(written, price)


def cut_short_cost(
    *, info: ModelInfo | None, prompt: int, written: int, usage: Usage | None
) -> Decimal:
    """What an answer that ended early (stopped, cut off, capped, to be asked
    again) cost when the provider did not say: its estimate, or nothing for one
    that never began (a request refused is not billed)."""
    if (usage is not None and usage.cost is not None) or not (written or usage):
        return Decimal(0)
    return unreported_cost(info=info, prompt=prompt, written=written, usage=usage)


def answer_cost(chars: int, price: Decimal) -> Decimal:
    """`chars` characters of answer (text, reasoning, calls) at `price` a token."""
    return _tokens(chars, _CHARS_PER_TOKEN) * price


def chars_within(amount: Decimal, price: Decimal) -> int:
    """The most characters of answer whose `answer_cost` stays within `amount`
    (below nothing when `amount` is)."""
    return _CHARS_PER_TOKEN * math.floor(amount / price)


def chars_of_tokens(tokens: int) -> int:
    return tokens * _CHARS_PER_TOKEN


# By part, for the context gauge (chat.agent.context): counted as prompt_tokens
# counts them, so the parts add up to it (within rounding).


def chars_tokens(chars: int) -> int:
    return _tokens(chars, _CHARS_PER_TOKEN)


def message_tokens(message: ChatMessage) -> int:
    """A message's words and calls (its pictures: image_tokens)."""
    return chars_tokens(_prompt_chars([message], []))


def tools_tokens(tools: Sequence[ToolSpec]) -> int:
    return chars_tokens(_prompt_chars([], tools)) if tools else 0


def image_tokens(count: int) -> int:
    return _IMAGE_TOKENS * count


def prompt_cost(info: ModelInfo, prompt: int) -> Decimal:
    """A request's prompt of `prompt` tokens (as `prompt_tokens` counts them), at
    the model's price."""
    return prompt * (info.prompt_price or Decimal(0)) + info.request_price


def _prompt_chars(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec]) -> int:
    chars = len(json.dumps([tool.to_wire() for tool in tools])) if tools else 0
    for message in messages:
        chars += len(message.content or "") + _MESSAGE_OVERHEAD_TOKENS * _CHARS_PER_TOKEN
        chars += sum(len(call.name) + len(call.arguments) for call in message.tool_calls)
    return chars


def _tokens(chars: int, per_token: int) -> int:
    return math.ceil(chars / per_token)
