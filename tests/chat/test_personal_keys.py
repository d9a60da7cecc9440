"""The Settings page: a user's own OpenRouter key, saved encrypted, shown only by its last four."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings

from chat.llm.config import OPENROUTER_URL
from chat.models import PersonalKey
from chat.personal_keys import KeyRefused, clean_key, key_for, key_status

KEY = "sk-or-v1-9f3c2e7d4b1a6c8e0f5d3b2a7c9e1f4d6b8a0c2e4f6a8b0d2c4e6f8aa1b2"
OTHER_KEY = "sk-or-v1-7e5a3c1b9d8f6e4a2c0b8d6f4e2a0c9b7d5f3e1a9c7b5d3f1e8c6a4b2z9y8"
URL = "/settings/"


def _save(client: Client, raw: str | None) -> str:
    """Post a key the way the form does, following the redirect; the final page's HTML."""
    data = {"action": "save"} if raw is None else {"action": "save", "api_key": raw}
    response = client.post(URL, data, follow=True)
    return str(response.content.decode())


def _page(client: Client) -> str:
    response = client.get(URL)
    assert response.status_code == 200
    return str(response.content.decode())


def _assert_no_part_of(key: str, text: str) -> None:
    """Not the key, nor any eight characters of it in a row (the last four alone may show)."""
    for start in range(len(key) - 7):
        assert key[start : start + 8] not in text, f"characters {start}-{start + 8} of the key leak"


def test_saving_a_key_shows_only_its_last_four(user: User, user_client: Client) -> None:
    response = user_client.post(URL, {"action": "save", "api_key": KEY})
    assert response.status_code == 302
    assert response["Location"] == URL

    page = user_client.get(response["Location"]).content.decode()
    assert "Saved key ending in <code>…a1b2</code>" in page
    assert "now use the key ending in …a1b2" in page  # the success message
    _assert_no_part_of(KEY, page)
    assert 'type="password"' in page
    assert 'value="' + KEY not in page


def test_the_stored_ciphertext_hides_the_key_and_decrypts_back(
    user: User, user_client: Client
) -> None:
    _save(user_client, f"  {KEY}\n")

    row = PersonalKey.objects.get(user=user)
    _assert_no_part_of(KEY, row.ciphertext)
    assert row.last_four == "a1b2"
    assert key_for(user) == KEY  # surrounding whitespace from the paste is gone


def test_replacing_a_key_keeps_one_row_and_uses_the_new_key(
    user: User, user_client: Client
) -> None:
    _save(user_client, KEY)
    assert "Replace key" in _page(user_client)

    page = _save(user_client, OTHER_KEY)

    assert PersonalKey.objects.filter(user=user).count() == 1
    assert key_for(user) == OTHER_KEY
    assert "Saved key ending in <code>…z9y8</code>" in page
    assert "a1b2" not in page
    _assert_no_part_of(OTHER_KEY, page)


def test_removing_a_key_forgets_it(user: User, user_client: Client) -> None:
    _save(user_client, KEY)

    response = user_client.post(URL, {"action": "delete"}, follow=True)
    page = response.content.decode()

    assert response.redirect_chain == [(URL, 302)]
    assert "Your key is removed." in page
    assert "Saved key ending in" not in page
    assert "Remove saved key" not in page
    assert key_for(user) is None
    assert not PersonalKey.objects.filter(user=user).exists()


def test_removing_when_there_is_no_key_says_so(user: User, user_client: Client) -> None:
    page = user_client.post(URL, {"action": "delete"}, follow=True).content.decode()

    assert "There was no saved key to remove." in page


def test_each_user_has_their_own_key(
    user: User, user_client: Client, other_user: User, other_client: Client
) -> None:
    _save(user_client, KEY)

    others_page = _page(other_client)
    assert "Saved key ending in" not in others_page
    assert "a1b2" not in others_page
    assert key_for(other_user) is None

    _save(other_client, OTHER_KEY)
    other_client.post(URL, {"action": "delete"})

    assert key_for(user) == KEY
    assert key_for(other_user) is None
    assert "Saved key ending in <code>…a1b2</code>" in _page(user_client)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (None, "Paste your key first."),
        ("", "Paste your key first."),
        ("   \n ", "Paste your key first."),
        ("sk-or-v1-9f3c2e7d 4b1a6c8e0f5d3b2a", "cannot contain spaces, line breaks"),
        ("sk-or-v1-9f3c2e7d\t4b1a6c8e0f5d3b2a", "cannot contain spaces, line breaks"),
        ("sk-or-v1-9f3c2e7d\x7f4b1a6c8e0f5d3b2a", "cannot contain spaces, line breaks"),
        ("sk-or-v1-9f3c2e7d€4b1a6c8e0f5d3b2a", "only contain plain ASCII"),
        ("sk-or-v1-9f3c2e", "too short to be an API key (at least 16 characters)"),
        ("sk-or-v1-" + "9f3c2e7d" * 64, "too long to be an API key (at most 512 characters)"),
    ],
)
def test_a_bad_key_is_refused_with_a_clear_sentence_and_nothing_stored(
    user: User, user_client: Client, raw: str | None, message: str
) -> None:
    data = {"action": "save"} if raw is None else {"action": "save", "api_key": raw}
    response = user_client.post(URL, data)
    page = response.content.decode()

    assert response.status_code == 422
    assert '<p id="api-key-error" class="field-error" role="alert">' in page
    assert message in page
    assert 'aria-describedby="api-key-help api-key-error"' in page
    assert not PersonalKey.objects.exists()
    if raw and raw.strip():
        _assert_no_part_of(raw.strip(), page)


def test_a_bad_key_leaves_the_saved_one_in_place(user: User, user_client: Client) -> None:
    _save(user_client, KEY)

    response = user_client.post(URL, {"action": "save", "api_key": "too short"})

    assert response.status_code == 422
    assert key_for(user) == KEY
    assert "Saved key ending in <code>…a1b2</code>" in response.content.decode()


def test_a_key_for_another_compatible_server_need_not_start_with_sk_or() -> None:
    assert clean_key("  local-server-token-0123456789 ") == "local-server-token-0123456789"
    assert isinstance(clean_key(12345678901234567890), KeyRefused)


def test_an_unknown_action_is_refused(user: User, user_client: Client) -> None:
    response = user_client.post(URL, {"action": "reveal", "api_key": KEY})

    assert response.status_code == 400
    assert not PersonalKey.objects.exists()


def test_anonymous_visitors_are_sent_to_sign_in(user: User) -> None:
    anonymous = Client()

    response = anonymous.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))

    anonymous.post(URL, {"action": "save", "api_key": KEY})
    assert not PersonalKey.objects.exists()


def test_a_key_saved_under_an_old_secret_is_reported_unreadable(
    user: User, user_client: Client, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    _save(user_client, KEY)
    settings.SECRET_KEY = "a-freshly-generated-secret-key-that-replaced-the-old-one"
    settings.SECRET_KEY_FALLBACKS = []

    with caplog.at_level(logging.WARNING, logger="chat.personal_keys"):
        assert key_for(user) is None
    assert "cannot be decrypted" in caplog.text
    _assert_no_part_of(KEY, caplog.text)

    user_client.force_login(user)  # the session was signed with the old secret too
    page = _page(user_client)
    assert "Your saved key can no longer be read (the server's secret key changed)" in page
    assert "Saved key ending in" not in page
    assert "Remove saved key" in page

    _save(user_client, KEY)
    assert key_for(user) == KEY


def test_a_key_stays_readable_when_the_old_secret_is_a_fallback(
    user: User, user_client: Client, settings: Settings
) -> None:
    _save(user_client, KEY)
    old_secret = settings.SECRET_KEY
    settings.SECRET_KEY = "a-freshly-generated-secret-key-that-replaced-the-old-one"
    settings.SECRET_KEY_FALLBACKS = [old_secret]

    assert key_for(user) == KEY
    user_client.force_login(user)
    assert "Saved key ending in <code>…a1b2</code>" in _page(user_client)

    # Saving again encrypts under the new secret, so the fallback can then go.
    _save(user_client, KEY)
    settings.SECRET_KEY_FALLBACKS = []
    assert key_for(user) == KEY


@pytest.mark.parametrize(
    ("server_key", "demo", "sentence"),
    [
        ("sk-or-v1-the-servers-own-key-0000", True, "Turns use the server's key."),
        (
            "",
            True,
            "No server key is configured, and none is needed to try Built-It: the offline "
            "demo model works without one. Add your own key to chat with a real model.",
        ),
        ("", False, "No server key is configured: add your own key to chat with the assistant."),
    ],
)
def test_without_a_key_the_page_says_whether_the_server_has_one(
    user_client: Client, settings: Settings, server_key: str, demo: bool, sentence: str
) -> None:
    settings.OPENROUTER_API_KEY = server_key
    settings.OPENROUTER_BASE_URL = OPENROUTER_URL
    settings.BUILTIT_DEMO_ENABLED = demo

    page = _page(user_client)

    assert sentence in page
    assert "Saved key ending in" not in page
    if server_key:
        _assert_no_part_of(server_key, page)


def test_with_a_key_the_page_does_not_talk_about_the_server_key(
    user_client: Client, settings: Settings
) -> None:
    settings.OPENROUTER_API_KEY = ""
    _save(user_client, KEY)

    page = _page(user_client)

    assert "No server key is configured" not in page
    assert "Turns use the server" not in page


def test_the_page_says_where_to_get_a_key_and_is_linked_from_the_menu(
    user_client: Client,
) -> None:
    page = _page(user_client)
    assert 'href="https://openrouter.ai/keys"' in page
    assert '<label for="api-key">' in page

    dashboard = user_client.get(reverse("dashboard")).content.decode()
    assert f'href="{URL}">Settings</a>' in dashboard


def test_key_status_never_carries_the_key(user: User, user_client: Client) -> None:
    assert key_status(user).stored is False

    _save(user_client, KEY)
    status = key_status(user)

    assert (status.stored, status.readable, status.last_four) == (True, True, "a1b2")
    assert status.saved_at is not None
    _assert_no_part_of(KEY, repr(status))


def test_staff_see_who_has_a_key_but_never_its_ciphertext(
    admin_client: Client, user: User, user_client: Client
) -> None:
    _save(user_client, KEY)
    row = PersonalKey.objects.get(user=user)

    listing = admin_client.get(reverse("admin:chat_personalkey_changelist"))
    detail = admin_client.get(reverse("admin:chat_personalkey_change", args=[row.pk]))

    for response in (listing, detail):
        assert response.status_code == 200
        text = response.content.decode()
        assert "a1b2" in text
        assert row.ciphertext not in text
        assert row.ciphertext[:40] not in text
        _assert_no_part_of(KEY, text)
    assert ">ada</a>" in listing.content.decode()
    assert admin_client.get(reverse("admin:chat_personalkey_add")).status_code == 403


def test_staff_can_revoke_a_key(admin_client: Client, user: User, user_client: Client) -> None:
    _save(user_client, KEY)
    row = PersonalKey.objects.get(user=user)

    response = admin_client.post(
        reverse("admin:chat_personalkey_delete", args=[row.pk]), {"post": "yes"}
    )

    assert response.status_code == 302
    assert key_for(user) is None


def test_a_keyless_local_model_server_is_said_to_work(
    user_client: Client, settings: Settings
) -> None:
    # A local OpenAI-compatible server (Ollama, llama.cpp) needs no key at all.
    settings.OPENROUTER_API_KEY = ""
    settings.OPENROUTER_BASE_URL = "http://127.0.0.1:11434/v1"

    page = _page(user_client)

    assert "No key is needed: turns use the model this server is set up with." in page
    assert "No server key is configured" not in page
    _save(user_client, KEY)
    page = _page(user_client)
    assert "Turns then use the model this server is set up with." in page
    assert "cannot chat" not in page
