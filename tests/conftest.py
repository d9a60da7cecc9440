"""Shared fixtures: users, projects, signed-in clients. Everything uses the real database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from asgiref.sync import SyncToAsync
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import channel_layers
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connections
from django.test import Client

from fakes.openrouter import FakeOpenRouter
from projects.lifecycle import project_create
from projects.models import Project
from projects.services import Author
from tests.fakes.dns_server import FakeDNS, running
from tests.gitcli import Git


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests last: Playwright's sync API keeps an event loop running on
    the main thread for the rest of the session, and async tests (the client,
    the loop, the consumer) need the thread to themselves."""
    items.sort(key=lambda item: "browser" in item.path.parts)


@pytest.fixture(autouse=True)
def _a_channel_layer_per_test() -> Iterator[None]:
    """No test meets a channel layer an earlier one used: its channels, groups
    and Redis connections (bound to the event loop that made them; each async
    test has a loop of its own) start afresh."""
    channel_layers.backends.pop(DEFAULT_CHANNEL_LAYER, None)
    yield
    channel_layers.backends.pop(DEFAULT_CHANNEL_LAYER, None)


@pytest.fixture(autouse=True)
def _close_async_tests_connections() -> Iterator[None]:
    """An async test's `sync_to_async` reads run in asgiref's one shared thread,
    whose database connection Django never closes (no request ends there). On
    PostgreSQL it outlived the tests and the test database could not be dropped
    ("being accessed by other users"); close it after each test."""
    yield
    SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture(scope="session", autouse=True)
def _dns_server() -> Iterator[FakeDNS]:
    """One DNS server for the whole run, which every look-up of a domain's
    record asks (BUILTIT_DNS_SERVERS): nothing leaves 127.0.0.1."""
    # Set, not overridden: override_settings would hide SETTINGS_MODULE, which
    # a test's own server process (tests/servers.py) is started with.
    before = settings.BUILTIT_DNS_SERVERS
    with running() as fake:
        settings.BUILTIT_DNS_SERVERS = fake.address
        try:
            yield fake
        finally:
            settings.BUILTIT_DNS_SERVERS = before


@pytest.fixture
def dns(_dns_server: FakeDNS) -> Iterator[FakeDNS]:
    """The run's DNS server, holding nothing, for records of this test's own."""
    _dns_server.clear()
    yield _dns_server
    _dns_server.clear()


# The sites origin of the test client's app ("testserver"): projects.web.sites.
SITES_HOST = "sites.testserver"


@pytest.fixture
def sites_client() -> Client:
    """A browser on the sites origin, which serves previews and published sites."""
    return Client(HTTP_HOST=SITES_HOST)


@pytest.fixture
def user(db: None) -> User:
    return User.objects.create_user("ada", "ada@example.com", "correct horse battery")


@pytest.fixture
def other_user(db: None) -> User:
    return User.objects.create_user("mallory", "mallory@example.com", "another long secret")


@pytest.fixture
def author(user: User) -> Author:
    return Author.person(user)


@pytest.fixture
def project(user: User) -> Project:
    """An empty project owned by `user`."""
    result = project_create(owner=user, name="Empty site")
    assert isinstance(result, Project)
    return result


@pytest.fixture
def starter_project(user: User) -> Project:
    """A project with the starter files (/index.html, /styles.css, /script.js, /AGENTS.md)."""
    result = project_create(owner=user, name="Starter site", starter=True)
    assert isinstance(result, Project)
    return result


@pytest.fixture
def user_client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def other_client(other_user: User) -> Client:
    client = Client()
    client.force_login(other_user)
    return client


@pytest.fixture
def fake_openrouter() -> Iterator[FakeOpenRouter]:
    """A fake OpenRouter on a free port; script its replies with `.script(...)`."""
    with FakeOpenRouter() as server:
        yield server


@pytest.fixture
def git(tmp_path: Path) -> Git:
    """The `git` command line, with a home of its own in the test's directory."""
    home = tmp_path / "home"
    home.mkdir()
    runner = Git(home)
    runner("config", "--global", "init.defaultBranch", "main")
    return runner
