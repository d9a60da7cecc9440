"""The context gauge and compacting by hand in real Chromium over a
real socket: by the message box, how full the model's context was at the last
turn (what the next message starts from) and, on opening, by part; "Compact
the conversation" summarises every turn but the latest, says so, marks the
latest turn with the summary (still there after a reload, and in another tab
at once), and the conversation downloads with its turns and the summary."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Locator, Page, expect

from chat.models import Compaction
from fakes.script import HttpError, text
from projects.lifecycle import project_create
from projects.models import Project
from tests.browser.conftest import ARTIFACTS, ChatServer, assert_fits, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

SUMMARY = "- The site: a bakery called Crumb.\n- Done: a menu page and a green header."
ASKED = ("Add a menu page", "Make the header green", "Add opening hours")


def _open(page: Page, server: ChatServer, project: Project) -> None:
    page.goto(f"{server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")


def _send(page: Page, server: ChatServer, message: str) -> Locator:
    server.fake.script(text(f"Done: {message.lower()}."))
    page.fill("#composer-input", message)
    page.press("#composer-input", "Enter")
    bubble = page.locator(".bubble-text", has_text=message)
    turn = page.locator("#chat-log article.turn").filter(has=bubble).last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    return turn


@pytest.mark.parametrize("width", [1440, 390])
def test_the_gauge_then_compacting_by_hand_keeps_every_turn_and_marks_the_summary(
    page: Page, chat_server: ChatServer, browser_user: User, width: int
) -> None:
    project = project_create(owner=browser_user, name="Crumb", starter=True)
    assert isinstance(project, Project)
    page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    for message in ASKED:
        _send(page, chat_server, message)

    # The gauge for the next message is by the message box, and only there.
    expect(page.locator("#chat-log .context-gauge")).to_have_count(0)
    gauge = page.locator("#composer-gauge details.context-gauge")
    expect(gauge.locator("summary")).to_have_text(re.compile(r"Context \d+%"))
    _just_above(page.locator("#composer-gauge summary"), page.locator("#composer-input"))
    gauge.locator("summary").click()
    parts = gauge.locator(".gauge-parts li")
    expect(parts.filter(has_text="Earlier turns")).to_have_count(1)
    expect(parts.filter(has_text="This message")).to_have_count(1)
    expect(gauge).to_contain_text("Your next message starts from this")
    assert_fits(width, gauge)

    other = page.context.new_page()  # a second tab on the same project
    other.set_viewport_size(page.viewport_size or {"width": width, "height": 844})
    _open(other, chat_server, project)
    expect(other.locator("#chat-log article.turn")).to_have_count(3)
    chat_server.fake.script(text(SUMMARY))
    gauge.get_by_role("button", name="Compact the conversation").click()

    expect(page.locator("#chat-notice")).to_contain_text("Summarised 2 earlier turns")
    for tab in (page, other):  # what the gauge measured is from before
        expect(tab.locator("#composer-gauge")).to_contain_text("summarised since")
    latest = page.locator("#chat-log article.turn").last
    marker = latest.locator("details.summary-marker")
    expect(marker.locator("summary")).to_contain_text("of the 2 turns above")
    marker.locator("summary").click()
    expect(marker.locator(".answer")).to_contain_text("a bakery called Crumb")
    # The other tab sees the mark too, without a reload.
    expect(other.locator("details.summary-marker")).to_have_count(1)
    expect(other.locator("#chat-log article.turn").last.locator(".summary-marker")).to_have_count(1)
    asked = chat_server.fake.completions[-1].json["messages"]
    assert "Add a menu page" in asked[1]["content"]
    assert "Add opening hours" not in asked[1]["content"]  # the latest is kept in full
    assert Compaction.objects.get().by_hand
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#chat-panel").screenshot(path=str(ARTIFACTS / f"compacted-{width}.png"))

    page.reload()
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    expect(page.locator("#chat-log article.turn")).to_have_count(3)
    expect(page.locator("details.summary-marker")).to_have_count(1)
    link = page.get_by_role("link", name="Download the conversation")
    exported = page.request.get(chat_server.url + str(link.get_attribute("href"))).text()
    assert all(message in exported for message in ASKED)
    assert "a bakery called Crumb" in exported


def _just_above(upper: Locator, lower: Locator) -> None:
    """`upper` sits right above `lower`, nothing between them."""
    top, bottom = upper.bounding_box(), lower.bounding_box()
    assert top is not None
    assert bottom is not None
    gap = bottom["y"] - (top["y"] + top["height"])
    assert 0 <= gap < 16, gap
    assert top["x"] + top["width"] <= bottom["x"] + bottom["width"] + 1


def test_a_conversation_too_long_for_the_model_is_compacted_from_its_error(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Crumb", starter=True)
    assert isinstance(project, Project)
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, chat_server.url)
    _open(page, chat_server, project)
    for message in ASKED[:2]:
        _send(page, chat_server, message)
    chat_server.fake.script(
        HttpError(
            400,
            "This endpoint's maximum context length is 4096 tokens. However, you "
            "requested about 9000 tokens.",
        )
    )
    page.fill("#composer-input", "Add a gallery")
    page.press("#composer-input", "Enter")
    error = page.locator("#chat-log article.turn").last.locator(".turn-error")
    expect(error).to_contain_text("no longer fits")

    chat_server.fake.script(text(SUMMARY))
    error.get_by_role("button", name="Compact the conversation").click()

    expect(page.locator("#chat-notice")).to_contain_text(re.compile(r"Summarised \d earlier turns"))
    assert Compaction.objects.get().by_hand
    # The turn is drawn again with the summary's mark above it (from the socket,
    # after the answer): measured once it is there.
    expect(page.locator("#chat-log article.turn").last.locator(".summary-marker")).to_have_count(1)
    assert_fits(390, error)
