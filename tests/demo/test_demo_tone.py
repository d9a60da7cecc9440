"""A change of tone with the offline demo ("make the tone friendlier", "make it
more formal"): it rewords only the texts it wrote itself (the headings, the
tagline, each section's first line, the navigation links naming them), in
place; the name, the colours, the pages and the person's own words survive,
and nothing is rebuilt. A site with no text of its own it says it cannot
reword and changes nothing."""

from __future__ import annotations

import pytest

from chat.models import Conversation
from projects.models import Project
from tests.chat.agent.turns import new_conversation
from tests.demo.turns import answer, called, crumb_site, done, files, person_writes, turn

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def crumb(starter_project: Project) -> Conversation:
    conversation = await new_conversation(starter_project)
    await crumb_site(starter_project, conversation)
    return conversation


def changed_lines(before: str, after: str) -> list[str]:
    was = before.splitlines()
    now = after.splitlines()
    assert len(was) == len(now), "no line added or taken away"
    return [line for old, line in zip(was, now, strict=True) if old != line]


@pytest.mark.parametrize(
    ("request_", "menu", "contact", "tagline"),
    [
        (
            "Make the tone friendlier",
            "What we make",
            "Say hello",
            "Hi there! Welcome to our little bakery.",
        ),
        ("make it more formal", "Our menu", "Contact us", "Welcome. Please find below"),
        ("Make it more playful", "The goodies", "Holler at us", "A bakery with a twist!"),
    ],
)
async def test_a_tone_request_rewords_the_texts_of_the_site_that_is_there(
    starter_project: Project,
    crumb: Conversation,
    request_: str,
    menu: str,
    contact: str,
    tagline: str,
) -> None:
    before = await files(starter_project)

    events = await turn(starter_project, crumb, request_)

    after = await files(starter_project)
    assert [name for name, _ in called(events) if name in ("create_file", "update_file")] == []
    assert done(events).status == "completed"
    home = after["/index.html"]
    assert '<a class="brand" href="index.html">Crumb</a>' in home, "the name stays"
    assert "<h1>Crumb</h1>" in home
    assert "Your site" not in home
    assert f"<h2>{menu}</h2>" in home
    assert f'<a href="#menu">{menu}</a>' in home, "the link names the section as it is now"
    assert f'<a href="index.html#contact">{contact}</a>' in after["/about.html"]
    assert f'<p class="tagline">{tagline}' in home
    assert after["/styles.css"] == before["/styles.css"], "the colours stay"
    assert "Crumb began with one oven" in after["/about.html"]
    for line in changed_lines(before["/index.html"], home):
        assert any(mark in line for mark in ("<h2>", 'class="lead"', "tagline", "<a href=")), line
    said = await answer(events)
    assert "The name, the sections' details and any words of your own are as they were" in said
    assert done(events).suggestions[0].startswith("Remember to write in a")


async def test_the_persons_own_words_keep_their_wording(
    starter_project: Project, crumb: Conversation
) -> None:
    page = (await files(starter_project))["/index.html"]
    await person_writes(
        starter_project, "/index.html", page.replace("<h2>Menu</h2>", "<h2>Our breads</h2>")
    )

    await turn(starter_project, crumb, "make the tone friendlier")

    home = (await files(starter_project))["/index.html"]
    assert "<h2>Our breads</h2>" in home
    assert "<h2>Say hello</h2>" in home, "the demo's own contact heading is reworded"


async def test_a_site_without_the_demos_texts_is_left_as_it_is(starter_project: Project) -> None:
    conversation = await new_conversation(starter_project)
    own = (
        '<!doctype html>\n<html lang="en">\n<head><title>Pip</title></head>\n<body>\n'
        '  <h1>Pip the potter</h1>\n  <section id="menu" class="section">\n'
        "    <h2>Bowls</h2>\n    <p>Thrown by hand.</p>\n  </section>\n</body>\n</html>\n"
    )
    await person_writes(starter_project, "/index.html", own)

    events = await turn(starter_project, conversation, "Create a friendlier tone for the site")

    assert (await files(starter_project))["/index.html"] == own
    looked = ("list_project_files", "read_file")
    assert [name for name, _ in called(events) if name not in looked] == []
    said = await answer(events)
    assert "I can only reword the texts I wrote myself" in said
    assert "I changed nothing" in said
