"""The site checked at the end of a turn that changed files, in real
Chromium: under the turn, live and after a reload, opened with the keyboard,
and "Fix with the assistant" putting the findings in the message box; on a
phone and in dark mode."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Locator, Page, expect

from fakes.script import Reply, ToolCallScript, text
from tests.browser.conftest import ARTIFACTS, ChatServer, assert_fits, sign_in
from tests.browser.test_layout_browser import CONTRAST
from tests.browser.test_tool_groups_browser import _finished, _open, _send, _starter

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

MESSAGE = "Link a menu page"
PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Bakery</title>'
    '</head><body><h1>Bakery</h1><a href="menu.html">Our menu</a></body></html>\n'
)


def _turn(page: Page) -> Locator:
    bubble = page.locator(".bubble-text", has_text=re.compile(f"^{re.escape(MESSAGE)}$"))
    return page.locator("#chat-log article.turn").filter(has=bubble).last


def _script(server: ChatServer) -> None:
    write = ToolCallScript("update_file", {"path": "/index.html", "content": PAGE})
    server.fake.script(Reply(tool_calls=[write]), text("I linked the menu page."))


def _shows_the_check(page: Page, turn: Locator, *, draft: str = "") -> None:
    check = turn.locator(".site-check")
    expect(check.locator("summary")).to_have_text(
        re.compile(r"^Site check: \d+ things? to look at$")
    )
    expect(check.locator("li").first).to_be_hidden()  # folded
    check.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(check.locator("li", has_text="menu.html")).to_be_visible()
    box = page.locator("#composer-input")
    box.fill(draft)
    fix = check.locator("button", has_text="Fix with the assistant")
    fix.focus()
    page.keyboard.press("Enter")
    expect(box).to_be_focused()
    assert box.evaluate("(b) => b.selectionStart === b.value.length"), "ready to type at the end"
    # After a draft already in the box, never over it.
    kept = re.escape(f"{draft}\n\n") if draft else ""
    expect(box).to_have_value(
        re.compile(f"^{kept}" + r"Fix what the site check found:\n- /index\.html:\d+: .*menu\.html")
    )


def test_a_turn_that_changed_files_ends_with_the_site_checked(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    _script(chat_server)
    _send(page, MESSAGE)
    turn = _turn(page)
    _finished(turn)
    _shows_the_check(page, turn)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#chat-panel").screenshot(path=str(ARTIFACTS / "site-check-1440-live.png"))

    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    _shows_the_check(page, _turn(page), draft="Also make the heading larger")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_check_fits_a_phone_and_reads_well_in_either_theme(
    page: Page, chat_server: ChatServer, browser_user: User, theme: str
) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    page.evaluate(f"localStorage.setItem('builtit:theme', '{theme}')")
    _open(page, chat_server, project)
    _script(chat_server)
    _send(page, MESSAGE)
    turn = _turn(page)
    _finished(turn)
    check = turn.locator(".site-check")
    check.locator("summary").click()
    assert_fits(390, check, *check.locator("li").all(), check.locator("button"))
    assert page.evaluate(CONTRAST) == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#chat-panel").screenshot(path=str(ARTIFACTS / f"site-check-390-{theme}.png"))
