"""No lazy writes (DESIGN §6, point 13): create_file, update_file and edit_file
refuse a text with a line standing for content left out, called as the loop calls
them; the person's editor, which writes through the same file service, is not refused."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from chat.tools import ToolContext, ToolOutcome, file_tools
from common.jsontypes import JSONObject, JSONValue
from projects.files.results import FileWrite
from projects.models import FileRevision, Project, ProjectFile
from projects.selectors import file_list
from projects.services import Author, file_update
from projects.starter import STARTER_FILES

STYLES = STARTER_FILES["/styles.css"]
INDEX = STARTER_FILES["/index.html"]
LAZY_STYLES = "/* existing styles */\n\n.hero h1 {\n  color: tomato;\n}\n"


def call(project: Project, name: str, arguments: JSONObject, *, author: Author) -> ToolOutcome:
    tool = file_tools().get(name)
    assert tool is not None, name
    args = tool.parse(json.dumps(arguments))
    assert not isinstance(args, ToolOutcome), args.result
    known = {info.path: info.version for info in file_list(project)}
    outcome = tool.handler(args, ToolContext(project, author, known))
    json.dumps(outcome.result)
    return outcome


def refused(outcome: ToolOutcome) -> str:
    assert not outcome.ok, outcome.result
    assert outcome.result["success"] is False
    assert outcome.result["code"] == "invalid_content"
    error = outcome.result["error"]
    assert isinstance(error, str)
    return error


def content_of(project: Project, path: str) -> str:
    return ProjectFile.objects.get(project=project, path=path).content


def assistant_revisions(project: Project) -> int:
    return FileRevision.objects.filter(project=project, actor="assistant").count()


@pytest.fixture
def assistant(user: User) -> Author:
    return Author.assistant(user)


def test_update_file_refuses_a_lazy_rewrite_and_keeps_the_file(starter_project, assistant):
    outcome = call(
        starter_project,
        "update_file",
        {"path": "/styles.css", "content": LAZY_STYLES},
        author=assistant,
    )

    error = refused(outcome)
    assert error.startswith(
        "Line 1 of your content looks like a placeholder for content left out: "
        "'/* existing styles */'. Nothing was written"
    )
    assert "Write the whole file with update_file" in error
    assert "targeted change with edit_file" in error
    assert outcome.result["path"] == "/styles.css"
    assert outcome.result["current_version"] == 1
    assert content_of(starter_project, "/styles.css") == STYLES
    assert assistant_revisions(starter_project) == 0


def test_update_file_with_the_whole_file_is_written(starter_project, assistant):
    whole = STYLES + "\n.hero h1 {\n  color: tomato;\n}\n"

    outcome = call(
        starter_project, "update_file", {"path": "/styles.css", "content": whole}, author=assistant
    )

    assert outcome.ok, outcome.result
    assert content_of(starter_project, "/styles.css") == whole


def test_create_file_refuses_a_placeholder_and_creates_nothing(starter_project, assistant):
    content = "<!doctype html>\n<html>\n<!-- Rest of the HTML remains unchanged -->\n</html>\n"

    outcome = call(
        starter_project,
        "create_file",
        {"path": "/about.html", "content": content},
        author=assistant,
    )

    error = refused(outcome)
    assert "Line 3 of your content" in error
    assert "'<!-- Rest of the HTML remains unchanged -->'" in error
    assert "Write the complete file with create_file" in error
    assert not ProjectFile.objects.filter(project=starter_project, path="/about.html").exists()


def test_edit_file_refuses_a_replacement_that_leaves_content_out(starter_project, assistant):
    edits: list[JSONValue] = [
        {
            "search": "<h1>Hello, world</h1>\n    <p>This site was started with Built-It.",
            "replace": "<h1>Ada's bakery</h1>\n    <!-- ... existing code ... -->\n    <p>",
        }
    ]

    outcome = call(
        starter_project, "edit_file", {"path": "/index.html", "edits": edits}, author=assistant
    )

    error = refused(outcome)
    # The line number is the edited file's, where the model will find it.
    assert error.startswith(
        "Line 12 of the file as your edits leave it looks like a placeholder for content "
        "left out: '<!-- ... existing code ... -->'."
    )
    assert content_of(starter_project, "/index.html") == INDEX


def test_an_edit_elsewhere_in_a_file_that_shows_a_placeholder_is_written(
    starter_project, assistant, user
):
    # The person keeps a code sample on the page, ellipsis and all.
    sample = INDEX.replace(
        "</header>", "</header>\n  <pre><code>\nfunction greet() {\n  // ...\n}\n</code></pre>"
    )
    someone_saves(starter_project, user, "/index.html", sample)

    heading = call(
        starter_project,
        "edit_file",
        {"path": "/index.html", "edits": [{"search": "Hello, world", "replace": "Fresh bread"}]},
        author=assistant,
    )
    kept = call(
        starter_project,
        "edit_file",
        {
            "path": "/index.html",
            "edits": [
                {"search": "function greet() {\n  // ...", "replace": "function hi() {\n // ..."}
            ],
        },
        author=assistant,
    )

    assert heading.ok, heading.result
    assert kept.ok, kept.result
    assert "function hi() {\n // ...\n}" in content_of(starter_project, "/index.html")


def test_update_file_may_keep_a_placeholder_the_file_shows_but_not_add_another(
    starter_project, assistant, user
):
    sample = "<pre>\n// ...\n</pre>\n"
    someone_saves(starter_project, user, "/index.html", INDEX + sample)

    kept = call(
        starter_project,
        "update_file",
        {"path": "/index.html", "content": INDEX.replace("Hello", "Hi") + sample},
        author=assistant,
    )
    added = call(
        starter_project,
        "update_file",
        {"path": "/index.html", "content": "// ...\n" + INDEX + sample},
        author=assistant,
    )

    assert kept.ok, kept.result
    assert "Line 1 of your content" in refused(added)


def test_a_person_saving_a_placeholder_in_the_editor_is_not_refused(starter_project, user):
    someone_saves(starter_project, user, "/styles.css", LAZY_STYLES)

    assert content_of(starter_project, "/styles.css") == LAZY_STYLES


def test_honest_words_and_ellipses_are_written(starter_project, assistant):
    content = (
        "<p>The rest of the code is open source.</p>\n"
        "<p>\n  Loading…\n</p>\n"
        "<script>\n"
        "  // keep the existing order: the API relies on it\n"
        "  const sum = (...args) => args.reduce((a, b) => a + b, 0);\n"
        "</script>\n"
    )

    outcome = call(
        starter_project, "create_file", {"path": "/open.html", "content": content}, author=assistant
    )

    assert outcome.ok, outcome.result


def test_the_writing_tools_say_lazy_writes_are_refused():
    for name in ("create_file", "update_file", "edit_file"):
        tool = file_tools().get(name)
        assert tool is not None
        assert "rest of the code remains the same" in tool.description, name
        assert "is refused" in tool.description, name


def someone_saves(project: Project, user: User, path: str, content: str) -> None:
    result = file_update(project=project, path=path, content=content, author=Author.person(user))
    assert isinstance(result, FileWrite), result
