"""Settings and sign-up as a person meets them in Chromium: asking before a
token is revoked, copying a new token, and sign-up errors that say what to fix."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from chat.models import AccessToken
from tests.browser.conftest import answer, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_tokens_on_a_phone_are_cards_with_revoke_in_reach(
    page, live_server, browser_user: User
) -> None:
    """At 390 px the token list fits the screen: no sideways scroll, each
    token's lines labelled, its Revoke button whole inside the card."""
    sign_in(page, live_server.url)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/settings/")
    for name in ("deploy script from the laptop", "ci"):
        page.fill("#token-name", name)
        page.click("text=Make a token")
    table = page.locator("table.tokens")
    assert table.evaluate("(t) => t.parentElement.scrollWidth - t.parentElement.clientWidth") == 0
    labels = table.locator("tbody tr").first.evaluate(
        "(row) => [...row.cells].map((c) => getComputedStyle(c, '::before').content)"
    )
    assert '"Starts with: "' in labels
    revoke = page.get_by_role("button", name="Revoke").first
    box = revoke.bounding_box()
    card = table.bounding_box()
    assert box is not None
    assert card is not None
    assert box["x"] + box["width"] <= card["x"] + card["width"]


def test_a_token_is_copied_and_revoked_only_after_asking(
    context, page, live_server, browser_user: User, dialogs
) -> None:
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    sign_in(page, live_server.url)
    page.goto(live_server.url + "/settings/")
    page.fill("#token-name", "deploy script")
    page.click("text=Make a token")

    secret = page.inner_text("#new-token-secret").strip()
    page.get_by_role("button", name="Copy the token").click()
    expect(page.get_by_role("button", name="Copy the token")).to_have_text("Copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == secret

    page.click("button:has-text('Revoke')")
    expect(page.locator("dialog.ask-dialog[open]")).to_contain_text(
        "Revoke the token deploy script?"
    )
    answer(page, accept=False)
    assert AccessToken.objects.filter(user=browser_user).count() == 1

    page.click("button:has-text('Revoke')")
    answer(page)
    expect(page.locator("body")).to_contain_text("Token revoked")
    assert not AccessToken.objects.filter(user=browser_user).exists()
    assert dialogs.seen == []  # never the browser's own confirm()
