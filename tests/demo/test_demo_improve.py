"""The offline demo's "Improve my request": through the real
endpoint it rewrites a draft the same way every time, naming the kind of site,
its sections with brackets to fill in, a tone and a look, at no cost; the
rewrite asks the demo for the same thing as the draft, and sent, it builds
what it says. A vague wish ("make it nicer") becomes one or two changes drawn
from the site the request shows, which sent change it; a new site where there
is none. Any other draft the demo does not understand comes back as it was."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import AsyncClient
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent.events import Done
from chat.agent.loop import TurnRequest, run_turn
from chat.llm.config import OPENROUTER_URL
from chat.models import Charge
from demo.holds import Site
from demo.improving import improved
from demo.intents import intent_of
from demo.parts import parts_of
from demo.site import brief_from, site_files
from demo.tones import tone_asked
from demo.transport import DEMO_MODEL, demo_client
from demo.vague import is_vague
from projects.models import Project, ProjectFile
from tests.chat.agent.turns import new_conversation
from tests.demo.turns import CRUMB, answer, done, files, new_project, person_writes, turn

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
            "add an opening hours section",
            "Add an opening hours section to the home page, with "
            "[the days and times you are open].",
        ),
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


@pytest.mark.parametrize(
    ("draft", "opening"),
    [
        (
            "make a page for my dog walking business",
            "Build a one-page website for my dog walking business, called [business name].",
        ),
        ("make a site for my bakery", "Build a one-page website for my bakery, called"),
        (
            "portfolio for a photographer",
            "Build a one-page portfolio website for a photographer, called [your name].",
        ),
        ("i need a website for my wedding", "Build a one-page website for my wedding, called"),
        ("website for our wedding", "Build a one-page website for our wedding, called"),
        ("add a contact page", "Add a contact page, linked from the navigation"),
        ("add faq section", "Add a FAQ section to the home page"),
    ],
)
def test_a_rewrite_reads_as_good_english(draft: str, opening: str) -> None:
    rewrite = improved(draft)

    assert rewrite.startswith(opening)
    assert intent_of(rewrite) == intent_of(draft)
    for slip in (" an a ", " a a ", " an an ", "the a ", " my my ", " a an "):
        assert slip not in f" {rewrite.lower()} ", slip


def test_a_page_for_a_business_is_a_site() -> None:
    draft = "make a page for my dog walking business"

    assert intent_of(draft) == "build"
    assert brief_from(improved(draft)).kind == "business"


@pytest.mark.parametrize(
    ("draft", "kept"),
    [
        (
            "make the header purple and add a FAQ section",
            [
                "Make the header purple, keeping its text easy to read.",
                f"Add a FAQ section to the home page, with {FAQ}.",
            ],
        ),
        (
            "add testimonials and a pricing page",
            [
                "Add a testimonials section to the home page, with",
                "Add a pricing page, linked from the navigation of every page",
            ],
        ),
        (
            "make the header purple and make it sparkle",
            ["Make the header purple, keeping its text easy to read.", "Make it sparkle."],
        ),
    ],
)
def test_a_rewrite_keeps_every_part_of_the_draft(draft: str, kept: list[str]) -> None:
    rewrite = improved(draft)

    lines = rewrite.splitlines()
    assert len(lines) == len(kept)
    for line, wanted in zip(lines, kept, strict=True):
        assert line.startswith(wanted)
    assert [intent_of(part) for part in parts_of(rewrite)] == [
        intent_of(part) for part in parts_of(draft)
    ]


def test_a_tone_draft_asks_for_the_same_tone() -> None:
    rewrite = improved("make the tone friendlier")

    assert intent_of(rewrite) == "tone"
    assert tone_asked(rewrite) == "friendly"


# --- a vague wish, on a site that is there ----------------------------------------------

VAGUE = ["make it nicer", "better", "improve the site", "fix the design", "looks boring"]


@pytest.fixture
def keyless(settings: SettingsWrapper) -> None:
    settings.OPENROUTER_BASE_URL = OPENROUTER_URL  # no key for it: the demo is the default
    settings.OPENROUTER_API_KEY = ""


async def improve(client: AsyncClient, project: Project, draft: str) -> dict[str, object]:
    response = await client.post(f"/projects/{project.pk}/improve/", {"draft": draft})
    assert response.status_code == 200, response.content
    answered = json.loads(response.content)
    assert isinstance(answered, dict)
    return answered


async def test_a_vague_wish_becomes_changes_drawn_from_the_site_that_sent_change_it(
    async_client: AsyncClient, user: User, starter_project: Project, keyless: None
) -> None:
    await async_client.aforce_login(user)
    await turn(starter_project, await new_conversation(starter_project), CRUMB)
    built = await files(starter_project)

    rewrites = {draft: await improve(async_client, starter_project, draft) for draft in VAGUE}

    for draft, rewrite in rewrites.items():
        assert rewrite["changed"] is True, draft
        text = str(rewrite["text"])
        assert text != draft
        parts = parts_of(text)
        assert 1 <= len(parts) <= 2, text
        assert all(intent_of(part) not in ("help", "build") for part in parts), text
        # Crumb has a menu, an about and a contact section, brown under cream:
        for has in ("menu", "about", "contact"):
            assert has not in text.lower(), text
    assert str(rewrites["make it nicer"]["text"]).startswith("Add a testimonials section")
    assert str(rewrites["looks boring"]["text"]).startswith("Add a gallery section")

    for number, (draft, rewrite) in enumerate(rewrites.items()):
        copy = await new_project(user, f"Copy {number}", built)
        events = await turn(copy, await new_conversation(copy), str(rewrite["text"]))
        said = await answer(events)
        assert await files(copy) != built, f"{draft!r} improved changed nothing: {said}"
        assert said.startswith("Done"), said
        if len(parts_of(str(rewrite["text"]))) == 2:  # the rest, offered first
            assert done(events).suggestions[0] == parts_of(str(rewrite["text"]))[1].rstrip(".")


async def test_a_colour_pair_that_reads_poorly_comes_first_and_sent_reads_well(
    async_client: AsyncClient, user: User, starter_project: Project, keyless: None
) -> None:
    await async_client.aforce_login(user)
    await turn(starter_project, await new_conversation(starter_project), CRUMB)
    css = (await files(starter_project))["/styles.css"]
    assert "--header-bg: #4a2c1d;\n  --header-text: #ffffff;" in css
    await person_writes(
        starter_project,
        "/styles.css",
        css.replace("--header-text: #ffffff", "--header-text: #6b4a3a"),
    )

    rewrite = str((await improve(async_client, starter_project, "make it nicer"))["text"])

    first = rewrite.splitlines()[0]
    assert first == "Keep the header #4a2c1d, with text that reads well on it."
    events = await turn(starter_project, await new_conversation(starter_project), rewrite)
    css = (await files(starter_project))["/styles.css"]
    assert "--header-bg: #4a2c1d;\n  --header-text: #ffffff;" in css, "the text reads again"
    said = await answer(events)
    assert said.startswith("Done: the colour is changed.")


async def test_a_vague_wish_without_a_site_becomes_one_that_builds(
    async_client: AsyncClient, user: User, starter_project: Project, keyless: None
) -> None:
    await async_client.aforce_login(user)

    rewrite = await improve(async_client, starter_project, "make it nicer")

    assert rewrite["changed"] is True
    text = str(rewrite["text"])
    assert text.startswith("Build a one-page website, called [site name].")
    events = await turn(starter_project, await new_conversation(starter_project), text)
    assert (await answer(events)).startswith("Done: the site is built.")


def test_a_vague_wish_beside_another_request_keeps_it() -> None:
    files = {f"/{name}": text for name, text in site_files(brief_from(CRUMB)).items()}

    rewrite = improved("make it better and add a map", Site(tuple(files), files))

    lines = rewrite.splitlines()
    assert lines[0].startswith("Add a testimonials section to the home page")
    assert lines[-1] == "Add a map."


@pytest.mark.parametrize(
    "draft", ["hello, who are you?", "make the header green", "add an about page"]
)
def test_a_draft_that_is_not_vague_is_rewritten_as_before(draft: str) -> None:
    """Neither a greeting nor a plain request turns into something else."""
    site = Site(("/index.html",), {"/index.html": "<main></main>"})

    assert not is_vague(draft)
    assert improved(draft, site) == improved(draft)
