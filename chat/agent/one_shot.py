"""One model request without tools, outside a turn's rounds: a summary of
earlier turns (chat.agent.compaction), a draft rewritten ("Improve my
request"). The same model, key, caps and bounds as a turn's requests.

    answer = await ask_once(project=p, user_id=u, model=m, api_key=k, messages=[...],
                            max_tokens=800, seconds=60)
    if isinstance(answer, AskRefused): ...   # a cap is reached, or the provider failed

Within a turn, the turn's `Spend` is passed and the answer's usage is added to
it (the turn's closing message carries its cost into the ledger). Alone, its
cost is written to the ledger at once (chat.spending.charge_alone).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from decimal import Decimal

from chat import spending
from chat.agent import budget
from chat.agent.allowance import Allowance
from chat.agent.failures import INTERNAL_ERROR, error_event
from chat.agent.limits import TurnLimits
from chat.agent.meter import Meter
from chat.agent.state import Spend
from chat.llm import (
    ChatMessage,
    ChatRequest,
    LLMClient,
    LLMError,
    MessageAssembler,
    ModelInfo,
    ModelParameters,
    Usage,
)
from chat.providers import client_for
from common import threads
from common.refusals import Refusal
from projects.models import Project

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    text: str
    usage: Usage
    cost: Decimal  # as reported, or estimated at the model's price when not


@dataclass(frozen=True)
class AskRefused(Refusal):
    """Why there is no answer, in words a person reads; `code` as ErrorEvent's."""

    code: str


async def ask_once(
    *,
    project: Project,
    model: str,
    api_key: str | None,
    messages: list[ChatMessage],
    max_tokens: int,
    seconds: float,
    spend: Spend | None = None,
    client: LLMClient | None = None,
    payer_id: int | None = None,
) -> Answer | AskRefused:
    """The model's answer to `messages`, at most `max_tokens` long, within
    `seconds`; or why not. Never raises for a failure we can foresee. Alone,
    it is held against and charged to `payer_id`'s caps and ledger (the person
    who asked), or the project owner's when None."""
    chosen = client or client_for(model)
    alone = spend is None
    payer = project.owner_id if payer_id is None else payer_id
    try:
        if spend is None:
            spend = await threads.run(_spend_alone, project, seconds, payer)
            spend.model_info = await _model_info(chosen, model, api_key)
        wanted = _Wanted(model, api_key, messages, max_tokens, seconds)
        answer = await _ask(chosen, spend, wanted)
    except asyncio.CancelledError:
        # The person left while it was written: what it cost so far (estimated)
        # still counts, so leaving cannot dodge the caps.
        if alone and spend is not None:
            await asyncio.shield(_charged_alone(project, spend, payer))
        raise
    if alone:
        await _charged_alone(project, spend, payer)
    return answer


@dataclass(frozen=True)
class _Wanted:
    model: str
    api_key: str | None
    messages: list[ChatMessage]
    max_tokens: int
    seconds: float


async def _ask(client: LLMClient, spend: Spend, wanted: _Wanted) -> Answer | AskRefused:
    model, api_key, messages = wanted.model, wanted.api_key, wanted.messages
    cap = spend.cap_reached(messages, [])
    if cap:
        return AskRefused(cap, code="cost_limit")
    prompt = budget.prompt_tokens(messages, [])
    ceiling = budget.answer_tokens(info=spend.model_info, prompt=prompt, left=spend.left())
    max_tokens = min(wanted.max_tokens, ceiling)
    request = ChatRequest(model, messages, parameters=ModelParameters(max_tokens=max_tokens))
    assembler = MessageAssembler()
    meter = Meter(spend, prompt_tokens=prompt, max_tokens=max_tokens, in_turn=False)
    ended = False
    try:
        async with (
            asyncio.timeout(wanted.seconds),
            client.stream(request, api_key=api_key) as pieces,
        ):
            await meter.begin()
            async for piece in pieces:
                assembler.add(piece)
                if meter.passed(piece):
                    await meter.settle()  # raises to close the stream
        ended = True
    except TimeoutError:
        return AskRefused(
            f"The model took longer than {round(wanted.seconds)} seconds.", code="too_slow"
        )
    except LLMError as error:
        has_key = bool(api_key or client.config.api_key)
        event = error_event(error, model=model, has_key=has_key, attempts=1)
        return AskRefused(event.message, code=event.code)
    except Exception:
        logger.exception("A one-off request to %s failed", model)
        return AskRefused(INTERNAL_ERROR.message, code=INTERNAL_ERROR.code)
    finally:
        if not ended:
            # Stopped, cut off or refused part way: what it wrote is counted at an estimate.
            spend.estimated_cost += budget.cut_short_cost(
                info=spend.model_info,
                prompt=prompt,
                written=assembler.written,
                usage=assembler.usage,
            )
    return _answered(spend, assembler, prompt)


def _answered(spend: Spend, assembler: MessageAssembler, prompt: int) -> Answer:
    reply = assembler.message()
    usage = reply.usage or Usage()
    cost = usage.cost
    if cost is None:
        cost = budget.unreported_cost(
            info=spend.model_info, prompt=prompt, written=len(reply.content), usage=reply.usage
        )
    # Counted against the turn's caps; its cost reaches the ledger with the
    # turn's closing message (extra_cost), as an empty reply's does.
    spend.usage = spend.usage + usage
    if usage.cost is None:
        spend.estimated_cost += cost
    else:
        spend.unstored_cost += cost
    return Answer(reply.content.strip(), usage, cost)


def _spend_alone(project: Project, seconds: float, payer_id: int) -> Spend:
    """The caps as a turn starting now would find them (the turn cap bounds
    this one request)."""
    limits = TurnLimits.for_project(project)
    spend = Spend(limits)
    spend.allowance = Allowance.open(
        user_id=payer_id,
        project_id=project.pk,
        project_cap=limits.project_cost_limit,
        seconds=seconds,
    )
    return spend


async def _charged_alone(project: Project, spend: Spend, payer_id: int) -> None:
    """A one-off's cost in the ledger, and its hold let go, together."""
    allowance = spend.allowance
    await threads.run(
        spending.charge_alone,
        project_id=project.pk,
        owner_id=payer_id,
        cost=spend.turn_cost(),
        hold_id=allowance.hold_id if allowance is not None else None,
    )
    if allowance is not None:
        allowance.released = True


async def _model_info(client: LLMClient, model: str, api_key: str | None) -> ModelInfo | None:
    catalog = await client.model_catalog(api_key=api_key)
    return budget.model_info(catalog, model)
