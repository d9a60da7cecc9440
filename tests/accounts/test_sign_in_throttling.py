"""Guessing passwords is throttled: after a few wrong
passwords for one account from one address, the site's sign-in and the admin's
refuse even the right one for a while and say how long; a right password
before that resets the count. Real views, real database (django-axes)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from projects.templatetags.builtit import wait_text

PASSWORD = "correct horse battery"


def sign_in(client: Client, url: str, username: str, password: str):
    return client.post(url, {"username": username, "password": password})


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/"])
def test_wrong_passwords_lock_the_account_for_this_address_with_the_wait_in_words(
    user: User, url: str, settings
) -> None:
    user.is_staff = True
    user.save()
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert sign_in(client, url, "ada", "wrong").status_code == 200
    refused = sign_in(client, url, "ada", "wrong")
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "Too many failed sign-ins" in page
    assert "paused for 15 minutes" in page

    right = sign_in(client, url, "ada", PASSWORD)
    assert right.status_code == 429, "even the right password waits"
    assert "_auth_user_id" not in client.session


def test_another_address_or_account_is_not_locked_out(
    user: User, other_user: User, settings
) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in(Client(REMOTE_ADDR="10.0.0.9"), "/accounts/login/", "ada", "wrong")
    elsewhere = sign_in(Client(REMOTE_ADDR="10.0.0.7"), "/accounts/login/", "ada", PASSWORD)
    assert elsewhere.status_code == 302
    other = sign_in(
        Client(REMOTE_ADDR="10.0.0.9"), "/accounts/login/", "mallory", "another long secret"
    )
    assert other.status_code == 302


def test_a_right_password_resets_the_count(user: User, settings) -> None:
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(client, "/accounts/login/", "ada", "wrong")
    assert sign_in(client, "/accounts/login/", "ada", PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(client, "/accounts/login/", "ada", "wrong")
    assert sign_in(client, "/accounts/login/", "ada", PASSWORD).status_code == 302


def test_the_lock_lapses_after_the_wait(user: User, settings) -> None:
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, "/accounts/login/", "ada", "wrong")
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert sign_in(client, "/accounts/login/", "ada", PASSWORD).status_code == 302


def test_waits_read_as_a_person_says_them() -> None:
    assert wait_text(timedelta(minutes=15)) == "15 minutes"
    assert wait_text(timedelta(hours=1)) == "1 hour"
    assert wait_text(timedelta(seconds=45)) == "45 seconds"
    assert wait_text(timedelta(minutes=1)) == "1 minute"
