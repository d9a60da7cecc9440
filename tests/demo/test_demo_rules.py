"""The offline demo follows the simple parts of the owner's instructions
(/AGENTS.md, issue 30) through the real loop: a main colour, a tone, a name, a
font; it reads them afresh each turn, says which it followed or, when it
understood none, that it did not; and asked to remember something, it adds
the line to AGENTS.md, keeping what is there."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from chat.agent.events import Done
from chat.agent.instructions import MAX_INSTRUCTIONS_CHARS, instructions_section
from demo.rules import followed_line, rules_from
from projects.files.results import FileWrite
from projects.models import Project
from projects.services import Author, file_create, file_update
from projects.starter import STARTER_FILES
from tests.chat.agent.turns import new_conversation
from tests.demo.turns import answer, called, files, turn

BAKERY = "Build a one-page site for a bakery called Crumb with a menu and a contact section"


@sync_to_async
def instruct(project: Project, text: str) -> None:
    """The owner writes AGENTS.md, as in the editor."""
    author = Author.person(project.owner)
    if project.files.filter(path="/AGENTS.md").exists():
        result = file_update(project=project, path="/AGENTS.md", content=text, author=author)
    else:
        result = file_create(project=project, path="/AGENTS.md", content=text, author=author)
    assert isinstance(result, FileWrite), result


async def built(
    project: Project, instructions: str, request: str = BAKERY
) -> tuple[dict[str, str], str]:
    """The files and the answer of a build on a project with `instructions`."""
    await instruct(project, instructions)
    events = await turn(project, await new_conversation(project), request)
    return await files(project), await answer(events)


# --- through the loop ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_a_main_colour_in_the_instructions_colours_the_build(
    starter_project: Project,
) -> None:
    await instruct(starter_project, "# Rules\n\nUse dark green as the main colour.\n")

    events = await turn(starter_project, await new_conversation(starter_project), BAKERY)

    now = await files(starter_project)
    css = now["/styles.css"]
    assert "--header-bg: #1f5f3a;" in css
    assert "--accent: #1f5f3a;" in css
    assert "Following your instructions: dark green as the main colour." in (await answer(events))
    finished = events[-1]
    assert isinstance(finished, Done)
    assert "Make the header dark green" not in finished.suggestions, "it is already"
    assert finished.suggestions
    assert now["/AGENTS.md"] == "# Rules\n\nUse dark green as the main colour.\n", "left alone"


@pytest.mark.django_db(transaction=True)
async def test_the_message_wins_over_the_instructions_colour(starter_project: Project) -> None:
    await instruct(starter_project, "- Primary colour: #0f766e\n")
    conversation = await new_conversation(starter_project)
    await turn(starter_project, conversation, BAKERY)
    assert "--accent: #0f766e;" in (await files(starter_project))["/styles.css"]

    navy = await turn(starter_project, conversation, "Make the header navy")

    css = (await files(starter_project))["/styles.css"]
    assert "--header-bg: #1e2a5a;" in css
    assert "Your message asked for navy, so it wins over the #0f766e of your instructions." in (
        await answer(navy)
    )
    # Asked for "my main colour", it takes the one the instructions name.
    await turn(starter_project, conversation, "Make the header navy")
    await turn(starter_project, conversation, "Use my main colour for the header")
    assert "--header-bg: #0f766e;" in (await files(starter_project))["/styles.css"]


@pytest.mark.django_db(transaction=True)
async def test_the_tone_in_the_instructions_words_the_site_and_the_answer(
    starter_project: Project, project: Project
) -> None:
    friendly, friendly_said = await built(starter_project, "Write in a friendly, casual tone.\n")
    formal, formal_said = await built(project, "Keep the wording formal.\n")

    assert "<h2>Say hello</h2>" in friendly["/index.html"]
    assert "Hi there! Welcome to our little bakery." in friendly["/index.html"]
    assert friendly_said.startswith("All set: your site is ready!")
    assert "Following your instructions: a friendly, casual tone." in friendly_said
    assert "<h2>Contact us</h2>" in formal["/index.html"]
    assert "Please write to us or visit us" in formal["/index.html"]
    assert formal_said.startswith("The site has been built.")
    assert "Following your instructions: a formal tone." in formal_said
    # The same site again without instructions, replacing it: the demo's own words.
    plain, plain_said = await built(project, "", "Replace the site with " + BAKERY[6:])
    assert "<h2>Contact</h2>" in plain["/index.html"]
    assert "<h1>Crumb</h1>" in plain["/index.html"]
    assert plain_said.startswith("Done: the site is built.")
    assert "script.js" not in plain_said, "the same script is not written again"
    assert "Failed" not in plain_said
    assert "instructions" not in plain_said


@pytest.mark.django_db(transaction=True)
async def test_a_name_and_a_serif_font_from_the_instructions(project: Project) -> None:
    now, said = await built(
        project,
        "- The business is called Loaf & Ladle.\n- Use a serif font.\n",
        "Build a one-page site for a bakery",
    )

    assert "<h1>Loaf</h1>" in now["/index.html"]
    assert "Georgia" in now["/styles.css"]
    assert "Following your instructions: the name Loaf; a serif font." in said


@pytest.mark.django_db(transaction=True)
async def test_an_edit_to_the_instructions_counts_from_the_next_turn(
    starter_project: Project,
) -> None:
    conversation = await new_conversation(starter_project)
    await instruct(starter_project, "Tone: friendly.\n")
    await turn(starter_project, conversation, BAKERY)
    faq = await turn(starter_project, conversation, "Add a FAQ section")
    assert "<h2>Got questions?</h2>" in (await files(starter_project))["/index.html"]
    assert (await answer(faq)).startswith("All set: your new section is in!")

    await instruct(starter_project, "Tone: formal.\n")
    team = await turn(starter_project, conversation, "Add a team section")

    page = (await files(starter_project))["/index.html"]
    assert "<h2>Our team</h2>" in page
    assert "The professionals behind our work." in page
    assert (await answer(team)).startswith("The section has been added.")


@pytest.mark.django_db(transaction=True)
async def test_the_line_on_the_instructions_comes_only_where_they_changed_something(
    starter_project: Project,
) -> None:
    """The starter's own instructions (a warm, plain tone; English) are no news
    on a turn that writes no text: a walkthrough saw the line under every turn."""
    conversation = await new_conversation(starter_project)
    recoloured = await answer(await turn(starter_project, conversation, "Make the header green"))
    added = await answer(await turn(starter_project, conversation, "Add a FAQ section"))

    assert "Following your instructions" not in recoloured
    assert "Following your instructions: a warm, plain tone; English." in added


@pytest.mark.django_db(transaction=True)
async def test_a_plan_is_worded_in_the_tone_and_says_so(starter_project: Project) -> None:
    await instruct(starter_project, "Write in a friendly, casual tone.\n")
    conversation = await new_conversation(starter_project)

    planned = await turn(starter_project, conversation, "Add a contact section", plan=True)

    plan = await answer(planned)
    assert "add a “Say hello” section" in plan
    assert plan.endswith("Following your instructions: a friendly, casual tone.")


@pytest.mark.django_db(transaction=True)
async def test_instructions_it_cannot_follow_are_named_once_honestly(
    starter_project: Project,
) -> None:
    now, said = await built(starter_project, "# Rules\n\n- Always answer in rhyme.\n")

    line = (
        "I read your project instructions (AGENTS.md); as the offline demo I can follow a "
        "colour, a tone, a name or a font there, not “Always answer in rhyme”."
    )
    assert said.count(line) == 1
    assert "Following your instructions" not in said
    assert "<h1>Crumb</h1>" in now["/index.html"], "it still does what was asked"


@pytest.mark.django_db(transaction=True)
async def test_asked_to_remember_it_adds_the_line_and_follows_it_next_turn(
    starter_project: Project,
) -> None:
    conversation = await new_conversation(starter_project)

    remembered = await turn(starter_project, conversation, "Remember to always use teal")

    assert ("read_file", "/AGENTS.md") in called(remembered)
    assert ("edit_file", "/AGENTS.md") in called(remembered)
    agents = (await files(starter_project))["/AGENTS.md"]
    assert agents == STARTER_FILES["/AGENTS.md"] + "- Always use teal.\n", "all else kept"
    said = await answer(remembered)
    assert said.startswith("Done: noted in AGENTS.md.")
    assert "I'll follow it from your next message on." in said

    built_after = await turn(starter_project, conversation, BAKERY)
    assert "--accent: #0f766e;" in (await files(starter_project))["/styles.css"]
    assert "teal as the main colour" in (await answer(built_after))


@pytest.mark.django_db(transaction=True)
async def test_asked_to_remember_on_a_project_without_instructions_it_starts_them(
    project: Project,
) -> None:
    events = await turn(project, await new_conversation(project), "From now on, write formally")

    assert ("create_file", "/AGENTS.md") in called(events)
    assert "- Write formally.\n" in (await files(project))["/AGENTS.md"]


@pytest.mark.django_db(transaction=True)
async def test_a_line_it_cannot_follow_is_remembered_for_a_real_model(
    starter_project: Project,
) -> None:
    events = await turn(
        starter_project, await new_conversation(starter_project), "Remember that we ship in 3 days"
    )

    assert (await files(starter_project))["/AGENTS.md"].endswith("- We ship in 3 days.\n")
    assert "this one needs a real model" in (await answer(events))


# --- what it reads ---------------------------------------------------------------------


def request_with(instructions: str, message: str = "Build a site") -> list[dict[str, str]]:
    system = (
        'The project is called "Crumb".\n\n'
        + instructions_section(instructions)
        + "\n\nCurrent files:\n- /serif-teal.html (1 KB)"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": message}]


def test_it_reads_only_the_section_the_system_prompt_frames() -> None:
    rules = rules_from(request_with("Write in a playful tone.", "Use a serif font in teal"))

    assert rules.tone == "playful"
    assert (rules.colour, rules.font) == (None, None), "not the message, not the file list"
    assert not rules_from([{"role": "user", "content": "Use teal as the main colour"}]).present


def test_it_reads_a_long_file_up_to_the_cut() -> None:
    long = "Write in a friendly tone.\n" + "x" * MAX_INSTRUCTIONS_CHARS
    rules = rules_from(request_with(long))

    assert rules.tone == "friendly"
    assert not any("Cut here" in sentence for sentence in rules.unread)
    assert rules.cut


def test_it_tells_the_person_when_the_file_was_too_long_to_read_whole() -> None:
    # As the model is told to (chat.agent.instructions): the owner learns the rest
    # of their instructions did not reach it.
    short = rules_from(request_with("Write in a friendly tone."))
    long = rules_from(request_with("Write in a friendly tone.\n" + "x" * MAX_INSTRUCTIONS_CHARS))

    assert "too long" not in followed_line(short)
    assert followed_line(long).startswith("Following your instructions: a friendly")
    assert "Your AGENTS.md is too long to read whole" in followed_line(long)


@pytest.mark.parametrize(
    ("line", "colour"),
    [
        ("Use dark green as the main colour", "#1f5f3a"),
        ("Primary colour: #0f766e", "#0f766e"),
        ("brand colour teal", "#0f766e"),
        ("Never use red.", None),
        ("Use white space generously.", None),
        ("Design: keep it light and simple, and reuse the colours in styles.css.", None),
    ],
)
def test_which_lines_name_a_main_colour(line: str, colour: str | None) -> None:
    found = rules_from(request_with(line)).colour
    assert (found[1] if found else None) == colour
