"""Problems the preview reports, answered by the offline demo through the real
loop, with each problem as the workspace attaches it (static/builtit/bridge/problems.js:
an error at its script's file and line, a file that failed to load at the tag
of the page that asked for it). It says what each one is, with its file and
line; it fixes a script that misses its element and a link to a file by almost
the same name; anything else it names with the line to look at, for a real
model, and changes nothing."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from chat.agent.attachments import Problem
from chat.models import Conversation
from demo.asking import Reported
from demo.intents import intent_of
from demo.runtime import asks_about, looked
from projects.files.results import FileWrite
from projects.models import Project
from projects.services import Author, file_delete
from tests.chat.agent.turns import new_conversation
from tests.demo.turns import answer, called, done, files, person_writes, results, turn

pytestmark = pytest.mark.django_db(transaction=True)

FIX = "Fix the problems the preview shows."  # what the preview's "Fix" writes
YEAR = '<p>© <span id="year"></span> Crumb</p>'
# What Chromium says of the demo's script once the footer's span is gone.
NO_YEAR = Problem(
    kind="error",
    message="Uncaught TypeError: Cannot set properties of null (setting 'textContent')",
    file="/script.js",
    line=2,
    column=46,
    page="/index.html",
)
GUARDED = """// The year in the footer, so it never goes stale.
const year = document.getElementById("year");
if (year) year.textContent = new Date().getFullYear();
"""


@pytest.fixture
async def crumb(starter_project: Project) -> Conversation:
    conversation = await new_conversation(starter_project)
    events = await turn(starter_project, conversation, "Build a site for a bakery called Crumb")
    assert all(result.ok for result in results(events))
    return conversation


async def without_year(project: Project) -> dict[str, str]:
    page = (await files(project))["/index.html"]
    assert YEAR in page
    await person_writes(project, "/index.html", page.replace(YEAR, "<p>© Crumb</p>"))
    return await files(project)


@sync_to_async
def delete(project: Project, path: str) -> None:
    """The owner deletes a file, as in the file tree."""
    deleted = file_delete(project=project, path=path, author=Author.person(project.owner))
    assert isinstance(deleted, FileWrite), deleted


def line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if needle in line)


async def test_a_script_whose_element_is_gone_checks_for_it_first(
    starter_project: Project, crumb: Conversation
) -> None:
    before = await without_year(starter_project)

    events = await turn(starter_project, crumb, FIX, attachments=(NO_YEAR,))

    now = await files(starter_project)
    assert now["/script.js"] == GUARDED
    assert {path: text for path, text in now.items() if path != "/script.js"} == {
        path: text for path, text in before.items() if path != "/script.js"
    }, "only the script changes: the person took the span out"
    assert called(events)[-1] == ("edit_file", "/script.js")
    said = await answer(events)
    assert said.startswith("Done: fixed what I could of the preview's problems.")
    assert (
        "- Error in script.js, line 2 (“Uncaught TypeError: Cannot set properties of null "
        "(setting 'textContent')”): index.html has no element #year, so the script stopped "
        "there; it now checks that the element is there before it uses it."
    ) in said
    assert done(events).suggestions, "and what to do next"

    again = await turn(starter_project, crumb, FIX, attachments=(NO_YEAR,))

    assert await files(starter_project) == now, "fixed once, nothing more to do"
    assert "changed nothing" in await answer(again)


async def test_a_script_that_runs_before_its_element_waits_for_the_page(
    starter_project: Project, crumb: Conversation
) -> None:
    page = (await files(starter_project))["/index.html"]
    tag = '  <script src="script.js"></script>\n'
    early = page.replace(tag, "").replace("</head>", tag + "</head>")
    await person_writes(starter_project, "/index.html", early)

    events = await turn(starter_project, crumb, "why is this broken?", attachments=(NO_YEAR,))

    now = await files(starter_project)
    assert '<script defer src="script.js"></script>\n</head>' in now["/index.html"]
    assert now["/script.js"].endswith(
        'document.getElementById("year").textContent = new Date().getFullYear();\n'
    ), "left as it was"
    said = await answer(events)
    assert "index.html runs script.js before the page's #year exists" in said
    assert "it now waits for the page (defer)." in said


@pytest.mark.parametrize(
    ("renamed", "why"),
    [("/scripts.js", "the file by almost the same name"), ("/main.js", "the only one of its kind")],
)
async def test_a_script_that_is_not_there_is_asked_for_by_the_name_it_has(
    starter_project: Project, crumb: Conversation, renamed: str, why: str
) -> None:
    script = (await files(starter_project))["/script.js"]
    await person_writes(starter_project, renamed, script)
    await delete(starter_project, "/script.js")
    page = (await files(starter_project))["/index.html"]
    gone = Problem(
        kind="resource",
        message="/script.js (asked for by index.html)",
        file="/index.html",
        line=line_of(page, 'src="script.js"'),
        page="/index.html",
    )

    events = await turn(starter_project, crumb, FIX, attachments=(gone,))

    now = await files(starter_project)
    assert f'<script src="{renamed.lstrip("/")}"></script>' in now["/index.html"]
    said = await answer(events)
    assert f"Failed to load in index.html, line {gone.line}: it asked for script.js" in said
    assert why in said


async def test_what_it_cannot_fix_it_names_with_the_line_and_changes_nothing(
    starter_project: Project, crumb: Conversation
) -> None:
    script = "// Greets the visitor.\nconst name = 'Ada';\ngreet(name);\n"
    await person_writes(starter_project, "/script.js", script)
    before = await files(starter_project)
    problems = (
        Problem(
            kind="error",
            message="Uncaught ReferenceError: greet is not defined",
            file="/script.js",
            line=3,
            column=1,
            page="/index.html",
        ),
        Problem(kind="console.error", message="Payment widget failed", page="/index.html"),
        Problem(
            kind="resource",
            message="https://cdn.example.com/widget.js (asked for by index.html)",
            file="/index.html",
            line=9,
            page="/index.html",
        ),
    )

    events = await turn(starter_project, crumb, FIX, attachments=problems)

    assert await files(starter_project) == before
    assert not [
        name for name, _ in called(events) if name not in ("list_project_files", "read_file")
    ]
    said = await answer(events)
    assert (
        "none of it is something I can fix safely as the offline demo, so I changed nothing" in said
    )
    assert (
        "- Error in script.js, line 3: “Uncaught ReferenceError: greet is not defined”. "
        "Line 3 reads `greet(name);`: it uses a name that no script defines before it runs."
    ) in said
    assert "- console.error in index.html: “Payment widget failed”. The page's own scripts" in said
    assert "another site's file" in said
    assert "A real model can look into what I left" in said


async def test_words_that_ask_for_something_else_leave_the_problems_be(
    starter_project: Project, crumb: Conversation
) -> None:
    await without_year(starter_project)
    script = (await files(starter_project))["/script.js"]

    events = await turn(starter_project, crumb, "make the header teal", attachments=(NO_YEAR,))

    now = await files(starter_project)
    assert "--header-bg: #0f766e;" in now["/styles.css"]
    assert now["/script.js"] == script
    assert (await answer(events)).startswith("Done: the colour is changed.")


def test_a_file_that_is_there_now_is_not_relinked() -> None:
    page = '<!doctype html>\n<script src="script.js"></script>\n'
    gone = Reported("resource", "/script.js (asked for by index.html)", "/index.html", 2)

    result = looked((gone,), ["/index.html", "/script.js"], {"/index.html": page})

    assert result.calls == []
    assert result.left == [
        "Failed to load in index.html, line 2: “/script.js (asked for by index.html)”: "
        "the file is there now: reload the preview to see."
    ]


@pytest.mark.parametrize(
    ("words", "looks"),
    [
        ("Fix the problems the preview shows.", True),
        ("what's wrong?", True),
        ("", True),
        ("make the header teal and fix the error", True),
        ("make the header teal", False),
        ("add a section about how it works", False),
    ],
)
def test_problems_attached_are_looked_at_unless_the_words_ask_for_something_else(
    words: str, looks: bool
) -> None:
    understood = intent_of(words) not in ("help", "translate")

    assert asks_about(words, understood) is looks
