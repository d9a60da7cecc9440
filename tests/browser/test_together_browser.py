"""Two people at work on one project (issue 45), each in a browser of their own:
Ada, its owner, and Erin, an editor. One turn runs at a time: Erin's message
sent while Ada's turn runs is refused naming Ada and stays in her box, and
runs once Ada's has finished; both pages follow both turns, each saying who
asked. Each turn is paid by the person who asked it. A save that would
overwrite the other's newer save is refused in words.

On PostgreSQL + Redis, Ada's page is served by one process and Erin's by
another, as behind a proxy (`two_servers`); on SQLite by one."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from playwright.sync_api import Locator, Page, expect

from chat.spending import person_spent
from fakes.script import DEFAULT_USAGE, Reply, text
from projects.models import ProjectFile
from tests.browser.conftest import SHARED_STACK, Held, People, SharedProject, TwoServers

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

# Costs no other turn has, so each shows up only where it belongs.
ADAS_COST = Decimal("0.0125")
ERINS_COST = Decimal("0.0031")


def _answer(words: str, cost: Decimal) -> Reply:
    return text(words, usage={**DEFAULT_USAGE, "cost": float(cost)})


def _send(page: Page, message: str) -> None:
    page.click("#composer-input")
    page.keyboard.type(message)
    page.keyboard.press("Enter")


def _turn(page: Page, message: str) -> Locator:
    bubble = page.locator(".bubble-text", has_text=re.compile(f"^{re.escape(message)}$"))
    return page.locator("#chat-log article.turn").filter(has=bubble)


def _finished(turn: Locator) -> None:
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))


def _idle(page: Page) -> None:
    expect(page.locator("#chat-status")).not_to_have_attribute("data-busy", "true")


def test_one_turn_at_a_time_and_each_paid_by_who_asked(
    people: People, two_servers: TwoServers, shared_project: SharedProject
) -> None:
    assert (two_servers.a != two_servers.b) == SHARED_STACK
    project = shared_project.project
    ada = people.open(two_servers.a, "ada", project)
    erin = people.open(two_servers.b, "erin", project)
    adas = Held(_answer("The menu page is ready.", ADAS_COST))
    two_servers.fake.script(adas, _answer("The contact page is ready.", ERINS_COST))

    _send(ada, "Add a menu page")
    adas.wait_until_asked()  # Ada's turn runs until the test lets its answer go
    for page in (ada, erin):
        expect(_turn(page, "Add a menu page").locator(".bubble-by")).to_have_text("Ada asked")
        expect(page.locator("#chat-status")).to_have_attribute("data-busy", "true")

    # Each sees the other here, on the other process too; Ada's dot says her turn runs.
    adas_dot = erin.locator("#presence .presence-dot[data-name='Ada']")
    expect(adas_dot).to_have_class(re.compile(r"\brunning\b"))
    expect(adas_dot).to_have_attribute("title", re.compile(r"^Ada — owner.*running a turn$"))
    erins_dot = ada.locator("#presence .presence-dot[data-name='Erin']")
    expect(erins_dot).to_have_attribute("title", re.compile(r"^Erin — editor"))
    expect(erins_dot).not_to_have_class(re.compile(r"\brunning\b"))

    _send(erin, "Add a contact page")
    expect(erin.locator("#chat-notice")).to_have_text(
        "Ada is working with the assistant on this project right now: one turn runs at a "
        "time. Send yours when theirs has finished: your message stays in the box."
    )
    expect(erin.locator("#composer-input")).to_have_value("Add a contact page")
    expect(ada.locator("#chat-notice")).to_have_text("")
    assert len(two_servers.fake.completions) == 1  # refused before any request

    adas.release()
    for page in (ada, erin):
        _finished(_turn(page, "Add a menu page"))
        _idle(page)
    erin.click("#composer-input")
    erin.keyboard.press("Enter")  # what stayed in her box, sent now
    for page in (erin, ada):
        erins = _turn(page, "Add a contact page")
        expect(erins.locator(".bubble-by")).to_have_text("Erin asked")
        _finished(erins)
        expect(erins.locator(".answer").last).to_have_text("The contact page is ready.")
        expect(page.locator("#chat-log article.turn")).to_have_count(2)
    expect(erin.locator("#composer-input")).to_have_value("")
    expect(erin.locator("#chat-notice")).to_have_text("")

    # Each turn shows its own cost, to both of them, under the name of who asked.
    for page in (ada, erin):
        for asked, cost in (("Add a menu page", ADAS_COST), ("Add a contact page", ERINS_COST)):
            expect(_turn(page, asked).locator(".turn-footer .usage")).to_contain_text(f"${cost}")
    # Each person's spending (what their own caps count) holds their turn and
    # not the other's, whichever process ran it.
    today = timezone.now() - timedelta(days=1)
    assert person_spent(user_id=shared_project.owner.pk, since=today) == ADAS_COST
    assert person_spent(user_id=shared_project.editor.pk, since=today) == ERINS_COST
    assert person_spent(user_id=shared_project.viewer.pk, since=today) == 0
    # And each reads their own in Settings.
    for page, cost in ((ada, ADAS_COST), (erin, ERINS_COST)):
        page.goto(page.url.split("/projects/")[0] + "/settings/")
        expect(page.locator("#spent-today")).to_contain_text(f"${cost}")

    # The admin's ledger names who paid for each.
    admin = Client()
    admin.force_login(User.objects.create_superuser("root", "root@example.com", "x" * 20))
    ledger = admin.get("/admin/chat/charge/").content.decode()
    rows = re.findall(r"<tr.*?</tr>", ledger, flags=re.DOTALL)
    paid = {
        (name, str(cost))
        for row in rows
        for name, cost in (("ada", ADAS_COST), ("erin", ERINS_COST))
        if f">{name}<" in row and f"${cost}" in row
    }
    assert paid == {("ada", str(ADAS_COST)), ("erin", str(ERINS_COST))}
    assert len(two_servers.fake.completions) == 2
    assert people.errors == []


def test_a_save_over_the_others_newer_save_is_refused_in_words(
    people: People, two_servers: TwoServers, shared_project: SharedProject
) -> None:
    project = shared_project.project
    ada = people.open(two_servers.a, "ada", project)
    erin = people.open(two_servers.b, "erin", project)
    for page in (ada, erin):
        page.wait_for_selector("#editor-form[data-path='/index.html'] .ace_content")
    _type_at_end(erin, "<!-- Erin's -->")
    _type_at_end(ada, "<!-- Ada's -->")
    ada.keyboard.press("Control+s")
    ada.wait_for_selector("#editor-status .status.ok")
    # Erin's page hears of Ada's save, by name, and keeps her unsaved text.
    warning = erin.locator("#editor-status .status.warning")
    expect(warning).to_contain_text("Save will be refused because the file changed")
    expect(warning).to_contain_text("Ada saved this file.")

    erin.keyboard.press("Control+s")
    error = erin.locator("#editor-status .status.error")
    expect(error).to_contain_text("/index.html changed since it was opened")
    expect(error).to_contain_text("Reload it and apply your change again.")
    assert "<!-- Erin's -->" in erin.evaluate("builtitWorkspace.editor().getValue()")
    stored = ProjectFile.objects.get(project=project, path="/index.html").content
    assert "<!-- Ada's -->" in stored
    assert "<!-- Erin's -->" not in stored
    assert people.errors == []


def _type_at_end(page: Page, typed: str) -> None:
    page.click(".ace_content")
    page.keyboard.press("Control+End")
    page.keyboard.type(typed)
