"""Real Chromium (Debian's /usr/bin/chromium) driven by Playwright against a live server.

Without the browser these tests skip, except where BUILTIT_REQUIRE_BROWSER=1
(as in CI), where a missing browser is a failure.
"""

from __future__ import annotations

import collections
import os
import re
import threading
import time
from collections import deque
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import sync_playwright

from fakes.demo import demo_responder
from fakes.openrouter import FakeOpenRouter
from fakes.script import RecordedRequest, Scripted
from projects.models import ProjectLock
from tests.servers import server_start, shared_settings

CHROMIUM = os.environ.get("BUILTIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
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


class Dialogs:
    """The browser's own dialogs (alert, confirm, prompt) of a test's pages, seen
    and answered in the order the test queued the answers; with none queued, as
    Playwright does by default (dismissed; a beforeunload accepted). The app asks
    its questions in dialogs of its own (`answer`); this is for what must not
    happen (a preview page's alert) and for the browser's leave-the-page one.
    One listener on the context for the whole test, set before any page acts."""

    def __init__(self, context) -> None:
        self.answers: deque[tuple[str, str | None]] = deque()
        self.seen: list[str] = []
        context.on("dialog", self._answer)

    def accept(self, text: str | None = None) -> None:
        self.answers.append(("accept", text))

    def dismiss(self) -> None:
        self.answers.append(("dismiss", None))

    def _answer(self, dialog) -> None:
        self.seen.append(dialog.message)
        how, text = self.answers.popleft() if self.answers else ("default", None)
        if how == "accept" or (how == "default" and dialog.type == "beforeunload"):
            dialog.accept(text) if text is not None else dialog.accept()
        else:
            dialog.dismiss()


@pytest.fixture
def dialogs(context) -> Dialogs:
    return Dialogs(context)


def answer(page, text: str | None = None, *, accept: bool = True) -> None:
    """Answer the question the page asks in its own dialog (app/ask.js's `ask`):
    with `text` typed in, if given, then its confirming button, or Cancel."""
    dialog = page.locator("dialog.ask-dialog[open]")
    dialog.wait_for()
    if text is not None:
        dialog.locator("input").fill(text)
    dialog.locator(f"button[value={'ok' if accept else 'cancel'}]").click()
    dialog.wait_for(state="detached")


@pytest.fixture
def browser_user(transactional_db: None) -> User:
    return User.objects.create_user("grace", "grace@example.com", PASSWORD)


def sign_in(page, base_url: str, username: str = "grace") -> None:
    page.goto(base_url + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base_url + "/")


def open_file(page, path: str) -> None:
    """Open `path` in the editor and wait until its new editor is mounted (and has
    the focus). When `path` is already open, the old editor matches the same
    selector until the swap lands, and typing meanwhile went to whichever won."""
    old = page.query_selector("#editor-form")
    page.click(f"#file-tree .file-link[data-path='{path}']")
    if old is not None:
        page.wait_for_function("(form) => !form.isConnected", arg=old)
    page.wait_for_selector(f"#editor-form[data-path='{path}'] .ace_content")


# --- The app over ASGI, websockets included -----------------------------------------
#
# A real daphne (tests.servers) on the test database (an SQLite file, or
# PostgreSQL in `make test-services`, so the server sees what the tests commit)
# and a fake OpenRouter that runs here, in a thread, reached over TCP.


@dataclass
class Held:
    """A reply the fake keeps back until the test lets it go: while it waits, the
    turn is certainly running, at a known step."""

    reply: Scripted
    asked: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)

    def wait_until_asked(self) -> None:
        assert self.asked.wait(HOLD_LIMIT), "the server never asked for the held reply"

    def release(self) -> None:
        self.released.set()


HOLD_LIMIT = 30.0  # seconds; a held reply is let go then whatever the test does


@dataclass
class ChatFake:
    """The session's fake OpenRouter as one test sees it: its own script, then the
    demo responder, and only the requests made since the test began."""

    server: FakeOpenRouter
    first_request: int
    queue: collections.deque[Scripted | Held] = field(default_factory=collections.deque)
    held: list[Held] = field(default_factory=list)

    def script(self, *replies: Scripted | Held) -> None:
        self.held += [reply for reply in replies if isinstance(reply, Held)]
        self.queue.extend(replies)

    def respond(self, request: RecordedRequest) -> Scripted:
        if not self.queue:
            return demo_responder(request)
        reply = self.queue.popleft()
        if isinstance(reply, Held):
            reply.asked.set()
            reply.released.wait(HOLD_LIMIT)
            return reply.reply
        return reply

    def release_all(self) -> None:
        for reply in self.held:
            reply.release()

    @property
    def completions(self) -> list[RecordedRequest]:
        """The chat completion requests of this test, oldest first."""
        return [
            request
            for request in self.server.requests[self.first_request :]
            if request.path.endswith("/chat/completions")
        ]


@dataclass(frozen=True)
class ChatServer:
    url: str
    fake: ChatFake


def _server_settings(fake: FakeOpenRouter) -> dict[str, object]:
    return shared_settings(
        OPENROUTER_BASE_URL=fake.base_url,
        # No server key: turns reach the fake without one (it does not ask), and a
        # person without a key of their own meets what a keyless server says.
        OPENROUTER_API_KEY="",
        OPENROUTER_MAX_RETRIES=0,
    )


@pytest.fixture(scope="session")
def _asgi_server(django_db_setup: None) -> Iterator[tuple[str, FakeOpenRouter]]:
    _require_browser()
    with FakeOpenRouter() as fake:
        server = server_start(_server_settings(fake))
        try:
            yield server.url, fake
        finally:
            server.stop()


@pytest.fixture
def chat_server(
    _asgi_server: tuple[str, FakeOpenRouter], transactional_db: None
) -> Iterator[ChatServer]:
    """The app with websockets at `.url`; script the model with `.fake.script(...)`
    (unscripted requests get the demo responder, which builds a three-file site)."""
    url, server = _asgi_server
    fake = ChatFake(server, len(server.requests))
    server.responder = fake.respond
    yield ChatServer(url, fake)
    fake.release_all()
    # A turn still running would write into the next test's database.
    for _ in range(int(HOLD_LIMIT * 10)):
        if not ProjectLock.objects.exists():
            break
        time.sleep(0.1)
    else:
        pytest.fail("a turn was still running when the test ended")
    server.responder = None


def assert_fits(width: int, *shown: object) -> None:
    """Each of `shown` (Playwright locators) lies within a page `width` wide."""
    for element in shown:
        box = element.bounding_box()  # type: ignore[attr-defined]
        assert box is not None, element
        assert box["x"] >= 0, element
        assert box["x"] + box["width"] <= width, element
