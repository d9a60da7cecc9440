"""Real Chromium (Debian's /usr/bin/chromium) driven by Playwright against a live server.

Without the browser these tests skip, except where BUILTIT_REQUIRE_BROWSER=1
(as in CI), where a missing browser is a failure.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("BUILTIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "a long browser password"


def _require_browser() -> None:
    if Path(CHROMIUM).exists():
        return
    message = (
        f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set BUILTIT_CHROMIUM)"
    )
    if os.environ.get("BUILTIT_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    _require_browser()
    # Playwright's sync API runs an event loop in this thread; Django's guard
    # against ORM calls from async code would trip on the test's own fixtures.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def context(browser, request: pytest.FixtureRequest) -> Iterator[object]:
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    ctx.set_default_timeout(10_000)
    yield ctx
    if request.node.stash.get(_FAILED, False):
        ARTIFACTS.mkdir(exist_ok=True)
        for number, page in enumerate(ctx.pages):
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
            page.screenshot(path=str(ARTIFACTS / f"{name}-{number}.png"), full_page=True)
    ctx.close()


@pytest.fixture
def page(context) -> object:
    return context.new_page()


@pytest.fixture
def browser_user(transactional_db: None) -> User:
    return User.objects.create_user("grace", "grace@example.com", PASSWORD)


def sign_in(page, base_url: str, username: str = "grace") -> None:
    page.goto(base_url + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base_url + "/")
