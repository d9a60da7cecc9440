"""Two real server processes, A and B, on the same PostgreSQL and Redis:
a turn is one project's wherever its tabs are, a killed server's turn is found
and recorded, and a SIGTERM finishes or interrupts turns without losing one."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.utils import timezone

from chat.live.closing import Close
from chat.models import Message
from fakes.script import Reply
from projects.models import Project, ProjectFile, ProjectLock
from tests.fakes.held import PAGE, Held, WriteThenHold
from tests.scale.conftest import Servers, Tab, bearer, tab
from tests.servers import ServerProcess

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def closing_records(project: Project) -> list[dict[str, Any]]:
    closing = Message.objects.filter(
        conversation__project=project, metadata__has_key="turn"
    ).order_by("sequence")
    return [message.metadata["turn"] for message in closing]


@sync_to_async
def page_kept(project: Project) -> bool:
    """/index.html is there with the turn's content, and its revision with it."""
    page = ProjectFile.objects.filter(project=project, path="/index.html").first()
    return (
        page is not None
        and page.content == PAGE
        and project.revisions.filter(path="/index.html", message__isnull=False).exists()
    )


@sync_to_async
def locked(project: Project) -> bool:
    return ProjectLock.objects.filter(project=project).exists()


async def lapsed(project: Project) -> None:
    """Until the project's lock has lapsed (its server stopped refreshing it)."""

    @sync_to_async
    def still_live() -> bool:
        return ProjectLock.objects.filter(project=project, expires_at__gt=timezone.now()).exists()

    async with asyncio.timeout(30):
        while await still_live():
            await asyncio.sleep(0.1)


def health(server: ServerProcess) -> int:
    try:
        with urllib.request.urlopen(server.url + "/healthz", timeout=10) as answer:  # noqa: S310
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


async def draining(server: ServerProcess) -> None:
    """Until the server says it is shutting down (its drain has begun)."""
    async with asyncio.timeout(30):
        while await asyncio.to_thread(health, server) != 503:
            await asyncio.sleep(0.05)


async def next_turn(servers: Servers, held: Held, on: Tab) -> list[dict[str, Any]]:
    """The killed server's held reply let go, a message on `on`: its turn's events."""
    held.release()
    servers.fake.responder = None
    servers.fake.script(Reply(content="Picking up where it stopped."))
    await on.send(message="Go on")
    return await on.until("done")


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


# --- one turn, every process ----------------------------------------------------------


async def test_a_turn_through_A_is_seen_live_on_B_also_by_a_tab_that_joins_mid_turn(
    servers: Servers, project: Project, user: User
) -> None:
    a, b = servers.start("A"), servers.start("B")
    token = await bearer(user)
    held = Held(Reply(content="The bakery's page is ready."))
    servers.fake.responder = WriteThenHold(held)
    async with tab(a, project, token) as on_a, tab(b, project, token) as on_b:
        await on_a.send(message="Build the bakery's page")
        seen_on_b = await on_b.until("files_changed")
        async with tab(b, project, token) as joined:
            caught_up = await joined.until("files_changed")
            held.release()
            finished = await joined.until("done")
        seen_on_b += await on_b.until("done")
        seen_on_a = await on_a.until("done")

    assert types(seen_on_b)[0] == "turn_started"
    assert seen_on_b[-1]["status"] == "completed"
    assert types(caught_up)[0] == "turn_started", "the late tab got the turn from its start"
    assert finished[-1]["status"] == "completed"
    answer = "".join(e["text"] for e in seen_on_b if e["type"] == "content")
    assert answer == "".join(e["text"] for e in seen_on_a if e["type"] == "content")
    assert answer.endswith("The bakery's page is ready.")
    assert await page_kept(project)


async def test_a_tab_on_B_joining_a_turn_only_A_followed_sees_every_frame_and_stops_it(
    servers: Servers, project: Project, user: User
) -> None:
    """Until B's tab comes, no process but A listens: A's batches are logged, not
    published (chat.live.listeners). The tab reads them, hears the rest, and its
    stop reaches A."""
    a, b = servers.start("A"), servers.start("B")
    token = await bearer(user)
    held = Held(Reply(content="The bakery's page is ready."))
    servers.fake.responder = WriteThenHold(held)
    async with tab(a, project, token) as on_a:
        await on_a.send(message="Build the bakery's page")
        seen_on_a = await on_a.until("files_changed")
        async with tab(b, project, token) as joined:
            caught_up = await joined.until("files_changed")
            held.release()
            finished = await joined.until("done")
        seen_on_a += await on_a.until("done")
        never = Held(Reply(content="Never said."))
        servers.fake.responder = WriteThenHold(never)
        await on_a.send(message="And a contact page")
        await on_a.until("tool_calls")  # the same page again: no file changes
        async with tab(b, project, token) as stopping:
            await stopping.until("tool_calls")
            await stopping.send(action="stop")
            stopped_on_b = await stopping.until("done")
        stopped_on_a = await on_a.until("done")
        never.release()

    assert types(caught_up)[0] == "turn_started", "the late tab got the turn from its start"
    assert finished[-1]["status"] == "completed"
    on_b = caught_up + finished
    answer = "".join(e["text"] for e in on_b if e["type"] == "content")
    assert answer == "".join(e["text"] for e in seen_on_a if e["type"] == "content")
    assert answer.endswith("The bakery's page is ready.")
    assert stopped_on_b[-1]["status"] == stopped_on_a[-1]["status"] == "stopped"


async def test_one_turn_at_a_time_per_project_across_processes_and_stop_from_either(
    servers: Servers, project: Project, user: User
) -> None:
    a, b = servers.start("A"), servers.start("B")
    token = await bearer(user)
    held = Held(Reply(content="Never said."))
    servers.fake.responder = WriteThenHold(held)
    async with tab(a, project, token) as on_a, tab(b, project, token) as on_b:
        await on_a.send(message="Build the bakery's page")
        await on_b.until("files_changed")
        await on_b.send(message="And a contact page")
        refused = await on_b.until("error")
        await on_b.send(action="stop")
        stopped_on_b = await on_b.until("done")
        stopped_on_a = await on_a.until("done")
        held.release()

    assert refused[-1]["code"] == "busy"
    assert stopped_on_b[-1]["status"] == stopped_on_a[-1]["status"] == "stopped"
    assert [record["status"] for record in await closing_records(project)] == ["stopped"]
    assert await page_kept(project), "what the turn did before the stop is kept"
    assert not await locked(project)
    assert len(servers.fake.requests) == 2, "the refused message asked nothing of the model"


# --- a crash ---------------------------------------------------------------------------


async def test_when_the_server_running_a_turn_is_killed_the_other_tells_its_tabs(
    servers: Servers, project: Project, user: User
) -> None:
    """Found within the lock's lifetime and a fifth (3.6 s here, 12 s by default)."""
    a, b = servers.start("A"), servers.start("B")
    token = await bearer(user)
    held = Held(Reply(content="Never said."))
    servers.fake.responder = WriteThenHold(held)
    async with tab(a, project, token) as on_a, tab(b, project, token) as on_b:
        await on_a.send(message="Build the bakery's page")
        await on_b.until("files_changed")
        a.kill()
        told = await on_b.until("done")

        assert types(told)[-2:] == ["error", "done"]
        assert told[-2]["code"] == "server_stopped"
        assert told[-1]["status"] == "interrupted"
        (record,) = await closing_records(project)
        assert record["status"] == "interrupted"
        assert record["files_changed"] == ["/index.html"]
        assert await page_kept(project), "the write it made is kept, with its revision"
        assert not await locked(project)

        again = await next_turn(servers, held, on_b)
    assert again[-1]["status"] == "completed"


async def test_a_tab_opened_once_a_killed_servers_lock_lapsed_finds_its_turn_recorded(
    servers: Servers, project: Project, user: User
) -> None:
    """The turn's only tab was on the killed server, so no watchdog looks for it:
    the first tab to open on the other records it as interrupted (every page then
    shows why it ended), without a `done` for a script that never saw it run."""
    a, b = servers.start("A"), servers.start("B")
    token = await bearer(user)
    held = Held(Reply(content="Never said."))
    servers.fake.responder = WriteThenHold(held)
    async with tab(a, project, token) as on_a:
        await on_a.send(message="Build the bakery's page")
        await on_a.until("files_changed")
        a.kill()
    await lapsed(project)
    async with tab(b, project, token) as on_b:
        await on_b.send(action="dance")  # answered once the connect and its catch-up are done
        (answer,) = await on_b.until("error")
        assert answer["code"] == "bad_frame", "nothing came before it"
        (record,) = await closing_records(project)
        assert record["status"] == "interrupted"
        assert record["error"]["code"] == "server_stopped"
        assert record["files_changed"] == ["/index.html"]
        assert not await locked(project)

        again = await next_turn(servers, held, on_b)
    assert again[-1]["status"] == "completed"


# --- a clean shutdown ------------------------------------------------------------------


async def test_sigterm_interrupts_a_turn_past_the_grace_and_sends_tabs_elsewhere(
    servers: Servers, project: Project, user: User
) -> None:
    a, b = servers.start("A", grace=1.0), servers.start("B")
    token = await bearer(user)
    other = await sync_to_async(Project.objects.create)(owner=user, name="Another site")
    held = Held(Reply(content="Never said."))
    servers.fake.responder = WriteThenHold(held)
    async with (
        tab(a, project, token) as on_a,
        tab(a, other, token) as idle_on_a,
        tab(b, project, token) as on_b,
    ):
        await on_a.send(message="Build the bakery's page")
        await on_b.until("files_changed")
        terminated = asyncio.ensure_future(asyncio.to_thread(a.terminate))
        idle_events, idle_code = await idle_on_a.closed()
        told_on_b = await on_b.until("done")
        told_on_a, code_on_a = await on_a.closed()
        status = await terminated
        held.release()

    assert (idle_events, idle_code) == ([], Close.SERVICE_RESTART), "reconnect elsewhere, at once"
    assert types(told_on_b)[-2:] == ["error", "done"]
    assert told_on_b[-1]["status"] == "interrupted"
    assert told_on_a[-1]["status"] == "interrupted"
    assert code_on_a == Close.SERVICE_RESTART
    assert status == 0
    (record,) = await closing_records(project)
    assert record["status"] == "interrupted"
    assert await page_kept(project)
    assert not await locked(project)


async def test_a_rolling_restart_of_A_then_B_loses_no_turn(
    servers: Servers, project: Project, user: User
) -> None:
    """Each process is restarted while it runs a turn that ends within its grace;
    a tab of the project on the process that stays follows the turn to its end,
    and the restarting process sends new tabs elsewhere meanwhile."""
    a, b = servers.start("A"), servers.start("B")
    token = await bearer(user)
    other = await sync_to_async(Project.objects.create)(owner=user, name="Another site")
    for restarting, staying, site in ((a, b, project), (b, servers.start("A2"), other)):
        held = Held(Reply(content="Done."))
        servers.fake.responder = WriteThenHold(held)
        async with (
            tab(restarting, site, token) as running,
            tab(staying, site, token) as elsewhere,
        ):
            await running.send(message="Build the bakery's page")
            await running.until("files_changed")
            terminated = asyncio.ensure_future(asyncio.to_thread(restarting.terminate))
            await draining(restarting)
            assert await turns_refused_by(restarting, site, token)
            held.release()
            events, code = await running.closed()
            followed = await elsewhere.until("done")
            assert await terminated == 0
        assert events[-1]["status"] == followed[-1]["status"] == "completed"
        assert code == Close.SERVICE_RESTART
        assert [record["status"] for record in await closing_records(site)] == ["completed"]
        assert await page_kept(site)


async def turns_refused_by(server: ServerProcess, project: Project, token: str) -> bool:
    """A tab that connects to a draining server is sent elsewhere (1012) at once."""
    async with tab(server, project, token) as late:
        events, code = await late.closed()
    return events == [] and code == Close.SERVICE_RESTART
