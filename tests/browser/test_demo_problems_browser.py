"""The offline demo answers a problem the preview reports, in Chromium: the
footer's span is gone, so the demo's own script stops with Chromium's "Cannot
set properties of null"; "Fix with the assistant" hands the problem to the
demo, which says what it is, where, and makes the script check for its
element; the reloaded page reports nothing."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from demo.site import brief_from, site_files
from demo.transport import DEMO_MODEL
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_create
from tests.browser.conftest import ChatServer, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

YEAR = '<p>© <span id="year"></span> Crumb</p>'


def _crumb_without_year(owner: User) -> Project:
    project = project_create(owner=owner, name="Crumb", starter=False)
    assert isinstance(project, Project)
    site = site_files(brief_from("a bakery called Crumb"))
    assert YEAR in site["index.html"]
    site["index.html"] = site["index.html"].replace(YEAR, "<p>© Crumb</p>")
    for name, content in site.items():
        written = file_create(
            project=project, path=f"/{name}", content=content, author=Author.person(owner)
        )
        assert isinstance(written, FileWrite)
    return project


def test_the_demo_fixes_a_script_that_lost_its_element(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _crumb_without_year(browser_user)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    page.fill("#model-input", DEMO_MODEL)

    badge = page.locator("#preview-problems")
    expect(badge.locator(".problems-count")).to_have_text("1")
    badge.click()
    panel = page.locator("#problems-panel")
    expect(panel).to_contain_text("Cannot set properties of null")
    expect(panel.locator(".problems-list button")).to_have_text([re.compile(r"script\.js:2:\d+")])
    preview = page.frame(name="preview") or next(f for f in page.frames if "/preview/" in f.url)
    preview.evaluate("window.builtitTestOld = true")  # to know the reloaded page
    turns = page.locator("#chat-log article.turn")
    # "Fix" sends at once, or fills the box for the person to send.
    page.evaluate(
        "() => document.addEventListener('htmx:wsAfterSend', (event) => {"
        " if (event.target.id === 'composer') window.builtitTestSent = true; })"
    )
    panel.locator("[data-action='fix-problems']").click()
    if not page.evaluate("window.builtitTestSent"):
        expect(page.locator("#composer-input")).not_to_have_value("")
        page.click("#composer-send")

    turn = turns.last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    answer = turn.locator(".answer").last
    expect(answer).to_contain_text("Done: fixed what I could of the preview's problems.")
    expect(answer).to_contain_text("Error in script.js, line 2")
    expect(answer).to_contain_text("Cannot set properties of null (setting 'textContent')")
    expect(answer).to_contain_text("index.html has no element #year")
    script = ProjectFile.objects.get(project=project, path="/script.js").content
    assert 'const year = document.getElementById("year");\nif (year) year.' in script
    # The page reloads without the problem: once it has run, a message it posts
    # after (one the workspace ignores, and counts) comes after any problem.
    preview.wait_for_function("!window.builtitTestOld && document.readyState === 'complete'")
    preview.evaluate("parent.postMessage({ test: 'after the page ran' }, '*')")
    expect(page.locator("#problems-panel .problems-dropped")).to_contain_text("1 message")
    expect(badge).to_be_hidden()
