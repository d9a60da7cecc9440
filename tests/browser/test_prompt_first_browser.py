"""Prompt-first start in real Chromium over a real socket: the dashboard asks
"What do you want to build?", Enter builds, the workspace opens on the chat
(whichever panel the tab showed last) with the focus in the message box, or on
a phone on the turn, in view, and its turn runs the request (the fake
OpenRouter answers); the project has the starter's instructions; the answer's
follow-ups show as chips that fill the message box, the same after a reload,
and the request is never sent twice. At 1440 and 390 pixels wide, with
screenshots."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from fakes.script import Reply, ToolCallScript
from projects.models import Project
from tests.browser.conftest import ARTIFACTS, ChatServer, sign_in
from tests.browser.test_layout_browser import CONTRAST

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

REQUEST = "A landing page for my bakery called Crumb, with a menu and opening hours"
PAGE = '<!doctype html>\n<html lang="en"><body><h1>Crumb</h1><h2>Menu</h2></body></html>\n'
SUGGESTIONS = ["Add a contact form", "Make the header dark green", "Add an about page"]
ANSWER = "I built **Crumb**'s page with a menu and the opening hours."


def _script(chat_server: ChatServer) -> None:
    write = ToolCallScript("create_file", {"path": "/index.html", "content": PAGE})
    chat_server.fake.script(
        Reply(tool_calls=[write]), Reply(content=f"{ANSWER}\n\nNext: {' | '.join(SUGGESTIONS)}")
    )


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"prompt-first-{name}.png"))


@pytest.mark.parametrize("width", [1440, 390])
def test_a_request_on_the_dashboard_builds_in_a_new_project_with_next_steps(
    page: Page, chat_server: ChatServer, browser_user: User, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900 if width > 800 else 844})
    sign_in(page, chat_server.url)
    box = page.locator("#start-request")
    expect(box).to_be_focused()  # keyboard first: type at once
    for shown in (box, page.locator("#start-build")):
        bounds = shown.bounding_box()
        assert bounds is not None
        assert bounds["x"] >= 0
        assert bounds["x"] + bounds["width"] <= width
    assert page.evaluate(CONTRAST) == []
    page.keyboard.type(REQUEST)
    _shot(page, f"{width}-dashboard")
    # Earlier in this tab, another project's preview was the panel shown.
    page.evaluate(f"sessionStorage.setItem('builtit:layout:{browser_user.pk}:panel', 'preview')")
    _script(chat_server)
    page.keyboard.press("Enter")

    page.wait_for_url(re.compile(r"/projects/[0-9a-f-]+/\?conversation=\d+$"))
    project = Project.objects.get()
    assert project.name == "Crumb bakery"
    turn = page.locator("#chat-log article.turn").last
    expect(turn.locator(".bubble-text")).to_have_text(REQUEST)
    expect(page.locator("#chat-panel")).to_be_visible()
    # On a phone the message box would bring up the keyboard over the turn.
    expect(turn if width < 1000 else page.locator("#composer-input")).to_be_focused()
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    expect(turn.locator(".turn-footer")).to_be_in_viewport()
    expect(page.locator("#file-tree [data-path='/AGENTS.md']")).to_have_count(1)
    chips = turn.locator(".next-steps .chip")
    expect(chips).to_have_text(SUGGESTIONS)
    expect(turn.locator(".answer")).to_contain_text("with a menu and the opening hours")
    expect(turn.locator(".answer")).not_to_contain_text("Next:")
    for chip in chips.all():
        bounds = chip.bounding_box()
        assert bounds is not None
        assert bounds["x"] + bounds["width"] <= width
    _shot(page, f"{width}-workspace")

    chips.nth(1).click()
    expect(page.locator("#composer-input")).to_have_value(SUGGESTIONS[1])
    expect(page.locator("#composer-input")).to_be_focused()

    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    turn = page.locator("#chat-log article.turn")
    expect(turn).to_have_count(1)  # the request was not sent again
    expect(turn.locator(".next-steps .chip")).to_have_text(SUGGESTIONS)
    expect(turn.locator(".answer")).not_to_contain_text("Next:")
    assert len(chat_server.fake.completions) == 2
