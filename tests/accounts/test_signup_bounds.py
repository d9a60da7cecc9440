"""Sign-up says no more than it must, and bounds how many names one address can
try. A sign-up by username has to refuse a name that is
taken; it no longer says that an account exists, and past
BUILTIT_SIGNUP_ATTEMPTS forms an hour from one address it answers 429 with the
wait in words, creating nothing and telling nothing about the name."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from accounts.models import SignupAttempt

PASSWORD = "a much newer passphrase"


def _sign_up(client: Client, username: str, password2: str = PASSWORD):
    return client.post(
        "/accounts/signup/",
        {"username": username, "password1": PASSWORD, "password2": password2},
    )


def test_a_taken_name_is_refused_without_saying_an_account_exists(user: User) -> None:
    page = _sign_up(Client(), "Ada").content.decode()
    assert "This username is not available. Please choose another." in page
    assert "already exists" not in page
    assert "A user with that username" not in page


def test_trying_names_from_one_address_stops_at_the_bound(
    user: User, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_SIGNUP_ATTEMPTS = 3
    prober = Client(REMOTE_ADDR="198.51.100.4")
    for name in ["bob", "carol", "dave"]:  # mismatched passwords: nothing is created
        assert _sign_up(prober, name, password2="other").status_code == 200
    paused = _sign_up(prober, "ada", password2="other")
    assert paused.status_code == 429
    page = paused.content.decode()
    assert "Too many sign-ups from your address" in page
    assert "Try again in" in page
    assert "not available" not in page, "a paused sign-up says nothing about the name"
    # Not even a good form goes through while paused.
    assert _sign_up(prober, "grace").status_code == 429
    assert not User.objects.filter(username="grace").exists()
    # Another address is not held up.
    assert _sign_up(Client(REMOTE_ADDR="198.51.100.5"), "grace").status_code == 302


def test_accounts_made_count_too_and_the_bound_lapses_after_the_hour(
    db: None, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_SIGNUP_ATTEMPTS = 2
    for name in ["grace", "hedy"]:
        assert _sign_up(Client(REMOTE_ADDR="198.51.100.4"), name).status_code == 302
    assert _sign_up(Client(REMOTE_ADDR="198.51.100.4"), "ida").status_code == 429
    SignupAttempt.objects.update(at=timezone.now() - timedelta(minutes=61))
    assert _sign_up(Client(REMOTE_ADDR="198.51.100.4"), "ida").status_code == 302
    # Old attempts are dropped as new ones come: the table stays small.
    assert SignupAttempt.objects.count() == 1


def test_the_wait_counts_from_the_oldest_attempt_of_the_hour(
    db: None, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_SIGNUP_ATTEMPTS = 1
    _sign_up(Client(REMOTE_ADDR="198.51.100.4"), "grace", password2="other")
    SignupAttempt.objects.update(at=timezone.now() - timedelta(minutes=45))
    page = _sign_up(Client(REMOTE_ADDR="198.51.100.4"), "grace").content.decode()
    assert "Try again in 15 minutes" in page


def test_zero_means_no_bound(db: None, settings: SettingsWrapper) -> None:
    settings.BUILTIT_SIGNUP_ATTEMPTS = 0
    for n in range(12):
        assert _sign_up(Client(), f"user{n}", password2="other").status_code == 200
    assert SignupAttempt.objects.count() == 0


def test_an_ipv6_network_counts_as_one_address(db: None, settings: SettingsWrapper) -> None:
    settings.BUILTIT_SIGNUP_ATTEMPTS = 2
    for host in ["2001:db8:7:7::1", "2001:db8:7:7::2"]:
        _sign_up(Client(REMOTE_ADDR=host), "grace", password2="other")
    assert _sign_up(Client(REMOTE_ADDR="2001:db8:7:7:ffff::9"), "grace").status_code == 429
    assert _sign_up(Client(REMOTE_ADDR="2001:db8:7:8::1"), "grace").status_code == 302
