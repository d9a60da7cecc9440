"""The offline demo model in Chromium (issue 16): on a starter project, three
requests a newcomer types, each step shown and each one true."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from chat.demo.transport import DEMO_MODEL
from projects.lifecycle import project_create
from projects.models import Project
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
    ARTIFACTS.mkdir(exist_ok=True)
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
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "demo-instructions.png"))
