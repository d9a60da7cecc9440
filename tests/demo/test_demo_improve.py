"""The offline demo's "Improve my request" (issue 30): through the real
endpoint it rewrites a draft the same way every time, naming the kind of site,
its sections with brackets to fill in, a tone and a look, at no cost; the
rewrite asks the demo for the same thing as the draft, and sent, it builds
what it says. A draft the demo does not understand comes back as it was."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import AsyncClient
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent.events import Done
from chat.agent.loop import TurnRequest, run_turn
from chat.demo.improving import improved
from chat.demo.intents import intent_of
from chat.demo.site import brief_from
from chat.demo.transport import DEMO_MODEL, demo_client
from chat.llm.config import OPENROUTER_URL
from chat.models import Charge
from projects.models import Project, ProjectFile
from tests.agent.turns import new_conversation

pytestmark = pytest.mark.django_db(transaction=True)

BAKERY = """Build a one-page website for my bakery, called [bakery name].

Sections:
- Menu: [what you sell, and what each costs]
- About: [who you are and how it began]
- Contact: [address, phone and email]

Tone: warm and welcoming; short sentences.
Look: warm cream and chocolate brown, with terracotta serif headings; easy to read on phones."""


async def test_the_demo_rewrites_a_draft_through_the_endpoint_at_no_cost(
    async_client: AsyncClient, user: User, project: Project, settings: SettingsWrapper
) -> None:
    settings.OPENROUTER_BASE_URL = OPENROUTER_URL  # no key for it: the demo is the default
    settings.OPENROUTER_API_KEY = ""
    await async_client.aforce_login(user)
    url = f"/projects/{project.pk}/improve/"

    first = await async_client.post(url, {"draft": "make a site for my bakery"})
    again = await async_client.post(
        url, {"draft": "make a site for my bakery", "model": DEMO_MODEL}
    )

    assert first.status_code == 200
    assert json.loads(first.content) == {"text": BAKERY, "changed": True}
    assert again.content == first.content
    assert not await Charge.objects.aexists()


@pytest.mark.parametrize(
    "draft",
    [
        "make a site for my bakery",
        "a portfolio site with a gallery and a blog",
        "Build a green website for Sunrise Bakery with reviews and opening hours",
        "website for our wedding",
        "landing page for my startup",
        "a site for my band called “The Loud Ones”",
        "i need a website",
    ],
)
def test_a_new_site_rewritten_asks_the_demo_for_the_same_site(draft: str) -> None:
    rewrite = improved(draft)
    wanted, found = brief_from(draft), brief_from(rewrite)

    assert intent_of(rewrite) == "build"
    assert (found.kind, set(found.sections)) == (wanted.kind, set(wanted.sections))
    assert found.name == wanted.name
    assert found.colour == wanted.colour, "the look's words ask for no colour of their own"
    assert "Tone: " in rewrite
    assert "Look: " in rewrite


FAQ = "[the questions people ask most, with answers]"


@pytest.mark.parametrize(
    ("draft", "rewrite"),
    [
        ("make the header green", "Make the header green, keeping its text easy to read."),
        ("background navy pls", "Make the background navy, keeping the text easy to read."),
        (
            "change the title to Fresh every day",
            "Change the main heading of the home page to “Fresh every day”.",
        ),
        ("add faq section", f"Add a FAQ section to the home page, with {FAQ}."),
        (
            "add an about page",
            "Add an about page, linked from the navigation of every page, "
            "with [what the about page should say].",
        ),
        ("hello, who are you?", "hello, who are you?"),
    ],
)
def test_a_small_change_is_said_the_way_the_demo_understands_it(draft: str, rewrite: str) -> None:
    assert improved(draft) == rewrite
    assert intent_of(rewrite) == intent_of(draft)


async def test_the_rewrite_sent_builds_what_it_says(project: Project) -> None:
    conversation = await new_conversation(project)
    client = demo_client()
    try:
        order = TurnRequest(project, conversation, improved("a site for my cafe"), DEMO_MODEL)
        events = [event async for event in run_turn(order, client=client)]
    finally:
        await client.aclose()

    assert isinstance(events[-1], Done)
    page = await sync_to_async(ProjectFile.objects.get)(project=project, path="/index.html")
    for heading in ("Menu", "Opening hours", "Contact"):
        assert f"<h2>{heading}</h2>" in page.content
