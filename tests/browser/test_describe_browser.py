"""The first minute without a key, in Chromium: the README's own sentence, "a
bakery called Crumb with a menu and a contact section", typed into the
dashboard's "What do you want to build?", builds the bakery named Crumb with
a menu and a contact form, seen in the preview, at 1440 and 390 pixels wide;
the answer says what it assumed nothing of, and its suggestions fit.

The server has no key and OpenRouter's address, as `make run` on a fresh
machine: the offline demo is the default model, nothing reaches a network."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from chat.llm.config import OPENROUTER_URL
from tests.browser.conftest import ARTIFACTS, _require_browser, assert_fits, sign_in
from tests.servers import server_start, shared_settings

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=20_000)

README = "a bakery called Crumb with a menu and a contact section"


@pytest.fixture(scope="module")
def keyless_url(django_db_setup: None) -> Iterator[str]:
    """A server as `make run` starts one with no key set."""
    _require_browser()
    server = server_start(
        shared_settings(OPENROUTER_BASE_URL=OPENROUTER_URL, OPENROUTER_API_KEY="")
    )
    try:
        yield server.url
    finally:
        server.stop()


@pytest.mark.parametrize("width", [1440, 390])
def test_the_readmes_sentence_on_the_dashboard_builds_crumb_without_a_key(
    page: Page, keyless_url: str, browser_user: User, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900 if width > 800 else 844})
    sign_in(page, keyless_url)
    box = page.get_by_label("What do you want to build?")
    box.fill(README)
    page.locator("#start-build").click()

    page.wait_for_url(re.compile(r"/projects/[0-9a-f-]+/\?conversation=\d+$"))
    turn = page.locator("#chat-log article.turn").last
    expect(turn.locator(".bubble-text")).to_have_text(README)
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    answer = turn.locator(".answer").last
    expect(answer).to_contain_text("Done: the site is built.")
    expect(answer).not_to_contain_text("What I assumed")
    chips = turn.locator(".next-steps .chip")
    expect(chips.first).to_have_text("Add a testimonials section")
    for chip in chips.all():
        assert_fits(width, chip)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"describe-{width}-chat.png"))

    if width < 800:
        page.locator("[data-show-panel='preview']").click()
    preview = page.frame_locator("#preview-frame")
    expect(preview.locator("h1")).to_have_text("Crumb")
    expect(preview.locator("#menu h2")).to_have_text("Menu")
    expect(preview.locator("#menu .price").first).to_be_visible()
    form = preview.locator("#contact form")
    expect(form).to_have_attribute("action", "/_forms/contact")
    expect(form).to_have_attribute("method", "post")
    for label in ("Your name", "Email", "Message"):
        expect(form.get_by_label(label, exact=True)).to_be_visible()
    expect(form.locator("[name=_gotcha]")).to_be_hidden()
    expect(form.get_by_role("button", name="Send message")).to_be_visible()
    form.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"describe-{width}-preview.png"))
