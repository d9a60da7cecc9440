"""Quiet tool calls folded into one line of the chat, in real Chromium over a real
socket: counted as the reads arrive, opened with the keyboard to their cards,
the write's card after it, the same after a reload, on a phone and in dark mode."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Locator, Page, expect

from fakes.script import Reply, ToolCallScript, text
from projects.lifecycle import project_create
from projects.models import Project
from tests.browser.conftest import ARTIFACTS, ChatServer, Held, assert_fits, sign_in
from tests.browser.test_layout_browser import CONTRAST

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

PATHS = ["/index.html", "/styles.css", "/script.js"]
MESSAGE = "Make the styles plainer"

# Every text the group's line is drawn with, in order, whichever frame drew it.
WATCH_LINES = """() => {
  window.groupLines = [];
  const seen = (line) => {
    const text = line.querySelector('.tool-group-text').textContent;
    if (window.groupLines.at(-1) !== text) window.groupLines.push(text);
  };
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof Element)) continue;
        if (node.matches('.tool-group-line')) seen(node);
        node.querySelectorAll('.tool-group-line').forEach(seen);
      }
    }
  }).observe(document.getElementById('chat-panel'), { childList: true, subtree: true });
}"""


def _starter(owner: User) -> Project:
    project = project_create(owner=owner, name="Plain site", starter=True)
    assert isinstance(project, Project)
    return project


def _open(page: Page, server: ChatServer, project: Project) -> None:
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")


def _send(page: Page, message: str) -> None:
    page.fill("#composer-input", message)
    page.press("#composer-input", "Enter")


def _turn(page: Page) -> Locator:
    bubble = page.locator(".bubble-text", has_text=re.compile(f"^{re.escape(MESSAGE)}$"))
    return page.locator("#chat-log article.turn").filter(has=bubble).last


def _finished(turn: Locator) -> None:
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))


def _rounds(write: Reply | Held) -> list[Reply | Held]:
    """Three reads, one round each (so the line counts up), then the write, then an answer."""
    reads = [Reply(tool_calls=[ToolCallScript("read_file", {"path": path})]) for path in PATHS]
    return [*reads, write, text("The styles are plainer now.")]


def _write() -> Reply:
    css = "body { font-family: system-ui; margin: 2rem; }\n"
    return Reply(
        tool_calls=[ToolCallScript("update_file", {"path": "/styles.css", "content": css})]
    )


def _shows_the_reads_folded_then_the_write(page: Page, turn: Locator) -> None:
    steps = turn.locator(".steps > ol.tool-cards > li")
    expect(steps).to_have_count(2)
    group, written = steps.nth(0), steps.nth(1)
    expect(group).to_have_class("tool-group")
    expect(group.locator(".tool-group-line")).to_have_text("Looked at 3 files")
    expect(group.locator(".tool-group-line")).to_have_attribute("data-state", "done")
    cards = group.locator("li.tool-card")
    expect(cards).to_have_count(3)
    expect(cards.first).to_be_hidden()  # folded until opened

    summary = group.locator("summary").first
    summary.focus()
    page.keyboard.press("Enter")
    expect(group.locator("details").first).to_have_attribute("open", "")
    for card in cards.all():
        expect(card).to_be_visible()
        expect(card).to_have_attribute("data-state", "done")
    expect(cards.locator(".tool-path")).to_have_text(PATHS)
    expect(written).to_have_class(re.compile(r"\btool-card\b"))
    expect(written).to_be_visible()
    expect(written.locator(".tool-name")).to_have_text("Rewrite")
    expect(written.locator(".tool-path")).to_have_text("/styles.css")
    page.keyboard.press("Enter")  # and closed again
    expect(cards.first).to_be_hidden()


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#chat-panel").screenshot(path=str(ARTIFACTS / f"tool-groups-{name}.png"))


def test_three_reads_show_as_one_line_then_the_writes_card_live_and_after_a_reload(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    page.evaluate(WATCH_LINES)
    write = Held(_write())
    chat_server.fake.script(*_rounds(write))

    _send(page, MESSAGE)
    write.wait_until_asked()
    turn = _turn(page)
    # The reads are done and the write is not yet written: one line, no other card.
    expect(turn.locator(".tool-group-line")).to_have_attribute("data-state", "done")
    expect(turn.locator(".tool-group-line")).to_have_text("Looked at 3 files")
    expect(turn.locator("li.tool-card")).to_have_count(3)
    write.release()
    _finished(turn)

    assert page.evaluate("window.groupLines") == [
        "Looked at 1 file",
        "Looked at 2 files",
        "Looked at 3 files",
    ]
    _shows_the_reads_folded_then_the_write(page, turn)

    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    _shows_the_reads_folded_then_the_write(page, _turn(page))
    _shot(page, "1440-light-folded")
    _turn(page).locator("li.tool-group summary").first.click()
    _shot(page, "1440-light")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_folded_line_fits_a_phone_and_reads_well_in_either_theme(
    page: Page, chat_server: ChatServer, browser_user: User, theme: str
) -> None:
    project = _starter(browser_user)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    page.evaluate(f"localStorage.setItem('builtit:theme', '{theme}')")
    _open(page, chat_server, project)
    chat_server.fake.script(*_rounds(_write()))
    _send(page, MESSAGE)
    _finished(_turn(page))
    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")

    turn = _turn(page)
    group = turn.locator("li.tool-group")
    group.locator("summary").first.click()
    expect(group.locator("li.tool-card").first).to_be_visible()
    assert_fits(390, group.locator("summary").first, *group.locator("li.tool-card").all())
    assert page.evaluate(CONTRAST) == []
    _shot(page, f"390-{theme}")
    page.set_viewport_size({"width": 1440, "height": 900})
    _shot(page, f"1440-{theme}")
