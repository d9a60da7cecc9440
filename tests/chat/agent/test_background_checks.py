"""Background checks: check_site answers at once
and the check runs beside the turn; its findings reach the model in its next
round; a turn that changed files ends with the site checked for the person;
a stopped turn stops the check."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from chat.agent.background import Background
from chat.agent.events import Done, ToolResultEvent, from_json, to_json
from chat.agent.loop import TurnRequest, run_turn
from chat.agent.runner import ToolRunner
from chat.llm import ToolCall
from chat.models import Message
from chat.records.site_check import CheckFinding, SiteCheckRecord
from chat.records.turn import TURN_KEY, TurnRecord
from chat.tools import ToolOutcome
from common.jsontypes import JSONObject
from fakes.openrouter import FakeOpenRouter
from projects.files.results import FileWrite
from projects.models import Project
from projects.publish import checking
from projects.publish.checking import CheckUnfinished, site_check_bounded
from projects.publish.for_model import site_check_for_model
from projects.services import Author, file_create
from tests.chat.agent.conftest import Clients
from tests.chat.agent.test_loop_stories import call, calls, of_type, sent, whole
from tests.chat.agent.turns import limits, new_conversation, turn_events

HEAD = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
)
BROKEN = HEAD + '<title>Bakery</title></head><body><a href="menu.html">Menu</a></body></html>'
MENU = HEAD + "<title>Menu</title></head><body><h1>Bread</h1></body></html>"


@pytest.fixture
def broken_site(project: Project) -> Project:
    written = file_create(
        project=project, path="/index.html", content=BROKEN, author=Author.person(project.owner)
    )
    assert isinstance(written, FileWrite), written
    return project


def done_of(events: Sequence[object]) -> Done:
    last = events[-1]
    assert isinstance(last, Done), last
    return last


@pytest.mark.django_db(transaction=True)
async def test_the_models_check_answers_at_once_and_its_findings_come_next_round(
    broken_site: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls(call("check_site"), call("list_project_files")),
        calls(call("create_file", path="/menu.html", content=MENU)),
        whole("I added the menu page the home page links to."),
    )
    events = await turn_events(llm_client(), broken_site, "Check the site and fix it")

    by_name = {r.name: r for r in of_type(events, ToolResultEvent)[:2]}
    started, listed = by_name["check_site"], by_name["list_project_files"]
    assert started.name == "check_site"
    assert started.result["started"] is True
    assert started.summary == "Started a check of the whole site (1 files)"
    assert listed.ok  # the loop went on beside it
    # The next request carries the findings, as a note after the round's results.
    second = sent(fake_openrouter, 1)
    note = second[-1]
    assert note["role"] == "system"
    assert "check_site" in note["content"]
    assert "has finished in the background" in note["content"]
    assert "menu.html" in note["content"]
    # ...and so does every later one.
    assert any("has finished in the background" in str(m) for m in sent(fake_openrouter, 2))

    # The turn changed a file: it ends with the site checked, clean now.
    done = done_of(events)
    assert done.check is not None
    assert done.check.clean, done.check
    closing = await sync_to_async(Message.objects.get)(pk=done.message_id)
    record = TurnRecord.from_stored(closing.metadata[TURN_KEY])
    assert record.check == done.check


@pytest.mark.django_db(transaction=True)
async def test_a_turn_that_changed_files_ends_with_what_is_left_to_fix(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(
        calls(
            call(
                "create_file",
                path="/index.html",
                content=BROKEN.replace("</a>", '</a><img src="a.png">'),
            )
        ),
        whole("Made the home page."),
    )
    events = await turn_events(llm_client(), project, "Make a home page")

    check = done_of(events).check
    assert check is not None
    texts = " ".join(f"{f.path} {f.text}" for f in check.findings)
    assert "menu.html" in texts
    assert "a.png" in texts
    assert check.total == len(check.findings) >= 2
    assert {f.kind for f in check.findings} >= {"broken_link", "missing_alt"}


@pytest.mark.django_db(transaction=True)
async def test_a_turn_that_changed_nothing_is_not_checked(
    broken_site: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(calls(call("read_file", path="/index.html")), whole("It links a menu."))
    events = await turn_events(llm_client(), broken_site, "What is on the page?")
    assert done_of(events).check is None


@pytest.mark.django_db(transaction=True)
async def test_a_second_check_while_one_runs_is_refused_in_words(
    broken_site: Project,
    fake_openrouter: FakeOpenRouter,
    llm_client: Clients,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first check is held until the second call has been answered: a
    # small site's check could otherwise be over before the second call asks.
    answered = threading.Event()

    def held(files: Mapping[str, str | None], **kw: Any) -> JSONObject:
        answered.wait(30)
        return site_check_for_model(files, **kw)

    refuse = ToolRunner._leave_running

    def leave_running(runner: ToolRunner, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        left = refuse(runner, call, outcome)
        if left.result.get("code") == "already_running":
            answered.set()
        return left

    monkeypatch.setattr("chat.tools.check_site.site_check_for_model", held)
    monkeypatch.setattr(ToolRunner, "_leave_running", leave_running)
    fake_openrouter.script(
        calls(call("check_site"), call("check_site")),
        whole("Checked."),
    )
    events = await turn_events(llm_client(), broken_site, "Check twice")
    assert answered.is_set()
    results = sorted(of_type(events, ToolResultEvent), key=lambda r: r.ok)
    refused, started = results
    assert started.result["started"] is True
    assert refused.result["code"] == "already_running"
    assert refused.result["call"] == started.id
    notes = [m for m in sent(fake_openrouter, 1) if "finished in the background" in str(m)]
    assert len(notes) == 1


@pytest.mark.django_db(transaction=True)
async def test_the_check_the_model_asked_for_reaches_the_person_too(
    broken_site: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    # Its one round spent on the check, the model answers without tools; the
    # person sees what the check found under the turn.
    fake_openrouter.script(calls(call("check_site")), whole("The menu link is broken."))
    events = await turn_events(
        llm_client(), broken_site, "Check it", turn_limits=limits(max_iterations=1)
    )
    assert "has finished in the background" in str(sent(fake_openrouter, 1))
    check = done_of(events).check
    assert check is not None
    assert any("menu.html" in f.text for f in check.findings)


@pytest.mark.django_db  # the pool's threads tidy their database connections
async def test_background_work_is_told_to_stop_and_waited_for() -> None:
    background = Background()
    began = threading.Event()
    told: list[bool] = []

    def work(stop: threading.Event) -> JSONObject:
        began.set()
        told.append(stop.wait(30))  # False only if nobody told it in 30 s
        return {}

    background.start("call_1", "check_site", work)
    assert background.busy() == "call_1"
    await asyncio.to_thread(began.wait, 10)
    await background.cancel()
    assert told == [True]  # told, and waited for: it has ended
    assert background.busy() is None


def test_a_check_given_up_ends_its_worker_at_once() -> None:
    deep = "<div>" * 40_000  # seconds of html5lib
    cancelled = threading.Event()
    timer = threading.Timer(0.5, cancelled.set)
    timer.start()
    try:
        done = site_check_bounded({"/index.html": deep}, cancelled=cancelled)
    finally:
        timer.cancel()
    assert isinstance(done, CheckUnfinished)
    assert "stopped before it finished" in done.message
    # The next check gets fresh workers and finishes.
    assert not isinstance(site_check_bounded({"/index.html": MENU}), CheckUnfinished)


def test_the_check_survives_the_trip_to_another_process() -> None:
    """Done goes through the channel layer as JSON to every tab's process."""
    check = SiteCheckRecord(
        (CheckFinding("broken_link", "/index.html", 3, "menu.html leads to no file."),), 4
    )
    done = Done("stop", "completed", 2, 7, ("/index.html",), 120, "0.0001", check)
    assert from_json(json.loads(json.dumps(to_json(done)))) == done
    assert from_json(to_json(done)) == done


@pytest.mark.django_db(transaction=True)
async def test_a_turn_stopped_while_its_site_is_checked_keeps_its_answer(
    project: Project,
    fake_openrouter: FakeOpenRouter,
    llm_client: Clients,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    began = threading.Event()
    told: list[bool] = []

    def slow(files: Mapping[str, str | None], **kw: Any) -> JSONObject:
        began.set()
        told.append(kw["cancelled"].wait(30))  # False only if nobody told it
        return {"finished": False, "message": "stopped"}

    monkeypatch.setattr("chat.agent.site_checks.site_check_for_model", slow)
    fake_openrouter.script(
        calls(call("create_file", path="/index.html", content=MENU)),
        whole("Made the menu page."),
    )
    conversation = await new_conversation(project)
    stopped: list[Done] = []
    request = TurnRequest(project, conversation, "Make a menu page")

    async def run() -> None:
        async for _ in run_turn(
            request, client=llm_client(), limits=limits(), on_stopped=stopped.append
        ):
            pass

    task = asyncio.create_task(run())
    await asyncio.to_thread(began.wait, 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert told == [True]  # the check was told to stop, and waited for
    (done,) = stopped
    assert done.status == "completed"  # the turn's work was done: only the check was cut
    closing = await sync_to_async(Message.objects.get)(pk=done.message_id)
    assert closing.content == "Made the menu page."


def test_one_check_given_up_does_not_end_another() -> None:
    slow = {"/index.html": "<div>" * 6_000}  # a second or two of html5lib
    results: dict[str, object] = {}
    cancelled = threading.Event()

    def check(name: str, stop: threading.Event | None) -> None:
        results[name] = site_check_bounded(slow, cancelled=stop)

    kept = threading.Thread(target=check, args=("kept", None))
    given_up = threading.Thread(target=check, args=("given up", cancelled))
    kept.start()
    given_up.start()
    while not checking._FREE.empty():  # both slots taken: both checks under way
        threading.Event().wait(0.05)
    cancelled.set()
    given_up.join(60)
    kept.join(60)
    assert isinstance(results["given up"], CheckUnfinished)
    assert not isinstance(results["kept"], CheckUnfinished), results["kept"]
