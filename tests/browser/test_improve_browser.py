"""Improve my request in real Chromium: the button beside Send is
offered only with a draft, reached by keyboard, says "Improving…" while the
model writes, puts the rewrite in the box without sending it, and Undo (or
Ctrl+Z in the box) brings the draft back. A provider that fails leaves the
draft and says why. It fits a phone."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from chat.asks import IMPROVE_TASK
from fakes.script import HttpError, text
from projects.lifecycle import project_create
from projects.models import Project
from tests.browser.conftest import ChatServer, Held, assert_fits, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

DRAFT = "a site for my bakery"
REWRITE = (
    "Build a one-page site for my bakery, called [bakery name], with a menu,\n"
    "our story and a contact section with [address] and [opening hours]."
)


def _open(page: Page, server: ChatServer, owner: User) -> None:
    project = project_create(owner=owner, name="Bakery", starter=True)
    assert isinstance(project, Project)
    sign_in(page, server.url)
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")


def test_improve_puts_the_rewrite_in_the_box_unsent_and_undo_brings_the_draft_back(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    _open(page, chat_server, browser_user)
    box = page.locator("#composer-input")
    button = page.get_by_role("button", name="Improve my request")
    expect(button).to_be_disabled()

    held = Held(text(REWRITE))
    chat_server.fake.script(held)
    box.fill(DRAFT)
    expect(button).to_be_enabled()
    page.get_by_role("switch", name="Plan first").focus()
    page.keyboard.press("Tab")
    expect(button).to_be_focused()
    page.keyboard.press("Enter")
    held.wait_until_asked()
    expect(page.locator("#composer-improve")).to_have_accessible_name("Improving…")
    expect(page.locator("#composer-improve")).to_be_disabled()
    expect(box).not_to_be_editable()
    held.release()

    expect(box).to_have_value(REWRITE)
    expect(page.locator("#improve-note")).to_contain_text("Rewritten: read it")
    expect(page.locator("#chat-log article.turn")).to_have_count(0)  # not sent
    (asked,) = chat_server.fake.completions
    assert asked.json["messages"][0]["content"].startswith(IMPROVE_TASK)
    assert asked.json["messages"][-1]["content"] == DRAFT

    page.get_by_role("button", name="Undo").click()
    expect(box).to_have_value(DRAFT)
    expect(page.get_by_role("button", name="Undo")).to_be_hidden()

    # The browser's own undo steps back over the rewrite too.
    chat_server.fake.script(text(REWRITE))
    button.click()
    expect(box).to_have_value(REWRITE)
    box.press("Control+z")
    expect(box).to_have_value(DRAFT)


def test_a_failing_provider_leaves_the_draft_and_says_why_and_it_fits_a_phone(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    _open(page, chat_server, browser_user)
    box = page.locator("#composer-input")
    button = page.get_by_role("button", name="Improve my request")
    assert_fits(390, button, page.locator("#composer-send"), page.locator("#model-input"))

    chat_server.fake.script(HttpError(503, "upstream down"))
    box.fill(DRAFT)
    button.click()

    note = page.locator("#improve-note-text")
    expect(note).to_contain_text("The model provider is unavailable right now")
    expect(note).to_have_class("error")
    expect(box).to_have_value(DRAFT)
    expect(box).to_be_editable()
    expect(button).to_be_enabled()
    expect(page.get_by_role("button", name="Undo")).to_be_hidden()
    assert_fits(390, note)


def test_improve_waits_while_a_turn_runs(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    _open(page, chat_server, browser_user)
    box = page.locator("#composer-input")
    button = page.get_by_role("button", name="Improve my request")
    held = Held(text("Done."))
    chat_server.fake.script(held)
    box.fill("Change the heading to Hello")
    box.press("Enter")
    held.wait_until_asked()
    expect(page.locator("#chat-status[data-busy]")).to_be_visible()

    box.fill(DRAFT)
    expect(button).to_be_disabled()
    held.release()
    expect(page.locator("#chat-status[data-busy]")).to_have_count(0)
    expect(button).to_be_enabled()
