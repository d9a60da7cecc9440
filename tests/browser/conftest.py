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
from collections.abc import Generator, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connections
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from fakes.demo import demo_responder
from fakes.openrouter import FakeOpenRouter
from fakes.script import RecordedRequest, Scripted
from projects.lifecycle import project_create
from projects.models import Project, ProjectLock
from projects.sharing import membership_add
from tests.servers import ServerProcess, server_start, shared_settings

# PostgreSQL and Redis, as deployed: a second server process shares every turn
# and event with the first (tests/scale). On SQLite the channel layer is in
# memory, one process's own, so there one process is right.
SHARED_STACK = str(settings.DATABASES["default"]["ENGINE"]).endswith("postgresql") and bool(
    os.environ.get("REDIS_URL")
)
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


def artifacts_for(environ: Mapping[str, str]) -> Path:
    """Where a suite saves its screenshots: one folder per suite, by the
    database it runs on, since CI runs `make test` and `make test-services`
    side by side in one checkout and one's must not overwrite the other's."""
    return ROOT / "test-artifacts" / ("services" if environ.get("DATABASE_URL") else "sqlite")


ARTIFACTS = artifacts_for(os.environ)
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
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
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
def _fake_openrouter_session() -> Iterator[FakeOpenRouter]:
    with FakeOpenRouter() as fake:
        yield fake


@pytest.fixture(scope="session")
def _asgi_server(
    django_db_setup: None, _fake_openrouter_session: FakeOpenRouter
) -> Iterator[tuple[str, FakeOpenRouter]]:
    _require_browser()
    server = server_start(_server_settings(_fake_openrouter_session))
    try:
        yield server.url, _fake_openrouter_session
    finally:
        server.stop()


@pytest.fixture(scope="session")
def _second_asgi_server(
    _asgi_server: tuple[str, FakeOpenRouter],
) -> Iterator[ServerProcess | None]:
    """A second process beside the first, on the same database, Redis and fake
    OpenRouter: started once, for the tests that ask, on PostgreSQL + Redis only."""
    if not SHARED_STACK:
        yield None
        return
    server = server_start(_server_settings(_asgi_server[1]))
    try:
        yield server
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


@dataclass(frozen=True)
class TwoServers:
    """Where each of two people reaches the app: `a` and `b` are two server
    processes on PostgreSQL + Redis, as behind a proxy, and one and the same
    on SQLite; the model is `fake` either way."""

    a: str
    b: str
    fake: ChatFake


@pytest.fixture
def two_servers(chat_server: ChatServer, _second_asgi_server: ServerProcess | None) -> TwoServers:
    second = _second_asgi_server.url if _second_asgi_server is not None else chat_server.url
    return TwoServers(chat_server.url, second, chat_server.fake)


# --- A project shared with an editor and a viewer (issue 45) --------------------------


@dataclass(frozen=True)
class SharedProject:
    """Ada's project, shared with Erin as an editor and Vera as a viewer by the
    sharing services, as the Share dialog shares it."""

    project: Project
    owner: User
    editor: User
    viewer: User


def person_make(username: str) -> User:
    """Someone who signs in with PASSWORD; named as the chat names them ("Erin asked")."""
    return User.objects.create_user(
        username, f"{username}@example.com", PASSWORD, first_name=username.capitalize()
    )


@pytest.fixture
def shared_project(transactional_db: None) -> SharedProject:
    ada = person_make("ada")
    project = project_create(owner=ada, name="Shared bakery", starter=True)
    assert isinstance(project, Project)
    people = {role: person_make(name) for role, name in (("editor", "erin"), ("viewer", "vera"))}

    def share() -> None:
        try:
            for role, person in people.items():
                added = membership_add(project=project, by=ada, username=person.username, role=role)
                assert not hasattr(added, "message"), added
        finally:
            connections.close_all()

    # In a thread of its own: the sharing tells open sockets through the channel
    # layer (async_to_sync), which cannot run beside Playwright's event loop here.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(share).result()
    return SharedProject(project, ada, people["editor"], people["viewer"])


class People:
    """One browser, a context (cookies, a window) per person: each signs in and
    opens the project at a width. What any page throws is kept in `errors`;
    pages of a failed test are kept as pictures."""

    def __init__(self, browser: Browser, name: str) -> None:
        self.browser = browser
        self.name = name
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def signed_in(self, base_url: str, username: str, *, width: int = 1440) -> Page:
        """A window of `username`'s own, signed in, on their dashboard."""
        ctx = self.browser.new_context(
            viewport={"width": width, "height": 900 if width > 1000 else 844}
        )
        ctx.set_default_timeout(10_000)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{username}: {error}"))
        sign_in(page, base_url, username)
        return page

    def open(self, base_url: str, username: str, project: Project, *, width: int = 1440) -> Page:
        """`username`'s window on the project's workspace, its chat socket open."""
        page = self.signed_in(base_url, username, width=width)
        page.goto(f"{base_url}/projects/{project.pk}/")
        # The server's first frame (the snapshot) has been read.
        page.wait_for_selector("#chat-signal[data-signal]", state="attached")
        return page

    def close(self, failed: bool) -> None:
        for number, ctx in enumerate(self.contexts):
            if failed:
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                name = re.sub(r"[^A-Za-z0-9_.-]", "_", self.name)
                for page in ctx.pages:
                    page.screenshot(path=str(ARTIFACTS / f"{name}-person{number}.png"))
            ctx.close()


@pytest.fixture
def people(browser: Browser, request: pytest.FixtureRequest) -> Iterator[People]:
    opened = People(browser, request.node.name)
    yield opened
    opened.close(request.node.stash.get(_FAILED, False))


def assert_fits(width: int, *shown: object) -> None:
    """Each of `shown` (Playwright locators) lies within a page `width` wide."""
    for element in shown:
        box = element.bounding_box()  # type: ignore[attr-defined]
        assert box is not None, element
        assert box["x"] >= 0, element
        assert box["x"] + box["width"] <= width, element
