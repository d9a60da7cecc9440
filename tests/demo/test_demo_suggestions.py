"""The chips the offline demo ends its answers with ("Next: a | b | c") fit
the site: never a section, a page, a colour or a look it has already; and
each one, sent through the real loop, changes the site. Every chip of the
demo's tables is sent on sites of several kinds, and chains of first chips
are followed until none is left."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from chat.models import Conversation
from demo.colours import COLOURS, difference
from demo.holds import Site
from demo.rules import Rules
from demo.site import brief_from, site_files
from demo.suggestions import ALIKE, CHIPS, Chip, fitting
from projects.models import Project
from projects.starter import STARTER_FILES
from tests.chat.agent.turns import new_conversation
from tests.demo.turns import answer, done, files, new_project, results, turn

pytestmark = pytest.mark.django_db(transaction=True)

BAKERY = "Build a one-page site for a bakery called Crumb"
PORTFOLIO = "Build a portfolio website for Ada Lens"
BAND = "Build a site for my band called The Loud Ones"
WEDDING = "Build a website for our wedding"
BLOG = "Build a blog website about hiking"
PLUMBER = "Build a website for my plumbing business"
# No instructions in the project: the tone is the demo's to offer to change.
WITHOUT_INSTRUCTIONS = {PLUMBER}
REFUSALS = ("changed nothing", "already", "I'm the offline demo, a scripted stand-in")


async def built(owner: User, request: str) -> dict[str, str]:
    """The files of a site the demo built for `request`, through the loop."""
    project = await new_project(owner, "Built", {} if request in WITHOUT_INSTRUCTIONS else None)
    events = await turn(project, await new_conversation(project), request)
    assert all(result.ok for result in results(events)), request
    return await files(project)


def offered(content: dict[str, str]) -> list[Chip]:
    """Every chip the demo may offer on the site `content` holds (after a
    turn that offers any kind), in the tables' order."""
    site = Site(tuple(content), content)
    rules = Rules(tone="plain") if "/AGENTS.md" in content else Rules()
    by_kind = fitting(site, rules)
    return [chip for chip in CHIPS if chip in by_kind[chip.kind]] + [
        chip for chip in by_kind["colour"] if chip not in CHIPS
    ]


async def assert_changes(project: Project, conversation: Conversation, chip: str) -> str:
    """Send `chip`; it must change a file and say it did. Its answer."""
    before = await files(project)
    events = await turn(project, conversation, chip)
    said = await answer(events)
    assert await files(project) != before, f"{chip!r} changed nothing: {said}"
    assert all(result.ok for result in results(events)), chip
    assert not any(refusal in said for refusal in REFUSALS), f"{chip!r}: {said}"
    assert said.startswith(("Done", "All set")), f"{chip!r}: {said}"
    return said


KINDS = [BAKERY, PORTFOLIO, WEDDING, BLOG, PLUMBER]


@pytest.mark.parametrize("request_text", KINDS)
async def test_every_chip_the_demo_offers_on_a_built_site_changes_it(
    user: User, request_text: str
) -> None:
    site = await built(user, request_text)
    chips = offered(site)
    assert len(chips) >= 4, [c.text for c in chips]

    for number, chip in enumerate(chips):
        project = await new_project(user, f"Copy {number}", site)
        await assert_changes(project, await new_conversation(project), chip.text)


def test_the_chips_sent_cover_every_table() -> None:
    """Each chip of the tables is offered on one of the sites above at least,
    so the test above sends every one."""
    seen: set[str] = set()
    for request_text in KINDS:
        content = {f"/{name}": text for name, text in site_files(brief_from(request_text)).items()}
        if request_text not in WITHOUT_INSTRUCTIONS:
            content["/AGENTS.md"] = STARTER_FILES["/AGENTS.md"]
        seen |= {chip.text for chip in offered(content)}

    assert {chip.text for chip in CHIPS} <= seen


@pytest.mark.parametrize("request_text", [BAND, PLUMBER])
async def test_following_the_first_chip_never_meets_one_that_changes_nothing(
    user: User, request_text: str
) -> None:
    project = await new_project(user, "Chain", {} if request_text in WITHOUT_INSTRUCTIONS else None)
    conversation = await new_conversation(project)
    events = await turn(project, conversation, request_text)
    followed: list[str] = []
    for _ in range(10):
        chips = done(events).suggestions
        now = await files(project)
        for chip in chips:
            assert_not_there(chip, now, asked=[request_text, *followed])
        if not chips:
            break
        followed.append(chips[0])
        before = await files(project)
        events = await turn(project, conversation, chips[0])
        said = await answer(events)
        assert await files(project) != before, f"{chips[0]!r} changed nothing: {said}"
        assert not any(refusal in said for refusal in REFUSALS), f"{chips[0]!r}: {said}"
    assert len(followed) >= 6, followed
    kinds = {kind_of(chip) for chip in followed}
    assert len(kinds) >= 3, f"three kinds of change at least: {followed}"


def kind_of(chip: str) -> str:
    found = re.search(r"section$|page$|^Make the header|buttons|tone|^Remember|^Rename", chip)
    assert found is not None, f"a chip the tables do not hold: {chip}"
    return found[0]


def assert_not_there(chip: str, now: dict[str, str], *, asked: list[str]) -> None:
    """`chip` does not propose what the site `now` has, nor another shade of
    a look the person chose (`asked`: their requests so far)."""
    home, css = now.get("/index.html", ""), now.get("/styles.css", "")
    section = re.fullmatch(r"Add an? (.+) section", chip)
    page = re.fullmatch(r"Add an? (\w+) page", chip)
    colour = re.fullmatch(r"Make the header (.+)", chip)
    if section:
        topic = {"FAQ": "faq", "opening hours": "hours"}.get(section[1], section[1])
        assert f'id="{topic}"' not in home, chip
    elif page:
        assert f"/{page[1]}.html" not in now, chip
        assert f'id="{page[1]}"' not in home, f"{chip}: the home page has that section"
    elif colour:
        header = re.search(r"--header-bg: (#\w+);", css)
        assert header is not None
        assert difference(COLOURS[colour[1]], header[1]) >= ALIKE, f"{chip} on {header[1]}"
        assert not [a for a in asked if a.startswith("Make the header")], f"{chip} after {asked}"
    elif chip == "Make the buttons rounded":
        assert "--button-radius: 999px;" not in css, chip
        assert not [a for a in asked if "buttons" in a], chip
    elif chip == "Make the tone friendlier":
        assert not [a for a in asked if "tone" in a], chip
    elif chip.startswith("Rename the site to "):  # a name the demo assumed, to change
        assert f">{chip.removeprefix('Rename the site to ')}<" not in home, chip
    else:
        assert chip.startswith("Remember to write in"), f"a chip the tables do not hold: {chip}"


async def test_the_colour_just_set_and_a_page_that_exists_are_not_offered(
    starter_project: Project,
) -> None:
    conversation = await new_conversation(starter_project)
    await turn(starter_project, conversation, BAKERY)

    green = await turn(starter_project, conversation, "make the header dark green")
    about = await turn(starter_project, conversation, "add an about page")

    assert done(green).suggestions
    assert done(about).suggestions
    # The person chose the header's colour: no other is offered, then or later.
    for chip in (*done(green).suggestions, *done(about).suggestions):
        assert not chip.startswith("Make the header"), chip
    assert "Add an about page" not in done(about).suggestions
    assert "Add a contact page" not in done(about).suggestions, "the home page has #contact"


async def test_rounded_buttons_and_present_sections_are_not_offered(
    starter_project: Project,
) -> None:
    conversation = await new_conversation(starter_project)
    await turn(starter_project, conversation, BAKERY)
    await turn(starter_project, conversation, "add a FAQ section")

    rounded = await turn(starter_project, conversation, "make the buttons rounded")
    testimonials = await turn(starter_project, conversation, "add testimonials")

    assert "Make the buttons rounded" not in done(rounded).suggestions
    assert "Make the buttons rounded" not in done(testimonials).suggestions
    assert "Add a FAQ section" not in done(testimonials).suggestions
    assert "Add a testimonials section" not in done(testimonials).suggestions
    assert done(testimonials).suggestions
