"""A request with two parts to the offline demo, which makes one change a
turn ("add testimonials and a pricing page", "make the header purple and add a
FAQ section"): its plan and its build say which part they do now and offer the
rest as the first next step, which sent does the rest; no part is dropped
without a word."""

from __future__ import annotations

import asyncio

import pytest

from chat.models import Conversation
from chat.render.transcript import BUILD_PLAN
from demo.improving import improved
from demo.parts import parts_of
from projects.models import Project
from tests.chat.agent.turns import new_conversation
from tests.demo.turns import answer, called, crumb_site, done, files, turn

pytestmark = pytest.mark.django_db(transaction=True)

TWO = "add testimonials and a pricing page"


@pytest.fixture
async def crumb(starter_project: Project) -> Conversation:
    conversation = await new_conversation(starter_project)
    await crumb_site(starter_project, conversation)
    return conversation


async def test_a_turn_does_one_part_and_offers_the_rest_first(
    starter_project: Project, crumb: Conversation
) -> None:
    events = await turn(starter_project, crumb, TWO)

    now = await files(starter_project)
    assert 'id="testimonials"' in now["/index.html"]
    assert "/pricing.html" not in now
    said = await answer(events)
    assert "I did one part of your request: “Add testimonials”" in said
    assert "ask for the rest next: “Add a pricing page”" in said
    assert done(events).suggestions[0] == "Add a pricing page"

    rest = await turn(starter_project, crumb, done(events).suggestions[0])

    assert "/pricing.html" in await files(starter_project)
    assert "one part of your request" not in await answer(rest)


async def test_a_plan_says_which_part_it_covers_and_its_build_does_that_part(
    starter_project: Project, crumb: Conversation
) -> None:
    before = await files(starter_project)

    planned = await turn(starter_project, crumb, TWO, plan=True)

    plan = await answer(planned)
    assert await files(starter_project) == before
    assert "add a “What people say” section to the page" in plan
    assert "This plan covers one part of your request: “Add testimonials”" in plan
    assert "ask for the rest next: “Add a pricing page”" in plan
    assert done(planned).suggestions[0] == "Add a pricing page"

    built = await turn(starter_project, crumb, BUILD_PLAN + plan)

    assert 'id="testimonials"' in (await files(starter_project))["/index.html"]
    assert "/pricing.html" not in await files(starter_project)
    assert done(built).suggestions[0] == "Add a pricing page"


async def test_a_colour_and_a_section_asked_together(
    starter_project: Project, crumb: Conversation
) -> None:
    events = await turn(starter_project, crumb, "make the header purple and add a FAQ section")

    now = await files(starter_project)
    assert ("edit_file", "/styles.css") in called(events)
    assert 'id="faq"' not in now["/index.html"]
    assert done(events).suggestions[0] == "Add a FAQ section"


async def test_a_part_it_cannot_do_is_named_not_dropped(
    starter_project: Project, crumb: Conversation
) -> None:
    events = await turn(starter_project, crumb, "make it sparkle and add a FAQ section")

    assert 'id="faq"' in (await files(starter_project))["/index.html"]
    assert "“Make it sparkle” is not something I can do" in await answer(events)


@pytest.mark.parametrize(
    ("request_", "parts"),
    [
        ("Build a site for my bakery with a menu and a contact section", 1),
        ("change the heading to Bread and butter", 1),
        ("Add a section called Tea and cake", 1),
        ("change the heading to Welcome and add a FAQ section", 2),
        ("make the header navy; round the buttons", 2),
        ("make the buttons rounded and the header teal", 2),
        ("make the header purple and white", 1),
        ("change the heading to Salt and the Sea", 1),
    ],
)
def test_one_request_is_not_cut_where_its_words_run_on(request_: str, parts: int) -> None:
    assert len(parts_of(request_)) == parts


# A review found the parts' pattern cubic in a run of white space: 20,000
# spaces (the message limit) cost hours of one core, on the event loop.
LONG_RUN = "add a menu page" + " " * 19_000 + "x" + "\n" * 500 + "and a FAQ section"


async def test_a_long_run_of_white_space_is_read_as_one(
    starter_project: Project, crumb: Conversation
) -> None:
    events = await asyncio.wait_for(turn(starter_project, crumb, LONG_RUN), 30)

    assert done(events).status == "completed"
    assert improved(LONG_RUN).startswith("Add a menu page")
