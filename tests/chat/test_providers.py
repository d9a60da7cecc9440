"""One place says which client serves a model (chat.providers.client_for): the
offline demo's, in-process, for its own id while it is on; the provider's for
every other. The demo's client lists its model at no price, so a demo turn is
priced like any other, from the model list."""

from __future__ import annotations

from decimal import Decimal

from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent import budget
from chat.llm import get_client
from chat.providers import client_for, is_offline, model_label, offline_model
from demo.transport import DEMO_LABEL, DEMO_MODEL


async def test_the_demo_serves_its_own_model_and_the_provider_every_other() -> None:
    demo = client_for(DEMO_MODEL)

    assert demo is not get_client()
    assert demo is client_for(DEMO_MODEL)  # one per event loop, like the provider's
    assert client_for("openai/gpt-4o-mini") is get_client()


async def test_with_the_demo_off_its_id_goes_to_the_provider(settings: SettingsWrapper) -> None:
    settings.BUILTIT_DEMO_ENABLED = False

    assert client_for(DEMO_MODEL) is get_client()
    assert not is_offline(DEMO_MODEL)
    assert offline_model() == ""


async def test_the_demo_lists_its_model_at_no_price() -> None:
    catalog = await client_for(DEMO_MODEL).model_catalog()

    info = budget.model_info(catalog, DEMO_MODEL)
    assert info is not None
    assert (info.prompt_price, info.completion_price) == (Decimal(0), Decimal(0))


def test_the_picker_names_the_demo() -> None:
    assert offline_model() == DEMO_MODEL
    assert model_label(DEMO_MODEL) == DEMO_LABEL
    assert model_label("openai/gpt-4o-mini") == ""
