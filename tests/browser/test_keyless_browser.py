"""Built-It with no API key anywhere, in Chromium over a real socket: the
workspace's notice explains the offline demo until the person has tried it,
then keeps to one line that still says so and links to Settings; Settings
says the demo needs no key."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from chat.llm.config import OPENROUTER_URL
from projects.lifecycle import project_create
from projects.models import Project, ProjectLock
from tests.browser.conftest import ARTIFACTS, sign_in
from tests.servers import server_start, shared_settings

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)


@pytest.fixture(scope="module")
def keyless_url(django_db_setup: None) -> Iterator[str]:
    """The app as `make run` starts it with no key: OpenRouter's address, no key
    on the server (nor in the person's Settings), the demo on."""
    server = server_start(
        shared_settings(OPENROUTER_BASE_URL=OPENROUTER_URL, OPENROUTER_API_KEY="")
    )
    try:
        yield server.url
    finally:
        server.stop()


def _project(owner: User, name: str) -> Project:
    project = project_create(owner=owner, name=name, starter=True)
    assert isinstance(project, Project)
    return project


def _open(page: Page, url: str, project: Project) -> None:
    page.goto(f"{url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")


def _height(page: Page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["height"]


@pytest.mark.parametrize("width", [1440, 390])
def test_the_keyless_notice_is_one_line_once_the_demo_was_tried(
    page: Page, keyless_url: str, transactional_db: None, browser_user: User, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
    sign_in(page, keyless_url)
    project = _project(browser_user, "Crumb")
    _open(page, keyless_url, project)
    notice = page.locator("#model-setup")
    expect(notice).to_contain_text("No model connected")
    expect(notice).to_contain_text("offline demo")
    assert _height(page, "#model-setup") > 60  # four or five lines of the chat's width

    page.fill("#composer-input", "Change the heading to Crumb")
    page.keyboard.press("Enter")
    turn = page.locator("#chat-log article.turn").last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    expect(turn.locator(".turn-footer .model")).to_have_text("builtit/demo")

    brief = notice.locator(".setup-brief")
    expect(brief).to_be_visible()
    expect(notice.locator(".setup-long")).to_be_hidden()
    expect(brief).to_have_text("Offline demo · Add a key for real models")
    assert brief.evaluate("(b) => b.scrollWidth <= b.clientWidth"), "whole, not cut short"
    expect(brief.get_by_role("link", name="Add a key")).to_have_attribute("href", "/settings/")
    assert _height(page, "#model-setup") < 30  # one line
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#chat-panel").screenshot(path=str(ARTIFACTS / f"keyless-brief-{width}.png"))

    # So it stays, and in the person's other projects too.
    other = _project(browser_user, "Petal")
    _open(page, keyless_url, other)
    expect(brief).to_be_visible()
    expect(notice.locator(".setup-long")).to_be_hidden()
    for _ in range(150):  # the demo's turn has let go of the project
        if not ProjectLock.objects.exists():
            break
        page.wait_for_timeout(100)


def test_settings_say_the_demo_needs_no_key(
    page: Page, keyless_url: str, transactional_db: None, browser_user: User
) -> None:
    sign_in(page, keyless_url)
    page.goto(f"{keyless_url}/settings/")
    expect(page.locator("#key-heading + p + .key-state, .key-state").first).to_contain_text(
        "none is needed to try Built-It: the offline demo model works without one"
    )
    expect(page.get_by_text("add your own key to chat with the assistant")).to_have_count(0)
