"""The offline demo in a plan turn: it looks and reads as always,
answers with the plan of the writes it would make, and changes nothing; the
turn that builds the plan then makes those changes."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from chat.agent.attachments import Attachment, PickedElement
from chat.agent.events import ToolCallsAnnounced
from chat.agent.loop import TurnRequest, run_turn
from chat.models import Conversation
from chat.render.transcript import BUILD_PLAN
from demo.transport import DEMO_MODEL, demo_client
from projects.models import FileRevision, Project
from tests.chat.agent.turns import new_conversation
from tests.demo.turns import answer, done, files, turn

pytestmark = pytest.mark.django_db(transaction=True)

BAKERY = "Build a one-page site for a bakery called Crumb with a menu and a contact section"


def called(events: list[object]) -> list[str]:
    """The tools the turn called, by name (tests.demo.turns.called adds paths)."""
    return [
        call.name
        for event in events
        if isinstance(event, ToolCallsAnnounced)
        for call in event.calls
    ]


@pytest.fixture
async def conversation(starter_project: Project) -> Conversation:
    return await new_conversation(starter_project)


@sync_to_async
def revisions(project: Project) -> int:
    return FileRevision.objects.filter(project=project).count()


async def test_a_plan_turn_plans_the_site_and_writes_nothing(
    starter_project: Project, conversation: Conversation
) -> None:
    before, revised = await files(starter_project), await revisions(starter_project)

    planned = await turn(starter_project, conversation, BAKERY, plan=True)

    assert called(planned) == ["list_project_files"] + ["read_file"] * 3, "it only looks"
    assert done(planned).status == "completed"
    assert done(planned).files_changed == ()
    assert (await files(starter_project), await revisions(starter_project)) == (before, revised)
    plan = await answer(planned)
    assert plan.startswith(f"My plan for “{BAKERY}”:")
    # The starter's files are rewritten; the page has the sections asked for.
    assert (
        "1. Rewrite `index.html`: the page headed “Crumb”, with sections Menu and Contact" in plan
    )
    assert "2. Rewrite `styles.css`" in plan
    assert "--accent" in plan
    assert "3. Rewrite `script.js`: a small script (the year in the footer" in plan
    assert "Nothing is changed yet" in plan


async def test_building_the_demos_plan_makes_what_it_said(
    starter_project: Project, conversation: Conversation
) -> None:
    plan = await answer(await turn(starter_project, conversation, BAKERY, plan=True))

    built = await turn(starter_project, conversation, BUILD_PLAN + plan)

    assert called(built)[-3:] == ["update_file"] * 3
    assert done(built).files_changed == ("/index.html", "/styles.css", "/script.js")
    page = (await files(starter_project))["/index.html"]
    assert "<h1>Crumb</h1>" in page
    assert 'id="menu"' in page
    assert 'id="contact"' in page
    assert "Done: the site is built." in (await answer(built))


async def test_a_plan_for_a_small_change_names_the_edit(
    starter_project: Project, conversation: Conversation
) -> None:
    await turn(starter_project, conversation, BAKERY)
    before = await files(starter_project)

    planned = await turn(starter_project, conversation, "Make the header dark green", plan=True)

    assert "1. Edit `styles.css`: set `--header-bg` to `#1f5f3a`." in (await answer(planned))
    assert await files(starter_project) == before


async def test_a_plan_names_a_picked_headings_new_words_and_a_pages_link(
    starter_project: Project, conversation: Conversation
) -> None:
    await turn(starter_project, conversation, BAKERY)
    picked = PickedElement(selector="#menu > h2", tag="h2", page="/index.html", text="Menu")

    heading = await answer(
        await turn_with(starter_project, conversation, "change this to Visit us", (picked,))
    )
    about = await answer(await turn(starter_project, conversation, "Add an about page", plan=True))

    assert (
        "1. Edit `index.html`: the heading “Menu” becomes “Visit us”; "
        "the “Menu” link now says “Visit us”." in heading
    )
    assert "2. Edit `index.html`: link to the About page from the navigation." in about


async def turn_with(
    project: Project, conversation: Conversation, text: str, attachments: tuple[Attachment, ...]
) -> list[object]:
    client = demo_client()
    try:
        order = TurnRequest(
            project, conversation, text, DEMO_MODEL, attachments=attachments, plan=True
        )
        return [event async for event in run_turn(order, client=client)]
    finally:
        await client.aclose()
