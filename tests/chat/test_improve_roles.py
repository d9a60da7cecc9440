"""Improve my request on a shared project: an editor asks and pays (their
ledger, not the owner's); a viewer is refused in words and the model is not asked."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import AsyncClient
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.models import Charge
from fakes.openrouter import FakeOpenRouter
from fakes.script import DEFAULT_USAGE, text
from projects.models import Membership, Project

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def provider(settings: SettingsWrapper, fake_openrouter: FakeOpenRouter) -> FakeOpenRouter:
    settings.OPENROUTER_BASE_URL = fake_openrouter.base_url
    settings.OPENROUTER_API_KEY = "sk-test"
    settings.OPENROUTER_MAX_RETRIES = 0
    settings.BUILTIT_DEFAULT_MODEL = "openai/gpt-4o-mini"
    return fake_openrouter


async def _member(project: Project, role: str) -> tuple[User, AsyncClient]:
    person = await User.objects.acreate_user(role, f"{role}@example.com", "pw-for-tests-1")
    await Membership.objects.acreate(project=project, user=person, role=role)
    client = AsyncClient()
    await client.aforce_login(person)
    return person, client


async def _improve(client: AsyncClient, project: Project) -> tuple[int, Any]:
    fields = {"draft": "make a site for my bakery", "model": "", "conversation": ""}
    response = await client.post(f"/projects/{project.pk}/improve/", fields)
    return response.status_code, json.loads(response.content) if response.status_code == 200 else (
        response.content.decode()
    )


async def test_an_editor_s_rewrite_is_charged_to_the_editor(
    provider: FakeOpenRouter, starter_project: Project
) -> None:
    provider.script(text("Build a bakery site.", usage={**DEFAULT_USAGE, "cost": 0.0012}))
    editor, client = await _member(starter_project, "editor")
    status, answer = await _improve(client, starter_project)
    assert status == 200, answer
    rows = Charge.objects.values_list("user_id", "cost")
    assert [row async for row in rows] == [(editor.pk, Decimal("0.0012"))]


async def test_a_viewer_may_not_ask_for_a_rewrite(
    provider: FakeOpenRouter, starter_project: Project
) -> None:
    _, client = await _member(starter_project, "viewer")
    status, said = await _improve(client, starter_project)
    assert status == 403
    assert "Viewers cannot chat with the assistant." in said
    assert not [r for r in provider.requests if r.path.endswith("/chat/completions")]
    assert not await Charge.objects.aexists()
