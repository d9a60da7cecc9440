"""The project's standing instructions (/AGENTS.md, issue 30) from the workspace,
in real Chromium: the top bar's Instructions opens them in the editor and gets
out of the way; on a phone the menu does."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from tests.browser.conftest import ChatServer, sign_in
from tests.browser.test_tool_groups_browser import _open, _starter

pytestmark = pytest.mark.django_db(transaction=True)


def test_instructions_open_in_the_editor_and_the_popover_closes(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    instructions = page.locator("details.instructions")
    instructions.locator("summary").click()
    expect(instructions.locator(".instructions-panel")).to_be_visible()
    instructions.get_by_role("button", name="Open in the editor").click()
    expect(instructions).not_to_have_attribute("open", "")
    expect(page.locator("#editor-pane")).to_contain_text("AGENTS.md")


def test_on_a_phone_the_menu_opens_the_instructions(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    expect(page.locator("details.instructions")).to_be_hidden()  # in the menu instead
    page.click("summary[aria-label=Menu]")
    page.get_by_role("button", name="Instructions (AGENTS.md)").click()
    expect(page.locator("details.account-menu")).not_to_have_attribute("open", "")
    expect(page.locator("#editor-pane")).to_contain_text("AGENTS.md")
