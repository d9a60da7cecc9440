"""The offline demo model in Chromium: on a starter project, three
requests a newcomer types, each step shown and each one true; and
the requests it does not build from (the site check's fix, a picked heading,
rounded buttons, a translation, a second build) change only what they say,
or nothing, and the site stays whole."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Locator, Page, expect

from demo.transport import DEMO_MODEL
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project
from projects.services import Author, file_create, file_update
from tests.browser.conftest import ARTIFACTS, ChatServer, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)


def _send(page: Page, message: str) -> None:
    page.fill("#composer-input", message)
    page.click("#composer-send")


def _finished_turn(page: Page, message: str):
    bubble = page.locator(".bubble-text", has_text=re.compile(f"^{re.escape(message)}$"))
    turn = page.locator("#chat-log article.turn").filter(has=bubble).last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    return turn


def test_the_demo_builds_recolours_and_adds_a_page(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Crumb", starter=True)
    assert isinstance(project, Project)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    page.fill("#model-input", DEMO_MODEL)

    build = "Build a one-page site for a bakery called Crumb with a menu and a contact section"
    _send(page, build)
    turn = _finished_turn(page, build)
    cards = turn.locator("li.tool-card")
    expect(cards.first).to_contain_text("List")
    for card in cards.all():
        expect(card).to_have_attribute("data-state", "done")
    expect(turn.locator(".reasoning").first).to_be_attached()
    expect(turn.locator(".answer").last).to_contain_text("Done: the site is built.")
    preview = page.frame_locator("#preview-frame")
    expect(preview.locator("h1")).to_have_text("Crumb")
    expect(preview.locator("#menu h2")).to_have_text("Menu")
    expect(preview.locator("#contact h2")).to_have_text("Contact")

    _send(page, "make the header dark green")
    turn = _finished_turn(page, "make the header dark green")
    for card in turn.locator("li.tool-card").all():
        expect(card).to_have_attribute("data-state", "done")
    expect(turn.locator(".answer").last).to_contain_text("Done: the colour is changed.")
    header = preview.locator(".site-header")
    expect(header).to_have_css("background-color", "rgb(31, 95, 58)")

    _send(page, "add an about page")
    turn = _finished_turn(page, "add an about page")
    for card in turn.locator("li.tool-card").all():
        expect(card).to_have_attribute("data-state", "done")
    expect(turn.locator(".answer").last).to_contain_text("Done: the page is added.")
    expect(turn.locator(".answer").last).to_contain_text("created about.html")
    link = preview.locator(".site-nav a", has_text="About")
    expect(link).to_have_attribute("href", "about.html")
    expect(page.locator("#file-tree .file-link", has_text="about.html")).to_have_count(1)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "demo-three-turns.png"))


def test_the_demo_remembers_a_colour_and_a_tone_and_builds_with_them(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Crumb", starter=True)
    assert isinstance(project, Project)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    page.fill("#model-input", DEMO_MODEL)

    remember = "Remember to always use teal, and write in a playful tone"
    _send(page, remember)
    turn = _finished_turn(page, remember)
    expect(turn.locator(".answer").last).to_contain_text("Done: noted in AGENTS.md.")
    expect(turn.locator(".answer").last).to_contain_text("I'll follow it from your next message")

    build = "Build a one-page site for a bakery called Crumb with a menu and a contact section"
    _send(page, build)
    turn = _finished_turn(page, build)
    answer = turn.locator(".answer").last
    expect(answer).to_contain_text("Ta-da! Your site is alive!")
    expect(answer).to_contain_text("Following your instructions: teal as the main colour")
    preview = page.frame_locator("#preview-frame")
    expect(preview.locator(".site-header")).to_have_css("background-color", "rgb(15, 118, 110)")
    expect(preview.locator("#menu h2")).to_have_text("The goodies")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "demo-instructions.png"))


def _all_done(turn: Locator) -> None:
    """Every step of the turn done: none failed, none still running."""
    for card in turn.locator("li.tool-card").all():
        expect(card).to_have_attribute("data-state", "done")


def _crumb_is_intact(page: Page) -> None:
    """Its name, its colour, its link to the about page and its sections."""
    preview = page.frame_locator("#preview-frame")
    expect(preview.locator(".brand")).to_have_text("Crumb")
    expect(preview.locator(".site-header")).to_have_css("background-color", "rgb(31, 95, 58)")
    expect(preview.locator(".site-nav a[href='about.html']")).to_have_count(1)
    for section in ("menu", "about", "contact"):
        expect(preview.locator(f"section#{section}")).to_have_count(1)


def test_the_demo_never_destroys_the_site_it_built(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Crumb", starter=True)
    assert isinstance(project, Project)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    page.fill("#model-input", DEMO_MODEL)
    for request in (
        "Build a one-page site for a bakery called Crumb",
        "make the header dark green",
    ):
        _send(page, request)
        _all_done(_finished_turn(page, request))
    # The owner adds a photo without alt in the editor's place; the next turn's check finds it.
    index = project.files.get(path="/index.html")
    saved = file_update(
        project=project,
        path="/index.html",
        content=index.content.replace("  </main>", '    <img src="fresh-loaves.svg">\n  </main>'),
        author=Author.person(browser_user),
    )
    assert isinstance(saved, FileWrite)
    file_create(
        project=project,
        path="/fresh-loaves.svg",
        content="<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/>",
        author=Author.person(browser_user),
    )
    _send(page, "add an about page")
    turn = _finished_turn(page, "add an about page")
    _all_done(turn)
    _crumb_is_intact(page)
    preview = page.frame_locator("#preview-frame")
    expect(preview.locator(".site-nav a", has_text="About")).to_have_count(1)
    expect(preview.locator("#menu .price").first).to_be_visible()

    turn.locator(".site-check button", has_text="Fix with the assistant").click()
    expect(page.locator("#composer-input")).to_have_value(
        re.compile(r"^Fix what the site check found:\n- /index\.html:\d+: The image fresh-loaves")
    )
    page.click("#composer-send")
    # Its own turn, found by its words: `.last` is the turn before until this one shows.
    fixing = page.locator(".bubble-text", has_text=re.compile(r"^Fix what the site check found"))
    turn = page.locator("#chat-log article.turn").filter(has=fixing).last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    _all_done(turn)
    expect(turn.locator(".answer").last).to_contain_text("Done: fixed what I could.")
    expect(preview.locator("img")).to_have_attribute("alt", "Fresh loaves")
    _crumb_is_intact(page)

    page.locator("[data-action='pick-element']").click()
    expect(preview.locator("html")).to_have_css("cursor", "crosshair")  # the page heard it
    preview.locator("#menu h2").click()
    expect(page.locator("#composer-chips li")).to_have_count(1)
    _send(page, "change this heading to Visit us")
    turn = _finished_turn(page, "change this heading to Visit us")
    _all_done(turn)
    expect(preview.locator("#menu h2")).to_have_text("Visit us")
    _crumb_is_intact(page)

    _send(page, "make the buttons rounded")
    _all_done(_finished_turn(page, "make the buttons rounded"))
    expect(preview.locator(".hero .button")).to_have_css("border-top-left-radius", "999px")
    _crumb_is_intact(page)

    for request, said in (
        ("translate the site to French", "I write English only"),
        ("Build a site for my restaurant", "This project already has a site: Crumb"),
    ):
        _send(page, request)
        turn = _finished_turn(page, request)
        expect(turn.locator("li.tool-card[data-state='failed']")).to_have_count(0)
        expect(turn.locator(".answer").last).to_contain_text(said)
        expect(turn.locator(".answer").last).to_contain_text("I changed nothing")
        _crumb_is_intact(page)
    expect(turn.locator(".next-steps .chip").first).to_have_text(
        "Replace the site with a site for my restaurant"
    )
    assert project.files.filter(path="/index.html").get().content.count("Wild mushroom") == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "demo-never-destroys.png"))
