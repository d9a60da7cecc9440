"""Plan first (issue 30) in real Chromium over a real socket: the composer's
switch, reached and turned on by keyboard, sends a plan turn whose model is
offered no tool that writes; its answer is a plan card; "Build this plan"
starts a normal turn whose message carries the plan; both stay after a reload;
on a phone and in either theme."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Locator, Page, expect

from chat.models import Message
from projects.lifecycle import project_create
from projects.models import Project
from tests.browser.conftest import ARTIFACTS, ChatServer, assert_fits, sign_in
from tests.browser.test_layout_browser import CONTRAST
from tests.fakes.script import Reply, ToolCallScript, text

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

MESSAGE = "Add a contact page"
PLAN = (
    "1. Create `contact.html` with a short form and the opening hours.\n"
    "2. Link it from the navigation in `index.html`."
)
LOOKING = {"list_project_files", "read_file", "search_files", "check_site"}


def _starter(owner: User) -> Project:
    project = project_create(owner=owner, name="Plan site", starter=True)
    assert isinstance(project, Project)
    return project


def _open(page: Page, server: ChatServer, project: Project) -> None:
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")


def _turn(page: Page, starts: str) -> Locator:
    bubble = page.locator(".bubble-text", has_text=re.compile(f"^{re.escape(starts)}"))
    return page.locator("#chat-log article.turn").filter(has=bubble).last


def _finished(turn: Locator) -> None:
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))


def _plan_turn(page: Page, server: ChatServer) -> Locator:
    """Plan first, turned on by keyboard, and the message sent; the finished turn."""
    server.fake.script(
        Reply(tool_calls=[ToolCallScript("read_file", {"path": "/index.html"})]), text(PLAN)
    )
    switch = page.get_by_role("switch", name="Plan first")
    expect(switch).not_to_be_checked()
    page.locator("[data-action=attach-picture]").focus()
    page.keyboard.press("Tab")
    expect(switch).to_be_focused()
    page.keyboard.press("Space")
    expect(switch).to_be_checked()
    page.fill("#composer-input", MESSAGE)
    page.press("#composer-input", "Enter")
    turn = _turn(page, MESSAGE)
    _finished(turn)
    return turn


def _shows_the_plan(turn: Locator, *, built: bool = False) -> None:
    expect(turn.locator(".bubble-plan")).to_have_text(
        "Plan only: the assistant looks, and changes nothing"
    )
    card = turn.get_by_role("region", name="Plan · nothing changed yet")
    expect(card).to_be_visible()
    expect(card.locator("ol li")).to_have_count(2)
    button = card.get_by_role("button", name="Build this plan")
    # Once a turn follows the plan's, it is not offered again (twice, it builds twice).
    expect(button).to_be_hidden() if built else expect(button).to_be_visible()


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#chat-panel").screenshot(path=str(ARTIFACTS / f"plan-{name}.png"))


def test_a_plan_turn_then_build_this_plan_live_and_after_a_reload(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)

    planned = _plan_turn(page, chat_server)

    _shows_the_plan(planned)
    asked = chat_server.fake.completions
    assert [{t["function"]["name"] for t in r.json["tools"]} for r in asked] == [LOOKING] * 2
    _shot(page, "1440-light")

    chat_server.fake.script(text("Built: the contact page is there."))
    build = planned.get_by_role("button", name="Build this plan")
    build.focus()
    page.keyboard.press("Enter")
    built = _turn(page, "Build this plan:")
    _finished(built)
    expect(built.locator(".bubble-text")).to_contain_text("1. Create `contact.html`")
    expect(built.locator(".bubble-plan")).to_have_count(0)
    expect(built.locator(".plan-card")).to_have_count(0)
    expect(built.locator(".answer")).to_have_text("Built: the contact page is there.")
    sent = Message.objects.filter(role=Message.Role.USER).order_by("sequence").last()
    assert sent is not None
    assert sent.content == f"Build this plan:\n{PLAN}"
    building = chat_server.fake.completions[-1].json["tools"]
    assert {"create_file", "edit_file"} <= {t["function"]["name"] for t in building}

    _shows_the_plan(planned, built=True)
    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    _shows_the_plan(_turn(page, MESSAGE), built=True)
    expect(_turn(page, "Build this plan:").locator(".plan-card")).to_have_count(0)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_switch_and_the_plan_fit_a_phone_and_read_well_in_either_theme(
    page: Page, chat_server: ChatServer, browser_user: User, theme: str
) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    page.evaluate(f"localStorage.setItem('builtit:theme', '{theme}')")
    _open(page, chat_server, project)

    turn = _plan_turn(page, chat_server)

    _shows_the_plan(turn)
    shown = [
        page.get_by_role("switch", name="Plan first"),
        page.locator("#composer-send"),
        turn.locator(".plan-card"),
        turn.get_by_role("button", name="Build this plan"),
    ]
    assert_fits(390, *shown)
    assert page.evaluate(CONTRAST) == []
    _shot(page, f"390-{theme}")
    page.set_viewport_size({"width": 1440, "height": 900})
    _shot(page, f"1440-{theme}")
