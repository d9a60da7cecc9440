"""Improve my request through the real endpoint and the fake
OpenRouter: the draft reaches the model with the rewriting prompt and the
project's files, the rewrite comes back without its wrapping, its cost is in
the person's ledger, and nothing is sent to the chat. A reached cap, a provider
that fails, an empty answer and someone else's project each give a clear
answer, and the first two ask the model nothing more."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import AsyncClient, Client
from pytest_django.fixtures import Settings as SettingsWrapper

from chat import services
from chat.agent import improving
from chat.agent.improving import cleaned
from chat.asks import IMPROVE_TASK
from chat.models import Charge, Message
from chat.personal_keys import key_save
from chat.records.reply import AssistantRecord
from chat.records.turn import TurnRecord
from fakes.openrouter import FakeOpenRouter
from fakes.script import DEFAULT_USAGE, HttpError, text
from projects.models import Membership, Project
from projects.services import Author, file_create
from projects.starter import STARTER_FILES

pytestmark = pytest.mark.django_db(transaction=True)

DRAFT = "make a site for my bakery"
REWRITE = (
    "Build a one-page site for my bakery, called [bakery name]: a menu with "
    "[prices], our story, and a contact section with [address] and [opening hours]."
)


@pytest.fixture
def provider(settings: SettingsWrapper, fake_openrouter: FakeOpenRouter) -> FakeOpenRouter:
    settings.OPENROUTER_BASE_URL = fake_openrouter.base_url
    settings.OPENROUTER_API_KEY = "sk-test"
    settings.OPENROUTER_MAX_RETRIES = 0
    settings.BUILTIT_DEFAULT_MODEL = "openai/gpt-4o-mini"
    return fake_openrouter


@pytest.fixture
async def owner(async_client: AsyncClient, user: User) -> AsyncClient:
    await async_client.aforce_login(user)
    return async_client


async def improve(
    client: AsyncClient, project: Project, draft: str = DRAFT, conversation: str = ""
) -> Any:
    fields = {"draft": draft, "model": "", "conversation": conversation}
    response = await client.post(f"/projects/{project.pk}/improve/", fields)
    return response.status_code, json.loads(response.content)


@sync_to_async
def answered(project: Project, answer: str) -> str:
    """A conversation of the project whose last turn ended with `answer`; its id."""
    conversation = services.conversation_create(project=project)
    services.message_create(
        conversation=conversation,
        sequence=1,
        role=Message.Role.ASSISTANT,
        content=answer,
        record=AssistantRecord(turn=TurnRecord(status="completed", finish_reason="stop")),
    )
    return str(conversation.pk)


def completions(fake: FakeOpenRouter) -> list[dict[str, Any]]:
    return [r.json for r in fake.requests if r.path.endswith("/chat/completions")]


async def test_the_draft_comes_back_rewritten_for_the_box_and_is_charged(
    provider: FakeOpenRouter, owner: AsyncClient, starter_project: Project, user: User
) -> None:
    wrapped = f"Here is the improved request:\n```text\n{REWRITE}\n```"
    provider.script(text(wrapped, usage={**DEFAULT_USAGE, "cost": 0.0012}))

    conversation = await answered(starter_project, "Done: the site is built.")

    status, answer = await improve(owner, starter_project, conversation=conversation)

    assert status == 200
    assert answer == {"text": REWRITE, "changed": True}
    (body,) = completions(provider)
    system, asked = body["messages"]
    assert system["role"] == "system"
    assert system["content"].startswith(IMPROVE_TASK)
    assert "placeholder in square brackets" in system["content"]
    assert "“Starter site”" in system["content"]
    assert "/index.html, /script.js, /styles.css" in system["content"]
    assert "last answer in this conversation: Done: the site is built." in system["content"]
    for path in ("/index.html", "/styles.css"):  # what a vague request is drawn from
        shown = f"--- {path} ---\n{STARTER_FILES[path]}\n--- end of {path} ---"
        assert shown in system["content"]
    assert "/script.js ---" not in system["content"]
    assert '"make it nicer"' in system["content"]
    assert asked == {"role": "user", "content": DRAFT}
    assert "tools" not in body
    assert body["max_tokens"] <= 2000
    rows = Charge.objects.values_list("user_id", "project_id", "cost")
    charges = [row async for row in rows]
    assert charges == [(user.pk, starter_project.pk, Decimal("0.0012"))]
    assert await Message.objects.acount() == 1, "nothing was sent to the chat"


async def test_a_long_home_page_is_shown_cut_and_a_picture_not_at_all(
    provider: FakeOpenRouter, owner: AsyncClient, project: Project, user: User
) -> None:
    long_page = "<p>" + "x" * (improving.SHOWN_CHARS + 500) + "</p>\n"
    await sync_to_async(file_create)(
        project=project, path="/home.html", content=long_page, author=Author.person(user)
    )
    provider.script(text(REWRITE))

    await improve(owner, project, "make it nicer")

    (body,) = completions(provider)
    system = body["messages"][0]["content"]
    cut = long_page[: improving.SHOWN_CHARS] + "\n[… the rest of the file is not shown]"
    assert f"--- /home.html ---\n{cut}\n--- end of /home.html ---" in system
    assert "--- /styles.css" not in system, "it has none"


async def test_a_reached_cap_says_so_and_asks_the_model_nothing(
    provider: FakeOpenRouter,
    owner: AsyncClient,
    starter_project: Project,
    user: User,
    settings: SettingsWrapper,
) -> None:
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal("1.00")
    await Charge.objects.acreate(
        user=user, project=starter_project, project_name="Starter site", cost=Decimal("1.20")
    )
    provider.script(text("Never asked"))

    status, answer = await improve(owner, starter_project)

    assert status == 422
    assert "daily spending limit ($1.20 of $1.00)" in answer["error"]
    assert completions(provider) == []
    assert await Charge.objects.acount() == 1


async def test_one_rewrite_at_a_time_per_person_and_a_second_asks_nothing(
    provider: FakeOpenRouter, owner: AsyncClient, starter_project: Project, user: User
) -> None:
    """The browser sends one; a script could send hundreds at once, each passing
    the caps before any is charged (a review found it), and a keyless local
    model costs nothing to ask."""
    provider.script(text(REWRITE))
    improving._WRITING.add(user.pk)  # as while one of theirs is being written
    try:
        status, answer = await improve(owner, starter_project)
    finally:
        improving._WRITING.discard(user.pk)

    assert (status, answer["code"]) == (422, "busy")
    assert "already being improved" in answer["error"]
    assert completions(provider) == []
    status, answer = await improve(owner, starter_project)  # free again once it is done
    assert (status, answer["text"]) == (200, REWRITE)


async def test_a_provider_that_fails_gives_a_clear_message(
    provider: FakeOpenRouter, owner: AsyncClient, starter_project: Project
) -> None:
    provider.script(HttpError(503, "upstream down"))

    status, answer = await improve(owner, starter_project)

    assert status == 422
    assert answer["code"] == "unavailable"
    assert answer["error"].startswith("The model provider is unavailable right now")
    assert "Traceback" not in answer["error"]
    assert not await Charge.objects.aexists()


async def test_an_empty_answer_says_so(
    provider: FakeOpenRouter, owner: AsyncClient, starter_project: Project
) -> None:
    provider.script(text("```\n```"))

    status, answer = await improve(owner, starter_project)

    assert status == 422
    assert answer["error"] == "The model answered with nothing; your request is as it was."


async def test_a_draft_left_as_it_was_says_so(
    provider: FakeOpenRouter, owner: AsyncClient, starter_project: Project
) -> None:
    provider.script(text(f"“{DRAFT}”"))

    assert await improve(owner, starter_project) == (200, {"text": DRAFT, "changed": False})


async def test_an_empty_or_too_long_draft_is_refused_before_any_request(
    provider: FakeOpenRouter,
    owner: AsyncClient,
    starter_project: Project,
    settings: SettingsWrapper,
) -> None:
    settings.BUILTIT_MAX_MESSAGE_CHARS = 50
    empty = await improve(owner, starter_project, "   ")
    long = await improve(owner, starter_project, "x" * 51)

    assert empty == (422, {"error": "Write a message first.", "code": "bad_message"})
    assert long[0] == 422
    assert "50" in long[1]["error"]
    assert completions(provider) == []


def test_only_the_owner_may_improve_and_only_by_post(
    provider: FakeOpenRouter,
    starter_project: Project,
    other_client: Client,
    user_client: Client,
) -> None:
    url = f"/projects/{starter_project.pk}/improve/"
    assert other_client.post(url, {"draft": DRAFT}).status_code == 404
    assert user_client.get(url).status_code == 405
    assert Client().post(url, {"draft": DRAFT}).status_code == 302  # to sign in
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(starter_project.owner)
    assert strict.post(url, {"draft": DRAFT}).status_code == 403
    assert completions(provider) == []


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        ("Build it.", "Build it."),
        ('"Build a site called Crumb."', "Build a site called Crumb."),
        ("“Build it.”", "Build it."),
        ('"Home" and "About" pages', '"Home" and "About" pages'),
        ("```\nBuild it.\n```", "Build it."),
        ("Rewritten request:\n\nBuild it.", "Build it."),
        ("Here's a plan: build it.", "Here's a plan: build it."),
    ],
)
def test_the_answer_loses_its_wrapping_and_nothing_else(answer: str, shown: str) -> None:
    assert cleaned(answer) == shown


async def test_a_rewrite_for_someone_the_project_is_shared_with_is_theirs_to_pay(
    provider: FakeOpenRouter, project: Project, user: User, other_user: User
) -> None:
    # Issue 45: the person who asks pays, with their own key, in a project
    # shared with them (the endpoint lets them in once it follows projects.access).
    await sync_to_async(Membership.objects.create)(project=project, user=other_user, role="editor")
    await sync_to_async(key_save)(user=other_user, raw="sk-or-v1-mallorys-key-0123456789")
    provider.script(text(REWRITE))
    done = await improving.draft_improve(
        project=project, user=other_user, draft=DRAFT, model="", conversation_id=None
    )
    assert isinstance(done, improving.Improved)
    assert (
        provider.requests[0].headers["authorization"] == "Bearer sk-or-v1-mallorys-key-0123456789"
    )
    assert await payers() == [other_user.pk]


@sync_to_async
def payers() -> list[int]:
    return list(Charge.objects.values_list("user_id", flat=True))
