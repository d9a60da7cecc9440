"""The app's own pages carry a Content-Security-Policy
that forbids inline scripts and eval, and everything the app does works under
it in real Chromium: signing in, the dashboard, the workspace with its editor,
chat socket, a whole turn, history and preview, settings, the trash and the
admin. Any violation Chromium reports fails the test."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from projects.lifecycle import project_create
from projects.models import Project
from tests.browser.conftest import ChatServer, open_file, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

# Chromium both fires the event and logs the refusal; either one is a failure.
WATCH = """() => {
  window.cspViolations = [];
  document.addEventListener("securitypolicyviolation", (event) => {
    window.cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
  });
}"""


def _watch(page: Page) -> list[str]:
    logged: list[str] = []
    page.on(
        "console",
        lambda message: (
            logged.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.add_init_script(f"({WATCH})()")
    return logged


def _clean(page: Page, logged: list[str]) -> None:
    assert page.evaluate("window.cspViolations") == []
    assert logged == []


def test_every_page_works_under_the_policy(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    browser_user.is_staff = browser_user.is_superuser = True
    browser_user.save()
    project = project_create(owner=browser_user, name="Policy site", starter=True)
    assert isinstance(project, Project)
    logged = _watch(page)

    response = page.goto(chat_server.url + "/accounts/login/")
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-eval" not in policy
    sign_in(page, chat_server.url)
    _clean(page, logged)

    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    open_file(page, "/index.html")
    page.click("#composer-input")
    page.keyboard.type("A bakery in Lisbon")
    page.keyboard.press("Enter")
    turn = page.locator("#chat-log article.turn").last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    expect(page.frame_locator("#preview-frame").locator("h1")).to_be_visible()
    page.click("#file-tree .file-link[data-path='/index.html']")
    page.click("[data-action=show-history]")
    page.wait_for_selector("#history-dialog[open]")
    _clean(page, logged)

    for path in ("/", "/settings/", "/trash/", "/admin/", "/admin/projects/project/"):
        page.goto(chat_server.url + path)
        expect(page.locator("body")).to_be_visible()
        _clean(page, logged)
    page.goto(f"{chat_server.url}/admin/projects/project/{project.pk}/change/")
    expect(page.locator("#content")).to_contain_text("Policy site")
    _clean(page, logged)


def test_an_inline_script_slipped_into_a_page_does_not_run(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    """What the policy is for: markup that gets in somehow still cannot run code."""
    logged = _watch(page)
    sign_in(page, chat_server.url)
    page.evaluate(
        """() => {
          const script = document.createElement("script");
          script.textContent = "window.ranInline = true";
          document.body.append(script);
          const img = document.createElement("img");
          img.setAttribute("onerror", "window.ranHandler = true");
          img.src = "/nothing-here.png";
          document.body.append(img);
        }"""
    )
    expect(page.locator("img[src='/nothing-here.png']")).to_have_count(1)
    page.wait_for_function("window.cspViolations.length >= 2")
    assert page.evaluate("window.ranInline === undefined && window.ranHandler === undefined")
    assert logged
