"""The provider's model list (GET /models), for the model picker."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from chat.llm.jsontypes import JSONValue, as_decimal, as_int, as_list, as_object, as_str


@dataclass(frozen=True, slots=True)
class ModelInfo:
    id: str
    name: str
    context_length: int | None = None
    # Credits per token, as the provider lists them; None when it does not say.
    prompt_price: Decimal | None = None
    completion_price: Decimal | None = None


def models_from_wire(body: JSONValue) -> list[ModelInfo]:
    models = []
    for raw in as_list(as_object(body).get("data")):
        entry = as_object(raw)
        model_id = as_str(entry.get("id"))
        if not model_id:
            continue
        pricing = as_object(entry.get("pricing"))
        models.append(
            ModelInfo(
                id=model_id,
                name=as_str(entry.get("name")) or model_id,
                context_length=as_int(entry.get("context_length")),
                prompt_price=_price(pricing.get("prompt")),
                completion_price=_price(pricing.get("completion")),
            )
        )
    return models


def _price(value: JSONValue) -> Decimal | None:
    price = as_decimal(value)
    return price if price is not None and price >= 0 else None
