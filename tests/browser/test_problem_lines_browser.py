"""Problems point at the right line, in Chromium: an error in a
page's inline script names the page's file (the home page too, served at `/`)
and its line in the stored file, whatever the preview adds to the page; a
stylesheet or script that is not there points at the tag that asked for it;
clicking a problem opens that file at that line, and "Fix" tells the model the
same. And the editor marks no valid CSS as wrong."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from fakes.script import text
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project
from projects.services import Author, file_create
from tests.browser.conftest import ChatServer, open_file, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)


def _page(title: str, *, script: str, before: int, head: str = "") -> str:
    """A page whose inline script runs `script` after `before` lines of content."""
    rows = "\n".join(f"    <li>Row {number}</li>" for number in range(before))
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{title}</title>{head}
</head>
<body>
  <h1 id="title">{title}</h1>
  <nav><a id="to-contact" href="contact.html">Contact</a>
    <a id="to-about" href="about/">About</a></nav>
  <ul>
{rows}
  </ul>
  <script>
    const greeting = "hello";
    {script}
  </script>
</body>
</html>
"""


HOME = _page("Home", script="missingOnHome();", before=28)
CONTACT = _page("Contact", script="missingOnContact();", before=16)
ABOUT = _page("About", script="missingOnAbout();", before=3)
BROKEN = _page(
    "Broken",
    script="",
    before=2,
    head='\n  <link rel="stylesheet" href="css/site.css">\n'
    '  <link rel="stylesheet"\n        href="css/gone.css">\n  <script src="js/gone.js"></script>',
)
MODERN_CSS = """:root {
  --accent: #c2410c;
  --space: clamp(1rem, 2vw + 0.5rem, 3rem);
}
h1 { color: var(--accent); font-size: clamp(1.5rem, 4vw, 3rem); }
.card { padding: var(--space) calc(var(--space) * 2); gap: min(2rem, 5vw); }
.shade { background: rgb(0 0 0 / 50%); inset: 0; aspect-ratio: 16 / 9; }
.list:is(.a, .b) > li:has(img) { translate: 10px; }
@layer base { p { margin: 0; } }
.menu { & a { color: var(--accent, #333); } }
"""


def _line_of(page: str, needle: str) -> int:
    """The line of `page` (counted from 1) that holds `needle`."""
    return next(number for number, line in enumerate(page.splitlines(), 1) if needle in line)


def _project(owner: User, files: dict[str, str]) -> Project:
    project = project_create(owner=owner, name="Lines", starter=False)
    assert isinstance(project, Project)
    for path, content in files.items():
        written = file_create(
            project=project, path=path, content=content, author=Author.person(owner)
        )
        assert isinstance(written, FileWrite)
    return project


def _open(page: Page, server: ChatServer, project: Project, title: str) -> None:
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    expect(page.frame_locator("#preview-frame").locator("#title")).to_have_text(title)


def _problem_places(page: Page) -> list[str]:
    """Where each listed problem is, as its button says."""
    page.locator("#preview-problems").click()
    places = page.locator("#problems-panel .problems-list li button")
    expect(places.first).to_be_visible()
    return [words.strip() for words in places.all_inner_texts()]


def _cursor_line(page: Page) -> int:
    return int(page.evaluate("builtitWorkspace.editor().getCursorPosition().row")) + 1


def test_an_inline_script_error_names_its_page_and_its_line(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(
        browser_user, {"/index.html": HOME, "/contact.html": CONTACT, "/about/index.html": ABOUT}
    )
    sign_in(page, chat_server.url)
    _open(page, chat_server, project, "Home")
    home_line = _line_of(HOME, "missingOnHome")
    assert _problem_places(page) == [f"index.html:{home_line}:5"]

    page.locator("#problems-panel button", has_text="index.html").click()
    expect(page.locator("#editor-form")).to_have_attribute("data-path", "/index.html")
    page.wait_for_function(
        f"() => builtitWorkspace.editor()?.getCursorPosition().row === {home_line - 1}"
    )
    expect(page.locator("#editor-status .error")).to_have_count(0)

    frame = page.frame_locator("#preview-frame")
    frame.locator("#to-contact").click()
    expect(frame.locator("#title")).to_have_text("Contact")
    contact_line = _line_of(CONTACT, "missingOnContact")
    expect(page.locator("#problems-panel .problems-list button")).to_have_text(
        [f"contact.html:{contact_line}:5"]
    )
    page.locator("#problems-panel button", has_text="contact.html").click()
    expect(page.locator("#editor-form")).to_have_attribute("data-path", "/contact.html")
    page.wait_for_function(
        f"() => builtitWorkspace.editor()?.getCursorPosition().row === {contact_line - 1}"
    )
    assert _cursor_line(page) == contact_line

    # What "Fix" tells the model is the same place.
    chat_server.fake.script(text("Defined it."))
    page.locator("[data-action='fix-problems']").click()
    expect(page.locator("#composer-input")).to_be_focused()  # filled, for the person to send
    page.keyboard.press("Enter")
    turn = page.locator("#chat-log article.turn").last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    expect(turn.locator(".bubble-chips")).to_contain_text(f"Error in contact.html:{contact_line}")
    (request,) = chat_server.fake.completions[-1:]
    asked = next(m["content"] for m in reversed(request.json["messages"]) if m["role"] == "user")
    assert f"- Error at /contact.html:{contact_line}:5: Uncaught ReferenceError" in asked

    # A folder's page is its index.html.
    frame.locator("#to-about").click()
    expect(frame.locator("#title")).to_have_text("About")
    about_line = _line_of(ABOUT, "missingOnAbout")
    expect(page.locator("#problems-panel .problems-list button")).to_have_text(
        [f"about/index.html:{about_line}:5"]
    )


def test_on_a_phone_a_problem_opens_the_code_with_its_line_in_view(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    long_page = _page("Home", script="missingOnHome();", before=80)
    project = _project(browser_user, {"/index.html": long_page})
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project, "Home")
    page.locator("[data-show-panel='preview']").click()
    line = _line_of(long_page, "missingOnHome")
    page.locator("#preview-problems").click()
    page.locator("#problems-panel .problems-list button", has_text=f"index.html:{line}").click()
    expect(page.locator("[data-show-panel='editor']")).to_have_attribute("aria-pressed", "true")
    # Ace draws only the lines in view: the line is drawn, and the cursor is on it.
    expect(page.locator("#ace-editor .ace_line", has_text="missingOnHome();")).to_be_visible()
    assert _cursor_line(page) == line


def test_a_missing_stylesheet_or_script_points_at_the_tag_that_asked_for_it(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(
        browser_user, {"/index.html": BROKEN, "/css/site.css": "h1 { color: teal; }"}
    )
    sign_in(page, chat_server.url)
    _open(page, chat_server, project, "Broken")
    gone_css = _line_of(BROKEN, 'href="css/gone.css"')  # the tag's second line: its href
    gone_js = _line_of(BROKEN, "js/gone.js")
    expect(page.locator("#preview-problems .problems-count")).to_have_text("2")
    assert sorted(_problem_places(page)) == sorted(
        [f"index.html:{gone_css}", f"index.html:{gone_js}"]
    )
    expect(page.locator("#problems-panel")).to_contain_text(
        "css/gone.css (asked for by index.html)"
    )
    page.locator("#problems-panel button", has_text=f"index.html:{gone_css}").click()
    expect(page.locator("#editor-form")).to_have_attribute("data-path", "/index.html")
    page.wait_for_function(
        f"() => builtitWorkspace.editor()?.getCursorPosition().row === {gone_css - 1}"
    )


def test_valid_modern_css_gets_no_mark_in_the_editor(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user, {"/index.html": HOME, "/styles.css": MODERN_CSS})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project, "Home")
    open_file(page, "/styles.css")
    # A real mistake at the end, typed as a person would: a brace closing nothing.
    page.locator("#ace-editor").click()
    page.keyboard.press("Control+End")  # the empty line after the file's last
    page.keyboard.type("}")
    last_row = MODERN_CSS.count("\n")
    marks = "builtitWorkspace.editor().session.getAnnotations()"
    page.wait_for_function(f"() => {marks}.some((mark) => mark.row === {last_row})")
    marked = page.evaluate(marks)
    assert [(mark["row"], mark["type"]) for mark in marked] == [(last_row, "error")], marked
    expect(page.locator(".ace_gutter-cell.ace_error")).to_have_count(1)
    expect(page.locator(".ace_gutter-cell.ace_warning")).to_have_count(0)
