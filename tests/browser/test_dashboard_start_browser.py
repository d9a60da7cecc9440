"""The dashboard's starting points in real Chromium: the example requests under
"What do you want to build?", reached by keyboard, one of which builds a site
with the offline demo on a server with no key (at 1440, 768 and 390 px), and
reaches a real model as its first message; the empty list points at the box
above; readable in light and dark."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from projects.models import Project
from projects.starter import STARTING_POINTS
from tests.browser.conftest import ARTIFACTS, ChatServer, _require_browser, assert_fits, sign_in
from tests.browser.test_layout_browser import CONTRAST
from tests.servers import server_start, shared_settings

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

BAKERY = STARTING_POINTS[0]


@pytest.fixture(scope="module")
def keyless_url(django_db_setup: None) -> Iterator[str]:
    """The app as `make run` starts it without a key: OpenRouter (never reached)
    with no key, so new projects use the offline demo."""
    _require_browser()
    server = server_start(
        shared_settings(OPENROUTER_BASE_URL="https://openrouter.ai/api/v1", OPENROUTER_API_KEY="")
    )
    try:
        yield server.url
    finally:
        server.stop()


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"starting-points-{name}.png"), full_page=True)


@pytest.mark.parametrize("width", [1440, 768, 390])
def test_an_example_builds_a_site_keyless_from_the_keyboard(
    page: Page, keyless_url: str, browser_user: User, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900 if width > 800 else 844})
    sign_in(page, keyless_url)
    examples = page.locator("#start-examples .example")
    expect(examples).to_have_count(len(STARTING_POINTS))
    for example, point in zip(examples.all(), STARTING_POINTS, strict=True):
        # Its whole request is its name, at every width (on a phone only the kind shows).
        expect(example).to_have_accessible_name(re.compile(re.escape(point.request)))
        expect(example).to_be_visible()
    assert_fits(width, *examples.all(), page.locator(".empty"))
    empty = page.locator(".empty")
    expect(empty).to_contain_text("box above")
    box = empty.bounding_box()
    question = page.locator("#start-request").bounding_box()
    assert box is not None
    assert question is not None
    assert question["y"] < box["y"], "the box the text speaks of is above it"
    assert page.evaluate(CONTRAST) == []
    _shot(page, f"{width}-dashboard")

    # Keyboard only: from the box, past Build, to the first example; Enter builds.
    expect(page.locator("#start-request")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#start-build")).to_be_focused()
    page.keyboard.press("Tab")
    expect(examples.first).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/projects/[0-9a-f-]+/\?conversation=\d+$"))

    turn = page.locator("#chat-log article.turn").last
    expect(turn.locator(".bubble-text")).to_have_text(BAKERY.request)
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    if width < 768:
        page.click(".panel-tabs button[data-show-panel=preview]")
    preview = page.frame_locator("#preview-frame")
    expect(preview.locator("h1")).to_contain_text("Crumb")
    project = Project.objects.get(owner=browser_user)
    assert project.name == "Crumb bakery"
    assert project.files.filter(path="/index.html").exists()
    _shot(page, f"{width}-built")


def test_an_example_reaches_the_model_as_the_first_message_once(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    portfolio = next(point for point in STARTING_POINTS if point.label == "Portfolio")
    button = page.locator("#start-examples .example", has_text=portfolio.label)
    button.dblclick()  # an impatient double click makes one project
    page.wait_for_url(re.compile(r"/projects/[0-9a-f-]+/\?conversation=\d+$"))
    turn = page.locator("#chat-log article.turn").last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    (first, *_) = chat_server.fake.completions
    asked = [m for m in first.json["messages"] if m["role"] == "user"]
    assert asked[-1]["content"] == portfolio.request
    assert Project.objects.filter(owner=browser_user).count() == 1


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_examples_read_well_in_both_themes(
    page: Page, chat_server: ChatServer, browser_user: User, theme: str
) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, chat_server.url)
    page.evaluate(f"localStorage.setItem('builtit:theme', '{theme}')")
    page.reload()
    expect(page.locator("#start-examples .example").first).to_be_visible()
    page.locator("#start-examples .example").nth(2).hover()
    assert page.evaluate(CONTRAST) == []
    _shot(page, f"{theme}")
