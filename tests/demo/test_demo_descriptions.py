"""Any description builds: in a project with no site yet (as the dashboard's
"What do you want to build?" starts one), a site, a business, a person, an
event or a product described the ways people write it builds a site of that
kind, with the name given and the sections asked for, through the real loop
and file tools. What the demo had to choose, its answer says, and its first
suggestions change it. A greeting or a question about Built-It gets what the
demo can do, with "Build a site for …" as its first suggestion. On a site
that is there, a description asks before replacing it, and a change stays a
change."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from chat.agent.events import Done
from chat.models import Conversation
from projects.lifecycle import project_create
from projects.models import Project
from tests.chat.agent.turns import new_conversation
from tests.demo.phrasings import NOT_DESCRIPTIONS, PHRASINGS, assert_built
from tests.demo.turns import answer, called, done, files, results, turn

pytestmark = pytest.mark.django_db(transaction=True)

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
CRUMB = "a bakery called Crumb with a menu and a contact section"


@sync_to_async
def started(user: User, name: str = "Started") -> Project:
    """A project as the dashboard starts one: its instructions and no page."""
    project = project_create(owner=user, name=name, instructions=True)
    assert isinstance(project, Project)
    return project


async def fresh(user: User) -> tuple[Project, Conversation]:
    project = await started(user)
    return project, await new_conversation(project)


def writes(events: list[object]) -> list[str]:
    return [
        path or ""
        for name, path in called(events)
        if name in {"create_file", "update_file", "edit_file"}
    ]


async def test_every_phrasing_builds_its_site(user: User) -> None:
    failed = []
    for phrasing in PHRASINGS:
        assert not phrasing.words.lower().startswith("build"), phrasing
        project, conversation = await fresh(user)
        events = await turn(project, conversation, phrasing.words)
        try:
            assert ("create_file", "/index.html") in called(events), "no page written"
            assert all(result.ok for result in results(events)), "a step failed"
            assert_built((await files(project))["/index.html"], phrasing)
            said = await answer(events)
            assert "Done: the site is built." in said, said
            if phrasing.name is None:
                assert "You gave no name, so I called it “Your " in said, said
                assert done(events).suggestions[0].startswith("Rename the site to ")
        except AssertionError as failure:
            failed.append(f"{phrasing.words!r}: {failure}")
    assert not failed, "\n".join(failed)


def empty_chat_chips() -> list[str]:
    """Every request a template offers as a chip in words of its own."""
    chips = []
    for template in TEMPLATES.rglob("*.html"):
        chips += re.findall(r'data-suggest="([^"{]+)"', template.read_text())
    return chips


async def test_every_chip_the_empty_chat_offers_builds(user: User) -> None:
    chips = empty_chat_chips()
    assert "A restaurant menu page for a restaurant called Casa Verde, with opening hours" in chips
    for chip in chips:
        project, conversation = await fresh(user)
        events = await turn(project, conversation, chip)
        assert ("create_file", "/index.html") in called(events), chip
        assert all(result.ok for result in results(events)), chip
        page = (await files(project))["/index.html"]
        name = re.search(r"called ([A-Z][\w ]+?),", chip)
        assert name is not None
        assert f"<h1>{name.group(1)}</h1>" in page, chip


@pytest.mark.parametrize("words", [*NOT_DESCRIPTIONS, "   ", "?!"])
async def test_a_greeting_or_a_question_gets_what_the_demo_can_do(user: User, words: str) -> None:
    project, conversation = await fresh(user)
    events = await turn(project, conversation, words)

    assert writes(events) == []
    said = await answer(events)
    assert "I'm the offline demo" in said
    assert "Tell me what the site is for" in said
    chips = done(events).suggestions
    assert chips[0].startswith("Build a site for "), chips
    assert "/index.html" not in await files(project)


async def test_help_offers_a_site_for_the_persons_own_words_and_it_builds(user: User) -> None:
    project, conversation = await fresh(user)

    events = await turn(project, conversation, "hiking")
    assert writes(events) == []
    assert done(events).suggestions[0] == "Build a site for hiking"

    events = await turn(project, conversation, "Build a site for hiking")
    assert ("create_file", "/index.html") in called(events)
    assert "<h1>Your site</h1>" in (await files(project))["/index.html"]


async def test_what_it_assumed_is_said_and_the_first_suggestion_changes_it(user: User) -> None:
    project, conversation = await fresh(user)

    events = await turn(project, conversation, "a blog about hiking")
    said = await answer(events)
    assert "What I assumed" in said
    assert "You gave no name, so I called it “Your blog” for now." in said
    usual = "You named no sections, so it has a blog's usual ones: latest posts, about and contact."
    assert usual in said
    rename, *others = done(events).suggestions
    assert rename == "Rename the site to Trail Notes"
    assert len(others) == 2

    events = await turn(project, conversation, rename)
    assert all(result.ok for result in results(events))
    assert "Done: the site is renamed." in await answer(events)
    page = (await files(project))["/index.html"]
    assert "Your blog" not in page
    for shown in ("<title>Trail Notes</title>", "<h1>Trail Notes</h1>", "</span> Trail Notes</p>"):
        assert shown in page


async def test_every_suggestion_after_a_build_changes_the_site(user: User) -> None:
    for words in ("Crumb", "a blog about hiking", "my yoga studio, with class times and prices"):
        project, conversation = await fresh(user)
        chips = done(await turn(project, conversation, words)).suggestions
        assert len(chips) == 3
        for chip in chips:
            before = await files(project)
            events = await turn(project, conversation, chip)
            assert writes(events), (words, chip, await answer(events))
            assert all(result.ok for result in results(events)), (words, chip)
            assert await files(project) != before, (words, chip)


async def test_a_general_site_says_so_and_offers_to_say_what_it_is(user: User) -> None:
    project, conversation = await fresh(user)

    events = await turn(project, conversation, "Crumb")
    said = await answer(events)
    assert "I couldn't tell what kind of place it is, so it is a general one-page site." in said
    replace = done(events).suggestions[0]
    assert replace == "Replace the site with a shop called Crumb"

    events = await turn(project, conversation, replace)
    page = (await files(project))["/index.html"]
    assert "<h1>Crumb</h1>" in page
    assert 'id="products"' in page


async def test_pages_asked_for_are_sections_and_the_answer_says_so(user: User) -> None:
    project, conversation = await fresh(user)

    events = await turn(
        project, conversation, "my dog walking business, with an about page and a contact page"
    )
    page = (await files(project))["/index.html"]
    assert '<section id="about"' in page
    assert '<section id="contact"' in page
    said = await answer(events)
    assert "the about and contact you asked for as pages are sections of it" in said
    assert "Add an about page" in done(events).suggestions


async def test_a_description_on_a_site_that_is_there_asks_first_then_replaces(
    user: User,
) -> None:
    project, conversation = await fresh(user)
    await turn(project, conversation, CRUMB)
    built = await files(project)

    for words in ("my yoga studio, with class times and prices", "I run a plumbing business"):
        events = await turn(project, conversation, words)
        assert writes(events) == [], words
        said = await answer(events)
        assert "This project already has a site: **Crumb**" in said
        assert await files(project) == built
    replace = done(events).suggestions[0]
    assert replace == "Replace the site with a plumber"

    events = await turn(project, conversation, "my yoga studio, with class times and prices")
    replace = done(events).suggestions[0]
    assert replace == "Replace the site with my yoga studio, with class times and prices"
    await turn(project, conversation, replace)
    page = (await files(project))["/index.html"]
    assert 'id="schedule"' in page
    assert "yoga studio" in page


async def test_a_change_on_a_site_stays_a_change(user: User) -> None:
    project, conversation = await fresh(user)
    await turn(project, conversation, "a bakery called Crumb with a contact section")

    events = await turn(project, conversation, "add a gallery section")
    assert writes(events) == ["/index.html"]
    assert "Done: the section is added." in await answer(events)
    page = (await files(project))["/index.html"]
    assert page.count('<section id="gallery"') == 1
    assert "<h1>Crumb</h1>" in page

    events = await turn(project, conversation, "a florist called Petal, make it pink")
    assert writes(events) == ["/styles.css"], "a colour for the site there is"
    assert "<h1>Crumb</h1>" in (await files(project))["/index.html"]


async def test_a_description_with_a_change_in_it_builds_where_there_is_no_site(
    user: User,
) -> None:
    project, conversation = await fresh(user)

    events = await turn(project, conversation, "a florist called Petal, make it pink")
    built = await files(project)
    assert "<h1>Petal</h1>" in built["/index.html"]
    assert "--header-bg: #d53f8c;" in built["/styles.css"]
    assert "Done: the site is built." in await answer(events)


async def test_the_starter_site_is_no_site_to_keep(starter_project: Project) -> None:
    conversation = await new_conversation(starter_project)

    events = await turn(starter_project, conversation, "I run a bakery called Crumb")

    assert ("update_file", "/index.html") in called(events)
    assert "<h1>Crumb</h1>" in (await files(starter_project))["/index.html"]
    assert isinstance(events[-1], Done)


async def test_the_name_it_suggests_fits_what_the_place_was_called(user: User) -> None:
    """A repair shop is of the kind "shop", whose example name is a candle
    shop's: the suggestion names it by what the person called it instead."""
    project, conversation = await fresh(user)

    events = await turn(project, conversation, "a one-page site for a bike repair shop in Porto")
    rename = done(events).suggestions[0]
    assert rename == "Rename the site to Riverside Repair Shop"

    events = await turn(project, conversation, rename)
    assert "Done: the site is renamed." in await answer(events)
    assert "Riverside Repair Shop" in (await files(project))["/index.html"]
