"""The offline demo never destroys: after "Crumb" is built, turned
green and given an about page, each request it used to answer by rebuilding
the site as "Your site" (the site check's fix, a picked heading, rounded
buttons, a translation) changes only what it understood, or nothing, and the
name, the about link, the sections and the colours survive; a second "build"
asks before replacing the site and changes nothing; a rewrite that would
change nothing is not made, so no step shows as failed."""

from __future__ import annotations

import pytest

from chat.agent.attachments import PickedElement
from chat.models import Conversation
from chat.records.site_check import SiteCheckRecord
from chat.render.transcript import Footer
from projects.models import Project
from projects.publish.for_model import check_for_model
from projects.publish.site_check import site_check
from tests.chat.agent.turns import new_conversation
from tests.demo.turns import answer, called, done, files, person_writes, results, turn

pytestmark = pytest.mark.django_db(transaction=True)

CRUMB = "Build a one-page site for a bakery called Crumb"
GREEN = "--header-bg: #1f5f3a;"


@pytest.fixture
async def crumb(starter_project: Project) -> Conversation:
    """Crumb, built, turned green and given an about page, as in the issue."""
    conversation = await new_conversation(starter_project)
    for request in (CRUMB, "make the header dark green", "add an about page"):
        events = await turn(starter_project, conversation, request)
        assert all(result.ok for result in results(events)), request
    return conversation


async def assert_crumb_survives(project: Project) -> dict[str, str]:
    now = await files(project)
    page = now["/index.html"]
    assert '<a class="brand" href="index.html">Crumb</a>' in page
    assert "<h1>Crumb</h1>" in page
    assert '<a href="about.html">About</a>' in page
    for section in ("menu", "about", "contact"):
        assert f'id="{section}"' in page
    assert GREEN in now["/styles.css"]
    assert "Crumb began with one oven" in now["/about.html"]
    return now


def assert_nothing_rewritten(events: list[object]) -> None:
    assert not [call for call in called(events) if call[0] in ("update_file", "create_file")]
    assert all(result.ok for result in results(events)), "no step failed"
    assert done(events).status == "completed"


async def fix_prompt(project: Project) -> str:
    """What "Fix with the assistant" puts in the message box after a check of the site."""
    record = SiteCheckRecord.from_check(check_for_model(site_check(await files(project))))
    return Footer("f", check=record).fix_prompt


async def test_the_site_checks_fix_mends_what_it_can_and_names_the_rest(
    starter_project: Project, crumb: Conversation
) -> None:
    page = (await files(starter_project))["/index.html"]
    broken = page.replace('<html lang="en">', "<html>").replace(
        "    </section>\n  </main>",
        '      <img src="images/fresh-loaves.svg">\n'
        '      <p><a href="abuot.html">More about us</a></p>\n'
        '      <p id="menu">Ask about today\'s specials.</p>\n'
        "    </section>\n  </main>",
    )
    await person_writes(starter_project, "/index.html", broken)
    await person_writes(
        starter_project, "/images/fresh-loaves.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>"
    )
    prompt = await fix_prompt(starter_project)
    assert prompt.startswith("Fix what the site check found:")

    events = await turn(starter_project, crumb, prompt)

    assert_nothing_rewritten(events)
    assert ("edit_file", "/index.html") in called(events)
    now = await assert_crumb_survives(starter_project)
    fixed = now["/index.html"]
    assert '<img alt="Fresh loaves" src="images/fresh-loaves.svg">' in fixed
    assert '<a href="about.html">More about us</a>' in fixed
    assert '<html lang="en">' in fixed
    said = await answer(events)
    assert said.startswith("Done: fixed what I could.")
    assert "What I left, for you or a real model:" in said
    assert "which element keeps the id is your call" in said
    assert site_check(now).counts == {"duplicate_id": 1}, "only what it left"

    again = await turn(starter_project, crumb, prompt)  # the same button, pressed again

    assert {name for name, _ in called(again)} == {"list_project_files", "read_file"}, (
        "it writes nothing"
    )
    assert await files(starter_project) == now
    said = await answer(again)
    assert said.startswith("I can't fix these as the offline demo, so I changed nothing:")
    left, _, gone = said.partition("Already fixed, since the check ran:")
    assert "abuot.html leads to no file" in gone
    assert "names no language" in gone
    assert "which element keeps the id is your call" in left


async def test_a_picked_heading_gets_the_new_words_and_nothing_else_changes(
    starter_project: Project, crumb: Conversation
) -> None:
    before = await files(starter_project)
    picked = PickedElement(selector="#menu > h2", tag="h2", page="/index.html", text="Menu")

    events = await turn(
        starter_project, crumb, "change this heading to Visit us", attachments=(picked,)
    )

    assert_nothing_rewritten(events)
    assert called(events)[-1] == ("edit_file", "/index.html")
    now = await files(starter_project)
    assert "<h2>Visit us</h2>" in now["/index.html"]
    assert '<a href="#menu">Visit us</a>' in now["/index.html"], "its link follows"
    assert now["/index.html"].replace("Visit us", "Menu") == before["/index.html"]
    assert {path: text for path, text in now.items() if path != "/index.html"} == {
        path: text for path, text in before.items() if path != "/index.html"
    }
    assert (await answer(events)).startswith("Done: the text is changed.")


async def test_rounded_buttons_are_one_setting_in_the_styles(
    starter_project: Project, crumb: Conversation
) -> None:
    before = await files(starter_project)

    events = await turn(starter_project, crumb, "make the buttons rounded")

    assert_nothing_rewritten(events)
    assert called(events)[-1] == ("edit_file", "/styles.css")
    now = await assert_crumb_survives(starter_project)
    assert "--button-radius: 999px;" in now["/styles.css"]
    assert now["/index.html"] == before["/index.html"]
    assert (await answer(events)).startswith("Done: the buttons are changed.")


async def test_a_translation_changes_nothing_and_says_why(
    starter_project: Project, crumb: Conversation
) -> None:
    before = await files(starter_project)

    events = await turn(starter_project, crumb, "translate the site to French")

    assert called(events) == []
    assert await files(starter_project) == before
    said = await answer(events)
    assert "I write English only" in said
    assert "I changed nothing" in said


async def test_a_second_build_asks_first_and_replacing_is_one_click_away(
    starter_project: Project, crumb: Conversation
) -> None:
    before = await files(starter_project)

    again = await turn(starter_project, crumb, "Build a site for my restaurant")

    assert_nothing_rewritten(again)
    assert await files(starter_project) == before
    said = await answer(again)
    assert said.startswith("This project already has a site: **Crumb** (about.html, index.html).")
    assert "so I changed nothing" in said
    replace = "Replace the site with a site for my restaurant"
    assert done(again).suggestions[0] == replace

    replaced = await turn(starter_project, crumb, replace)

    assert ("update_file", "/index.html") in called(replaced)
    page = (await files(starter_project))["/index.html"]
    assert "Wild mushroom risotto" in page
    assert (await answer(replaced)).startswith("Done: the site is built.")


async def test_the_same_site_again_writes_nothing_and_fails_nothing(
    starter_project: Project,
) -> None:
    conversation = await new_conversation(starter_project)
    await turn(starter_project, conversation, CRUMB)
    before = await files(starter_project)

    events = await turn(
        starter_project, conversation, "Replace the site with a site for a bakery called Crumb"
    )

    assert_nothing_rewritten(events)
    assert await files(starter_project) == before
    assert "The site is exactly this already, so I changed nothing." in (await answer(events))


async def test_a_named_section_has_that_name_and_real_content(
    starter_project: Project, crumb: Conversation
) -> None:
    events = await turn(starter_project, crumb, "add a section called Opening hours")

    assert_nothing_rewritten(events)
    now = await assert_crumb_survives(starter_project)
    page = now["/index.html"]
    assert '<section id="hours" class="section">\n      <h2>Opening hours</h2>' in page
    assert "<dt>Tuesday to Friday</dt><dd>7:00 to 18:00</dd>" in page
    assert '<a href="#hours">Opening hours</a>\n      <a href="#contact">' in page
    assert page.index('id="hours"') < page.index('id="contact"'), "contact ends the page"

    custom = await turn(starter_project, crumb, "add a section called Our suppliers")

    page = (await files(starter_project))["/index.html"]
    assert '<section id="our-suppliers" class="section">\n      <h2>Our suppliers</h2>' in page
    assert "News about our suppliers is on its way." in page
    assert (await answer(custom)).startswith("Done: the section is added.")


async def test_what_it_suggests_next_would_change_the_site(
    starter_project: Project, crumb: Conversation
) -> None:
    """After rounded buttons and after a second build it asks about, every
    suggestion (but starting over) does something to Crumb: none is answered
    "already there" or "changed nothing"."""
    rounded = await turn(starter_project, crumb, "make the buttons rounded")
    refused = await turn(starter_project, crumb, "build a site for a florist")
    suggested = [*done(rounded).suggestions, *done(refused).suggestions[1:]]
    assert suggested

    for suggestion in dict.fromkeys(suggested):
        before = await files(starter_project)
        events = await turn(starter_project, crumb, suggestion)
        assert await files(starter_project) != before, suggestion
        assert "changed nothing" not in await answer(events), suggestion
