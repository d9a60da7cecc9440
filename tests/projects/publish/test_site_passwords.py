"""Fair bounds on a protected site's password: one address refused uses up
nothing of what the site allows everyone, and guessing from many addresses
slows each of them without ever refusing the right password to an address
that was not refused. A pass no other site can void: over HTTP a page on a
sibling host may set a cookie of the pass's name for the whole sites host, and
the visitor's own pass still opens the site."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from projects.models import Project
from projects.publish import passwords
from projects.views.published import PASS_COOKIE
from tests.conftest import SITES_HOST
from tests.projects.publish.test_publish import page, published, site_project, write
from tests.projects.publish.test_site_hosts import HOST, SECRET, protect

__all__ = ["site_project"]  # a fixture, used by name

WRONG = "not the password"


@pytest.fixture(autouse=True)
def _no_guesses_counted() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def kept(user_client: Client, site_project: Project) -> Project:
    published(site_project)
    protect(user_client, site_project)
    return site_project


# One client for every visitor (each new one loads the middleware again, and
# WhiteNoise reads every static file then): visitors differ by address.
_BROWSER = Client(HTTP_HOST=HOST)


def visitor(address: str) -> Client:
    """A visitor at `address`, with no cookie yet."""
    _BROWSER.cookies.clear()
    _BROWSER.defaults["REMOTE_ADDR"] = address
    return _BROWSER


def guess(address: str, password: str = WRONG) -> int:
    return visitor(address).post("/", {"password": password}).status_code


def test_an_address_refused_uses_up_nothing_of_the_sites_bound(kept: Project) -> None:
    """Before, each of these counted for the site too, checked before the
    password: 201 wrong tries from one address and every visitor got 429."""
    for _ in range(passwords.TRIES):
        assert guess("203.0.113.9") == 403
    for _ in range(passwords.SITE_TRIES + 1):
        assert guess("203.0.113.9", SECRET) == 429  # refused: the right one too
    assert guess("198.51.100.7", SECRET) == 303
    # The site is not being guessed at: another address still has all its tries.
    for _ in range(passwords.TRIES):
        assert guess("198.51.100.8") == 403
    assert guess("198.51.100.8") == 429


def many_addresses_guess() -> None:
    """SITE_TRIES wrong guesses from many addresses, TRIES each."""
    for n in range(passwords.SITE_TRIES // passwords.TRIES):
        for _ in range(passwords.TRIES):
            assert guess(f"192.0.2.{n}") == 403


def test_guessing_from_many_addresses_slows_each_and_the_right_password_opens(
    kept: Project,
) -> None:
    many_addresses_guess()
    # A new address: fewer tries now, then refused like any other.
    for _ in range(passwords.TRIES_WHILE_GUESSED):
        assert guess("198.51.100.20") == 403
    throttled = visitor("198.51.100.20").post("/", {"password": SECRET})
    assert throttled.status_code == 429
    assert b"Too many wrong passwords" in throttled.content
    # A visitor with the right password, from an address that was not refused,
    # gets in, after a wrong try or two as well.
    opened = visitor("198.51.100.21").post("/about", {"password": SECRET})
    assert opened.status_code == 303
    assert opened["Location"] == "/about"
    assert guess("198.51.100.22") == 403
    assert guess("198.51.100.22", SECRET) == 303


def test_an_ipv6_visitor_counts_with_its_64(kept: Project) -> None:
    for n in range(passwords.TRIES):
        assert guess(f"2001:db8:1:2::{n + 1:x}") == 403
    assert guess("2001:db8:1:2:ffff::1") == 429
    assert guess("2001:db8:1:3::1", SECRET) == 303  # another /64


def test_a_cookie_another_site_set_for_every_host_voids_no_pass(
    user: User, user_client: Client, kept: Project
) -> None:
    """Over HTTP the pass has one name for every site: a page of another site
    can set that name for the sites host, and the browser sends both cookies,
    in an order of its own; the visitor's own still opens the site."""
    other = Project.objects.create(owner=user, name="Other")
    write(other, "/index.html", page("<h1>Other</h1>"))
    published(other, "other-site")
    protect(user_client, other, "another password")
    own = visitor("198.51.100.30").post("/", {"password": SECRET}).cookies[PASS_COOKIE].value
    # What the other site's script set (document.cookie, Domain=<sites host>):
    # a pass of its own, or anything at all.
    theirs = Client(HTTP_HOST="other-site." + SITES_HOST).post(
        "/", {"password": "another password"}
    )
    foreign = theirs.cookies[PASS_COOKIE].value
    browser = visitor("198.51.100.30")
    for header in (
        f"{PASS_COOKIE}={own}; {PASS_COOKIE}={foreign}",
        f"{PASS_COOKIE}={foreign}; {PASS_COOKIE}={own}",
        f"{PASS_COOKIE}=x; theme=dark; {PASS_COOKIE}={own}",
    ):
        assert browser.get("/", HTTP_COOKIE=header).status_code == 200
    # Neither opens what it is not a pass to.
    assert browser.get("/", HTTP_COOKIE=f"{PASS_COOKIE}={foreign}").status_code == 403
