"""The provider's model list (`GET /models`), read for what each model takes in,
what it costs and how long its answers may be.

OpenRouter lists `architecture.input_modalities`, `pricing` (credits per
token, as decimal strings; "-1" for a router whose price varies),
`context_length` and `top_provider.max_completion_tokens`. A local server
lists less: vLLM names its context `max_model_len`, Ollama none. What a
model's entry does not say is None: the caller decides what that means.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from common.jsontypes import JSONObject, decoded_object

MAX_ENTRIES = 20_000
# A price per token above this is not a price (a unit mix-up, a hostile server).
_MAX_PRICE = Decimal(1)
_MAX_TOKENS = 100_000_000


@dataclass(frozen=True)
class ModelInfo:
    inputs: frozenset[str] | None = None  # "text", "image", …
    prompt_price: Decimal | None = None  # credits per prompt token
    completion_price: Decimal | None = None  # per answer token (reasoning included)
    request_price: Decimal = Decimal(0)  # per request, on top
    context_length: int | None = None  # prompt and answer together, in tokens
    max_answer_tokens: int | None = None  # the most the provider answers in one request

    @property
    def priced(self) -> bool:
        return self.prompt_price is not None and self.completion_price is not None


def catalog_from(body: bytes) -> dict[str, ModelInfo] | None:
    """Each listed model's entry; None when the body is not a model list."""
    listed = decoded_object(body)
    entries = listed.get("data") if isinstance(listed, dict) else None
    if not isinstance(entries, list):
        return None
    found: dict[str, ModelInfo] = {}
    for entry in entries[:MAX_ENTRIES]:
        model = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(entry, dict) and isinstance(model, str):
            found[model] = _info(entry)
    return found


def _info(entry: JSONObject) -> ModelInfo:
    architecture = _object(entry.get("architecture"))
    inputs = architecture.get("input_modalities")
    pricing = _object(entry.get("pricing"))
    provider = _object(entry.get("top_provider"))
    return ModelInfo(
        inputs=(
            frozenset(item for item in inputs if isinstance(item, str))
            if isinstance(inputs, list)
            else None
        ),
        prompt_price=_price(pricing.get("prompt")),
        completion_price=_price(pricing.get("completion")),
        request_price=_price(pricing.get("request")) or Decimal(0),
        context_length=_tokens(entry.get("context_length")) or _tokens(entry.get("max_model_len")),
        max_answer_tokens=_tokens(provider.get("max_completion_tokens")),
    )


def _object(value: object) -> JSONObject:
    return value if isinstance(value, dict) else {}


def _price(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        price = Decimal(str(value))
    except InvalidOperation:
        return None
    return price if price.is_finite() and 0 <= price <= _MAX_PRICE else None


def _tokens(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 < value <= _MAX_TOKENS else None
