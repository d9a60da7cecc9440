"""Plan first in real Chromium over a real socket: the composer's
switch, reached and turned on by keyboard, makes Send read "Plan" and sends a
plan turn whose model is offered no tool that writes; its answer is a plan card
(with its follow-up chips) that offers no restore, as it changed nothing; the
switch stays on for the next plan, across a reload of the tab, not in a new tab;
"Build this plan", reached by Tab, starts a normal turn whose message carries
the plan (without its "Next:" line) and whose bubble says "Build this plan" with
the plan folded under it, and turns the switch off in every tab; all of it after
a reload; on a phone and in either theme."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Locator, Page, expect

from chat.models import Message
from fakes.script import Reply, ToolCallScript, text
from projects.lifecycle import project_create
from projects.models import Project
from tests.browser.conftest import ARTIFACTS, ChatServer, assert_fits, sign_in
from tests.browser.test_layout_browser import CONTRAST

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

MESSAGE = "Add a contact page"
PLAN = (
    "1. Create `contact.html` with a short form and the opening hours.\n"
    "2. Link it from the navigation in `index.html`."
)
FOLLOW_UPS = ["Add a map to the contact page", "Make the form shorter"]
LOOKING = {"list_project_files", "read_file", "search_files", "check_site"}
CONTACT = '<!doctype html>\n<html lang="en"><body><h1>Contact</h1></body></html>\n'


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
        Reply(tool_calls=[ToolCallScript("read_file", {"path": "/index.html"})]),
        text(f"{PLAN}\n\nNext: {' | '.join(FOLLOW_UPS)}"),
    )
    switch = page.get_by_role("switch", name="Plan first")
    expect(switch).not_to_be_checked()
    page.locator("[data-action=attach-picture]").focus()
    page.keyboard.press("Tab")
    expect(switch).to_be_focused()
    page.keyboard.press("Space")
    _planning(page, on=True)
    page.fill("#composer-input", MESSAGE)
    page.press("#composer-input", "Enter")
    turn = _turn(page, MESSAGE)
    _finished(turn)
    return turn


def _planning(page: Page, *, on: bool) -> None:
    """The switch, and the composer saying what Send will do."""
    switch = page.get_by_role("switch", name="Plan first")
    expect(switch).to_be_checked() if on else expect(switch).not_to_be_checked()
    expect(page.locator("#composer-send")).to_have_text("Plan" if on else "Send")
    placeholder = re.compile(r"^Describe what to plan" if on else r"^Describe what to build")
    expect(page.locator("#composer-input")).to_have_attribute("placeholder", placeholder)


def _shows_the_plan(turn: Locator, *, built: bool = False) -> None:
    expect(turn.locator(".bubble-plan")).to_have_text(
        "Plan only: the assistant looks, and changes nothing"
    )
    card = turn.get_by_role("region", name="Plan · nothing changed yet")
    expect(card).to_be_visible()
    expect(card.locator("ol li")).to_have_count(2)
    expect(card).not_to_contain_text("Next:")
    button = card.get_by_role("button", name="Build this plan")
    # Once a turn follows the plan's, it is not offered again (twice, it builds twice).
    expect(button).to_be_hidden() if built else expect(button).to_be_visible()
    # It changed no file: nothing to restore the project to.
    expect(turn.get_by_role("button", name="Restore the project to here")).to_have_count(0)


def _build_by_keyboard(page: Page, planned: Locator) -> None:
    """Tab from the plan's last step to Build this plan, and Enter."""
    last_step = planned.locator(".steps summary:visible").last
    last_step.focus()
    expect(last_step).to_be_focused()
    page.keyboard.press("Tab")
    expect(planned.locator(".plan-build").get_by_role("button")).to_be_focused()
    page.keyboard.press("Enter")


def _shows_the_build(built: Locator) -> None:
    """Its bubble says what was asked, the plan folded under it as the plan card reads."""
    expect(built.locator(".bubble-text")).to_have_text("Build this plan")
    carried = built.locator(".bubble-carried")
    expect(carried.locator("li")).to_have_count(2)
    expect(carried.locator("li").first).to_be_hidden()  # folded
    carried.locator("summary").click()
    expect(carried.locator("li code").first).to_have_text("contact.html")
    expect(built.locator(".bubble.user")).not_to_contain_text("`")
    expect(built.locator(".bubble-plan")).to_have_count(0)
    expect(built.locator(".plan-card")).to_have_count(0)


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
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
    expect(planned.locator(".next-steps .chip")).to_have_text(FOLLOW_UPS)
    asked = chat_server.fake.completions
    assert [{t["function"]["name"] for t in r.json["tools"]} for r in asked] == [LOOKING] * 2
    _planning(page, on=True)  # still on: the next message refines the plan
    _shot(page, "1440-planned")
    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    _planning(page, on=True)  # this tab's switch, kept across its reload
    planned = _turn(page, MESSAGE)
    other = page.context.new_page()
    _open(other, chat_server, project)
    _planning(other, on=False)  # a new tab starts without it
    other.get_by_role("switch", name="Plan first").check()
    _planning(other, on=True)
    page.bring_to_front()

    write = ToolCallScript("create_file", {"path": "/contact.html", "content": CONTACT})
    chat_server.fake.script(Reply(tool_calls=[write]), text("Built: the contact page is there."))
    _build_by_keyboard(page, planned)
    built = _turn(page, "Build this plan")
    _finished(built)
    _planning(page, on=False)  # the build is a normal turn, and so is the next message
    _planning(other, on=False)  # in every tab that follows the conversation
    _shows_the_build(built)
    _shows_the_build(_turn(other, "Build this plan"))
    expect(built.locator(".answer")).to_have_text("Built: the contact page is there.")
    expect(built.get_by_role("button", name="Restore the project to here")).to_be_visible()
    sent = Message.objects.filter(role=Message.Role.USER).order_by("sequence").last()
    assert sent is not None
    assert sent.content == f"Build this plan:\n{PLAN}"
    building = chat_server.fake.completions[-2].json
    assert {"create_file", "edit_file"} <= {t["function"]["name"] for t in building["tools"]}
    assert building["messages"][-1] == {"role": "user", "content": f"Build this plan:\n{PLAN}"}
    _shot(page, "1440-built")

    _shows_the_plan(planned, built=True)
    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    _planning(page, on=False)
    _shows_the_plan(_turn(page, MESSAGE), built=True)
    _shows_the_build(_turn(page, "Build this plan"))


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
        *turn.locator(".next-steps .chip").all(),
    ]
    assert_fits(390, *shown)
    assert page.evaluate(CONTRAST) == []
    _shot(page, f"390-{theme}")

    chat_server.fake.script(text("Built: the contact page is there."))
    _build_by_keyboard(page, turn)
    built = _turn(page, "Build this plan")
    _finished(built)
    _planning(page, on=False)
    _shows_the_build(built)
    assert_fits(390, built.locator(".bubble.user"))
    assert page.evaluate(CONTRAST) == []
    _shot(page, f"390-{theme}-built")
    page.set_viewport_size({"width": 1440, "height": 900})
    _shot(page, f"1440-{theme}")
