"""The model's tools and the owner's instructions (/AGENTS.md, issue 30): every
write that would change them is refused unless the person's message of the
turn asks to remember something (chat.tools.instructions)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chat.tools import ToolContext, ToolOutcome, asks_to_remember, file_tools
from projects.models import Project
from projects.selectors import file_list
from projects.services import Author
from projects.starter import STARTER_FILES


def call(project: Project, name: str, *, may_change: bool, **arguments: Any) -> ToolOutcome:
    tool = file_tools().get(name)
    assert tool is not None, name
    args = tool.parse(json.dumps(arguments))
    assert not isinstance(args, ToolOutcome), args.result
    versions = {info.path: info.version for info in file_list(project)}
    context = ToolContext(project, Author.assistant(), versions, may_change_instructions=may_change)
    return tool.handler(args, context)


@pytest.mark.parametrize(
    "message",
    [
        "Remember that I like short pages",
        "From now on, write in Portuguese",
        "Always use British spelling",
        "Please note that the shop closes on Mondays",
        "Make a note: no stock photos",
        "Keep in mind the audience is children",
        "Don't forget my brand colour is teal",
        "Add that to AGENTS.md",
        "Update your instructions to mention the bakery",
    ],
)
def test_a_message_that_asks_to_remember_is_recognised(message: str) -> None:
    assert asks_to_remember(message)


@pytest.mark.parametrize(
    "message",
    [
        "Make the heading blue",
        "Add a notes section to the page",
        "Rewrite the footer",
        "Follow the instructions in the brief below",
    ],
)
def test_an_ordinary_message_does_not_ask_to_remember(message: str) -> None:
    assert not asks_to_remember(message)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("update_file", {"path": "/AGENTS.md", "content": "Be loud.\n"}),
        ("edit_file", {"path": "AGENTS.md", "edits": [{"search": "warm", "replace": "cold"}]}),
        ("delete_file", {"path": "/AGENTS.md"}),
        ("rename_file", {"path": "/AGENTS.md", "new_path": "/old.md"}),
        ("rename_file", {"path": "/script.js", "new_path": "/agents.md"}),
    ],
)
def test_every_write_to_the_instructions_is_refused_unless_asked(
    starter_project: Project, name: str, arguments: dict[str, Any]
) -> None:
    before = dict(starter_project.files.values_list("path", "content"))

    outcome = call(starter_project, name, may_change=False, **arguments)

    assert not outcome.ok
    assert outcome.result["code"] == "instructions_protected"
    assert outcome.summary.startswith("Not changed: /")
    assert dict(starter_project.files.values_list("path", "content")) == before


@pytest.mark.django_db
def test_creating_the_instructions_in_any_letter_case_is_refused_unless_asked(
    project: Project,
) -> None:
    outcome = call(project, "create_file", may_change=False, path="/agents.md", content="Hi.\n")

    assert outcome.result["code"] == "instructions_protected"
    assert not project.files.exists()


@pytest.mark.django_db
def test_the_instructions_may_change_when_the_person_asked_to_remember(
    starter_project: Project,
) -> None:
    edits = [{"search": "- Tone: warm and plain", "replace": "- Tone: playful"}]

    outcome = call(starter_project, "edit_file", may_change=True, path="/AGENTS.md", edits=edits)

    assert outcome.ok, outcome.result
    changed = starter_project.files.get(path="/AGENTS.md").content
    assert changed == STARTER_FILES["/AGENTS.md"].replace(
        "- Tone: warm and plain", "- Tone: playful"
    )


@pytest.mark.django_db
def test_other_files_are_written_as_before(starter_project: Project) -> None:
    outcome = call(
        starter_project, "update_file", may_change=False, path="/script.js", content="go();\n"
    )

    assert outcome.ok, outcome.result
