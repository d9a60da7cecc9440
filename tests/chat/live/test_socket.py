"""The chat socket as tabs use it (DESIGN §7): who gets in, what a turn looks like in
JSON and in HTML, stop, one turn per project, fan-out to every tab of the project,
and the person's own key, model and file saves. Real ASGI app, real database, real
HTTP to the fake OpenRouter."""

from __future__ import annotations

import asyncio
import copy
import html
import io
import json
import re
import uuid
from datetime import timedelta
from typing import Any

import channels.consumer
import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from chat import services
from chat.agent.compaction import COMPACTION_LOCK
from chat.live import orders, turns
from chat.models import Conversation, Message
from chat.personal_keys import key_save
from chat.render import streaming
from chat.selectors.conversations import SocketProject
from common import threads
from fakes.openrouter import FakeOpenRouter
from fakes.script import Chunk, Drop, HttpError, Pause, Reply, Stream, ToolCallScript
from projects.lifecycle import project_create
from projects.locks import lock_acquire
from projects.models import Project, ProjectFile, ProjectLock
from tests.chat.live.tabs import (
    communicator,
    events_until,
    frames_until,
    next_event,
    opened,
    send,
    socket_path,
    types,
)
from tests.fakes.held import Held

pytestmark = pytest.mark.django_db(transaction=True)

# Bigger than any scripted reply: the fake writes each reply at once, so the order
# of a turn's events does not depend on network timing.
WHOLE = 1 << 20
PAGE = '<!doctype html>\n<html lang="en"><body><h1>Ada\'s bakery</h1></body></html>\n'
INTRO = "I will write the page now."
ANSWER = 'Your page is ready: **fresh bread** daily.\n\n<script>alert("owned")</script>'
# What one create_file round and a final answer look like on the wire.
TURN = [
    "turn_started",
    "context",
    "content",
    "tool_calls",
    "usage",
    "tool_executing",
    "tool_result",
    "files_changed",
    "content",
    "usage",
    "done",
]
SLOW = 30.0  # seconds a paced reply would take to finish on its own


def writing_round() -> Reply:
    page = ToolCallScript("create_file", {"path": "/index.html", "content": PAGE})
    return Reply(content=INTRO, tool_calls=[page], piece_size=WHOLE)


def answer(content: str = ANSWER) -> Reply:
    return Reply(content=content, piece_size=WHOLE)


def slow(content: str = "word " * 60) -> Reply:
    """A reply paced to take SLOW seconds, one piece at a time."""
    pieces = 60
    return Reply(content=content, content_pieces=pieces, pause=SLOW / pieces)


def folded(kinds: list[str]) -> list[str]:
    """Runs of streamed text as one: how they are split depends on timing."""
    return [
        kind for i, kind in enumerate(kinds) if not (kind == "content" == kinds[i - 1] and i > 0)
    ]


def joined_text(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Adjacent content events as one, everything else as it was."""
    out: list[dict[str, Any]] = []
    for event in events:
        if event["type"] == "content" and out and out[-1]["type"] == "content":
            out[-1] = {**out[-1], "text": out[-1]["text"] + event["text"]}
        else:
            out.append(event)
    return out


def first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(event for event in events if event["type"] == kind)


@sync_to_async
def other_project(user: User, name: str = "Other site") -> Project:
    result = project_create(owner=user, name=name)
    assert isinstance(result, Project)
    return result


@sync_to_async
def stored(conversation_id: int) -> list[Message]:
    return list(Message.objects.filter(conversation_id=conversation_id).order_by("sequence"))


@sync_to_async
def file_content(project: Project, path: str) -> str | None:
    row = ProjectFile.objects.filter(project=project, path=path).first()
    return None if row is None else row.content


@sync_to_async
def refreshed(project: Project) -> Project:
    return Project.objects.get(pk=project.pk)


async def one_turn(
    project: Project, user: User, message: str = "Make a bakery site", **frame: Any
) -> list[dict[str, Any]]:
    """A whole turn on a fresh JSON socket, its events in order."""
    async with opened(project, user) as socket:
        await send(socket, message=message, **frame)
        return await events_until(socket, "done")


# --- who gets in ------------------------------------------------------------------


async def test_the_owner_connects_and_json_mode_sends_nothing_until_a_turn(
    project: Project, user: User
) -> None:
    async with opened(project, user) as socket:
        assert await socket.receive_nothing()


async def refused(path: str, user: User | None, origin: str = "http://localhost") -> None:
    socket = await communicator(path, user=user, origin=origin)
    connected, _ = await socket.connect()
    assert connected is False
    assert await socket.receive_nothing()
    await socket.disconnect()


async def test_an_anonymous_visitor_is_refused(project: Project) -> None:
    await refused(socket_path(project), None)


async def test_another_users_project_is_refused(project: Project, other_user: User) -> None:
    await refused(socket_path(project), other_user)


async def test_a_page_from_another_origin_is_refused(project: Project, user: User) -> None:
    await refused(socket_path(project), user, origin="http://evil.example")


async def test_a_project_that_does_not_exist_is_refused(user: User) -> None:
    await refused(socket_path(str(uuid.uuid4())), user)


async def test_a_conversation_of_another_project_is_refused(project: Project, user: User) -> None:
    elsewhere = await other_project(user)
    theirs = await sync_to_async(services.conversation_create)(project=elsewhere)
    await refused(socket_path(project, query=f"conversation={theirs.pk}"), user)
    await refused(socket_path(project, query="conversation=not-a-number"), user)


async def test_a_conversation_of_the_project_is_accepted(project: Project, user: User) -> None:
    ours = await sync_to_async(services.conversation_create)(project=project)
    async with opened(project, user, query=f"conversation={ours.pk}") as socket:
        assert await socket.receive_nothing()


async def test_another_users_project_with_a_conversation_is_refused(
    project: Project, other_user: User
) -> None:
    ours = await sync_to_async(services.conversation_create)(project=project)
    await refused(socket_path(project), other_user)
    await refused(socket_path(project, query=f"conversation={ours.pk}"), other_user)


async def test_a_tab_opening_on_a_conversation_reads_the_database_in_three_jobs(
    project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The session; the project with its conversation; what the tab shows first
    # with the request it was started with. Each job is a hop to a pool thread
    # and back, a share of a connect's time (bench/ws_fanout.py --idle).
    await sync_to_async(services.conversation_create)(project=project)
    jobs: list[str] = []
    run = threads.run

    async def counted(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        jobs.append(fn.__name__)
        return await run(fn, *args, **kwargs)

    monkeypatch.setattr(threads, "run", counted)
    async with opened(project, user, as_json=False) as socket:
        assert "chat-log" in await socket.receive_from()
        assert jobs == ["session_user", "socket_project", "_opened"]


def test_the_project_and_its_conversation_are_read_in_one_query(
    project: Project, user: User, django_assert_num_queries: Any
) -> None:
    ours = services.conversation_create(project=project)
    with django_assert_num_queries(1):
        assert orders.socket_project(user, project.pk, "") == SocketProject(project, "owner", ours)
    with django_assert_num_queries(1):
        assert orders.socket_project(user, project.pk, str(ours.pk)) == SocketProject(
            project, "owner", ours
        )


# --- a turn in JSON mode ------------------------------------------------------------


def command_events(project: Project, message: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    call_command("chat", str(project.pk), message, "--json", stdout=out, stderr=io.StringIO())
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def test_json_mode_sends_the_events_manage_py_chat_prints_and_the_turn_is_stored(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(writing_round(), answer())
    events = await one_turn(project, user)
    twin = await other_project(user, "Twin site")
    scripted.script(writing_round(), answer())
    printed = await sync_to_async(command_events, thread_sensitive=False)(
        twin, "Make a bakery site"
    )
    # The command adds one line once the turn is over: what it changed.
    *printed, changed = printed
    assert changed["type"] == "changes"
    assert [file["path"] for file in changed["files"]] == ["/index.html"]

    assert folded(types(events)) == folded(types(printed)) == TURN
    done = events[-1]
    assert done["status"] == "completed"
    assert done["files_changed"] == ["/index.html"]
    assert await file_content(project, "/index.html") == PAGE
    started = events[0]
    rows = await stored(started["conversation_id"])
    assert [row.role for row in rows] == ["user", "assistant", "tool", "assistant"]
    assert rows[0].pk == started["message_id"]
    assert rows[0].content == "Make a bakery site"
    assert rows[-1].pk == done["message_id"]
    assert rows[-1].content == ANSWER
    assert rows[-1].metadata["turn"]["status"] == "completed"
    conversation = await sync_to_async(Conversation.objects.get)(pk=started["conversation_id"])
    assert conversation.project_id == project.pk
    assert conversation.title == "Make a bakery site"


async def test_a_second_turn_continues_the_socket_conversation(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(answer("First answer."), answer("Second answer."))
    async with opened(project, user) as socket:
        await send(socket, message="first")
        first_turn = await events_until(socket, "done")
        await turns.wait_all()
        await send(socket, message="second")
        second_turn = await events_until(socket, "done")

    conversation = first_turn[0]["conversation_id"]
    assert second_turn[0]["conversation_id"] == conversation
    history = [m["content"] for m in scripted.requests[1].json["messages"]]
    assert "First answer." in history


# --- a turn in HTML mode -------------------------------------------------------------


def card_states(frames: list[str]) -> dict[str, list[str]]:
    states: dict[str, list[str]] = {}
    for frame in frames:
        for card, state in re.findall(r'id="(t\d+-c\d+)" data-state="(\w+)"', frame):
            states.setdefault(card, []).append(state)
    return states


_SWAP = re.compile(r'<div hx-swap-oob="([^"]+)">(.*)</div>\s*\Z', re.S)


def streamed_html(frames: list[str], block: str) -> str:
    """Answer block `block` as the tab last showed it while it streamed: the blocks
    that settled, then its open part as last drawn, with the words added to its
    tail since (chat.render.streaming)."""
    settled, open_part, tail = "", "", ""
    for frame in frames:
        for swap in re.split(r'(?=<div hx-swap-oob=")', frame):
            found = _SWAP.match(swap)
            if found is None:
                continue
            if found[1] == f"beforebegin:#{block}-open":
                settled += found[2]
            elif found[1] == f"innerHTML:#{block}-open":
                open_part, tail = found[2], ""
            elif found[1] == f"beforeend:#{block}-tail":
                tail += found[2]
    span = f'<span class="answer-tail" id="{block}-tail">'
    return settled + open_part.replace(f"{span}</span>", f"{span}{tail}</span>")


def streamed_text(frames: list[str], block: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", streamed_html(frames, block)))


def squeezed(text: str) -> str:
    """The text without its whitespace: how a stream is cut into pieces is no concern here."""
    return "".join(text.split())


def signals(frames: list[str]) -> list[dict[str, Any]]:
    found = re.findall(
        r'id="chat-signal" hx-swap-oob="true" hidden data-signal="([^"]*)"', "".join(frames)
    )
    return [json.loads(html.unescape(data)) for data in found]


def reasoning_blocks(frames: list[str]) -> dict[str, str]:
    """The reasoning blocks a tab was given, by id, with their text as it stands."""
    drawn = r'<details class="reasoning" id="(t\d+-b\d+)">.*?-text">(.*?)</div>'
    appended = r'<div hx-swap-oob="beforeend:#(t\d+-b\d+)-text">(.*?)</div>'
    deleted = r'<div id="(t\d+-b\d+)" hx-swap-oob="delete">'
    blocks: dict[str, str] = {}
    for frame in frames:
        for block in re.findall(deleted, frame):
            blocks.pop(block, None)
        for block, text in re.findall(drawn, frame, re.S):
            blocks[block] = html.unescape(text)
        for block, text in re.findall(appended, frame, re.S):
            blocks[block] += html.unescape(text)
    return blocks


async def test_html_mode_starts_with_the_stored_panel(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    async with opened(project, user, as_json=False) as socket:
        empty = await socket.receive_from()
    scripted.script(answer("Here is **your** page."))
    events = await one_turn(project, user)
    await turns.wait_all()
    async with opened(project, user, as_json=False) as socket:
        later = await socket.receive_from()
        assert await socket.receive_nothing()

    assert 'hx-swap-oob="innerHTML:#chat-log"' in empty
    assert "chat-empty" in empty
    assert '<div id="chat-status" class="chat-status" hx-swap-oob="true">' in empty
    assert 'id="conversation-usage"' in empty
    assert 'id="chat-signal"' in empty
    turn = f"t{events[0]['message_id']}"
    assert f'<article class="turn" id="{turn}">' in later
    assert "<strong>your</strong>" in later
    assert f'class="turn-footer completed" id="{turn}-foot"' in later
    assert "1 turn · 120 tokens" in later
    assert "data-busy" not in later


async def test_html_mode_draws_the_turn_as_it_happens(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    # The answer comes in paced pieces, so the tab is sent it as it streams.
    scripted.script(writing_round(), Reply(content=ANSWER, content_pieces=8, pause=0.05))
    async with opened(project, user, as_json=False) as socket:
        await socket.receive_from()  # the stored panel
        # As htmx's ws extension sends a form: its fields plus HEADERS.
        await send(socket, message="Make a <b>bakery</b> site", HEADERS={"HX-Request": "true"})
        sent = await socket.receive_from()
        frames = await frames_until(socket, "turn-footer completed")
        assert await socket.receive_nothing()
    user_row = (await stored((await sync_to_async(Conversation.objects.get)()).pk))[0]
    turn = f"t{user_row.pk}"
    everything = "".join(frames)

    assert 'id="chat-notice"' in sent
    assert signals([sent])[0]["sent"] is True
    # The person's message, escaped, in a new article at the end of the log.
    assert f'<div hx-swap-oob="beforeend:#chat-log"><article class="turn" id="{turn}">' in frames[0]
    assert "Make a &lt;b&gt;bakery&lt;/b&gt; site" in frames[0]
    assert 'data-busy="true"' in frames[0]
    # The first answer in one block (its text and calls came together, so it was drawn
    # once, complete), then the tool card's life.
    assert f'<div class="answer" id="{turn}-b1" hx-swap-oob="true"><p>{INTRO}</p>' in everything
    assert card_states(frames) == {f"{turn}-c1": ["queued", "running", "done"]}
    assert "Created /index.html" in everything
    assert squeezed(streamed_text(frames, f"{turn}-b3")) == squeezed(ANSWER.replace("**", ""))
    # The final answer as Markdown, already while it streamed; the model's <script>
    # only ever as text.
    assert "<strong>fresh bread</strong>" in streamed_html(frames, f"{turn}-b3")
    assert "<strong>fresh bread</strong>" in everything
    assert "<script" not in everything.lower()
    assert "&lt;script&gt;" in everything
    # The file tree and the page's script hear about the written file.
    assert re.search(r'<nav id="file-tree"[^>]*hx-swap-oob="true"', everything)
    assert "index.html" in everything.split('id="file-tree"', 1)[1]
    assert any(signal["files"] == ["/index.html"] for signal in signals(frames))
    # The footer: the outcome and the turn's usage (two requests of 120 tokens).
    footer = frames[-1]
    assert f'<footer class="turn-footer completed" id="{turn}-foot" hx-swap-oob="true">' in footer
    assert "240 tokens · $0.0008" in footer
    assert "1 turn · 240 tokens" in footer
    assert "data-busy" not in footer


async def test_streamed_text_keeps_the_spaces_between_its_pieces(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    words = "Fresh bread every morning, and cakes to order on weekends."
    scripted.script(Reply(content=words, reasoning=words, content_pieces=6, pause=0.1))
    async with opened(project, user, as_json=False) as socket:
        await socket.receive_from()
        await send(socket, message="Describe the bakery")
        frames = await frames_until(socket, "turn-footer completed")
    turn = f"t{(await sync_to_async(Message.objects.get)(role='user')).pk}"

    assert reasoning_blocks(frames) == {f"{turn}-b1": words}
    assert streamed_text(frames, f"{turn}-b2") == words


async def test_words_shown_as_they_come_are_drawn_as_markdown_while_the_model_pauses(
    scripted: FakeOpenRouter, project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Long enough that the open part is not drawn again for the next few words at once.
    monkeypatch.setattr(streaming, "REDRAW_AFTER", 2.0)
    pieces = ["Fresh bread and cakes every morning. " * 20, "Try our **rye**"]
    events = [
        event
        for piece in pieces
        for event in [
            *Reply(content=piece, content_pieces=1, finish_reason=None, usage=None, done=False)
            .to_stream()
            .events,
            Pause(0.8),  # each piece in a batch of its own, even on a busy machine
        ]
    ]
    scripted.script(Stream([*events, Pause(SLOW)]))
    async with opened(project, user, as_json=False) as socket:
        await socket.receive_from()
        await send(socket, message="Describe the bakery")
        shown = await frames_until(socket, "**rye**")
        # The model sends nothing more: the words are drawn all the same.
        drawn = await frames_until(socket, "<strong>rye</strong>")
        await send(socket, action="stop")
        await frames_until(socket, "turn-footer stopped")

    turn = f"t{(await sync_to_async(Message.objects.get)(role='user')).pk}"
    assert f'<div hx-swap-oob="beforeend:#{turn}-b1-tail"> Try our **rye**</div>' in shown[-1]
    assert f'innerHTML:#{turn}-b1-open"><p>' in drawn[-1]
    assert "Try our <strong>rye</strong>" in streamed_html(drawn, f"{turn}-b1")


async def test_html_mode_shows_a_bad_frame_as_a_notice(project: Project, user: User) -> None:
    async with opened(project, user, as_json=False) as socket:
        await socket.receive_from()
        await socket.send_to(text_data="not json")
        notice = await socket.receive_from()

    assert '<div id="chat-notice" class="chat-notice" role="alert" hx-swap-oob="true">' in notice
    assert "it was not JSON" in notice


# --- answers that break off, calls that interleave -------------------------------------


async def test_a_retried_answer_shows_only_the_retrys_reasoning_as_a_reload_does(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    failed = Reply(
        reasoning="First thoughts",
        content="Here is a dra",
        content_pieces=1,
        finish_reason=None,
        usage=None,
        done=False,
        piece_size=WHOLE,
    )
    scripted.script(
        Stream([*failed.to_stream().events, Drop()]),
        Reply(
            reasoning="Second thoughts",
            content="Here is the whole answer.",
            content_pieces=1,
            piece_size=WHOLE,
        ),
    )
    async with opened(project, user, as_json=False) as socket:
        await socket.receive_from()
        await send(socket, message="Explain the plan")
        live = await frames_until(socket, "turn-footer completed")
    await turns.wait_all()
    async with opened(project, user, as_json=False) as socket:
        reloaded = [await socket.receive_from()]

    shown_live = [text for text in reasoning_blocks(live).values() if text]
    assert list(reasoning_blocks(reloaded).values()) == ["Second thoughts"]
    assert shown_live == ["Second thoughts"]


def call_delta(event: object) -> dict[str, Any] | None:
    if not isinstance(event, Chunk):
        return None
    calls = event.data["choices"][0]["delta"].get("tool_calls")
    return calls[0] if calls else None


def with_arguments(head: Chunk, arguments: str) -> Chunk:
    data = copy.deepcopy(dict(head.data))
    data["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = arguments
    return Chunk(data)


def interleaved(reply: Reply, *, heads_carry_arguments: bool, order: list[int]) -> Stream:
    """`reply`'s stream as some providers send it: every call begun before any is
    complete. Each call's first piece of arguments comes with its head or after all
    heads; the calls' other pieces follow, call by call, in `order`."""
    events = list(reply.to_stream().events)
    at = next(i for i, event in enumerate(events) if call_delta(event))
    after = [event for event in events[at:] if not call_delta(event)]
    by_call: dict[int, list[Chunk]] = {}
    for event in events:
        delta = call_delta(event)
        if delta is not None and isinstance(event, Chunk):
            by_call.setdefault(delta["index"], []).append(event)
    heads = [pieces[0] for pieces in by_call.values()]
    skip = 1
    if heads_carry_arguments:
        heads = [with_arguments(pieces[0], argument_text(pieces[1])) for pieces in by_call.values()]
        skip = 2
    rest = [piece for index in order for piece in by_call[index][skip:]]
    return Stream([*events[:at], *heads, *rest, *after], piece_size=WHOLE)


def argument_text(piece: Chunk) -> str:
    delta = call_delta(piece)
    assert delta is not None
    return str(delta["function"]["arguments"])


def pages(*paths: str) -> list[ToolCallScript]:
    return [ToolCallScript("create_file", {"path": path, "content": PAGE}) for path in paths]


async def test_calls_a_provider_interleaves_run_with_their_whole_arguments(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    reply = Reply(tool_calls=pages("/index.html", "/about.html"))
    stream = interleaved(reply, heads_carry_arguments=False, order=[0, 1])
    scripted.script(stream, answer("Two pages."))

    events = await one_turn(project, user, "Make two pages")

    results = [event for event in events if event["type"] == "tool_result"]
    assert [(event["ok"], event["path"]) for event in results] == [
        (True, "/index.html"),
        (True, "/about.html"),
    ]
    assert await file_content(project, "/index.html") == PAGE


async def test_calls_announced_together_each_get_their_own_card(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    reply = Reply(tool_calls=pages("/index.html", "/about.html", "/contact.html"))
    # The second call is whole before the first: both are announced when the first is.
    stream = interleaved(reply, heads_carry_arguments=True, order=[1, 0, 2])
    scripted.script(stream, answer("Three pages."))
    async with opened(project, user, as_json=False) as socket:
        await socket.receive_from()
        await send(socket, message="Make three pages")
        frames = await frames_until(socket, "turn-footer completed")
    turn = f"t{(await sync_to_async(Message.objects.get)(role='user')).pk}"

    for path in ("/index.html", "/about.html", "/contact.html"):
        assert await file_content(project, path) == PAGE
    assert card_states(frames) == {f"{turn}-c{n}": ["queued", "running", "done"] for n in (1, 2, 3)}


# --- stop ------------------------------------------------------------------------------


async def test_stop_ends_a_slow_turn_at_once_and_it_is_stored_as_stopped(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(slow())
    async with opened(project, user) as socket:
        await send(socket, message="Write a long essay")
        await events_until(socket, "content")
        await send(socket, action="stop")
        # Well within the SLOW seconds the reply would take to finish.
        rest = await events_until(socket, "done", timeout=5)

    done = rest[-1]
    assert done["status"] == "stopped"
    assert done["finish_reason"] == "stopped"
    rows = await stored((await sync_to_async(Conversation.objects.get)()).pk)
    assert rows[-1].pk == done["message_id"]
    assert rows[-1].metadata["turn"]["status"] == "stopped"
    assert await sync_to_async(scripted.wait_for_disconnect)(5)


async def test_stop_with_nothing_running_says_so(project: Project, user: User) -> None:
    async with opened(project, user) as socket:
        await send(socket, action="stop")
        error = await next_event(socket)

    assert error["code"] == "not_running"


# --- one turn at a time --------------------------------------------------------------


async def test_a_second_message_while_a_turn_runs_is_refused_as_busy(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    held = Held(answer("Done."))
    scripted.responder = held
    async with opened(project, user) as socket:
        await send(socket, message="first")
        (started,) = await events_until(socket, "turn_started")
        await send(socket, message="second")
        refusal = await events_until(socket, "error")
        held.release()
        rest = await events_until(socket, "done")

    assert refusal == [
        {
            "type": "error",
            "code": "busy",
            "message": turns.busy_message(),
            "retryable": False,
        }
    ]
    assert rest[-1]["status"] == "completed"
    assert len(scripted.requests) == 1
    rows = await stored(started["conversation_id"])
    assert [row.content for row in rows if row.role == "user"] == ["first"]


async def test_a_turns_end_clears_only_the_notice_its_own_socket_put_there(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    held = Held(answer("Done."))
    scripted.responder = held
    async with (
        opened(project, user, as_json=False) as sender,
        opened(project, user, as_json=False) as watcher,
    ):
        await sender.receive_from()
        await watcher.receive_from()
        await send(sender, message="first")
        await frames_until(sender, "chat-status")
        await send(sender, message="second")
        refused = await frames_until(sender, 'role="alert"')
        assert turns.busy_message() in html.unescape(refused[-1])
        held.release()
        ended_here = "".join(await frames_until(sender, "turn-footer completed"))
        idle = '<div id="chat-status" class="chat-status" hx-swap-oob="true">'
        ended_there = "".join(await frames_until(watcher, idle))

    # The refused tab's "busy" no longer holds; the other tab's notice (a
    # summary's result, say) is not this turn's to clear.
    assert '<div id="chat-notice" class="chat-notice" hx-swap-oob="true"></div>' in ended_here
    assert 'id="chat-notice"' not in ended_there


async def test_a_message_refused_as_busy_leaves_the_projects_model_alone(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    await lock_elsewhere(project)
    async with opened(project, user) as socket:
        await send(socket, message="hello", model="anthropic/claude-haiku-4.5")
        error = await next_event(socket)
    assert error["code"] == "busy"
    assert (await refreshed(project)).default_model == ""


@sync_to_async
def lock_elsewhere(project: Project) -> ProjectLock:
    lock = lock_acquire(project=project, purpose="assistant", details={}, ttl=60)
    assert isinstance(lock, ProjectLock)
    return lock


async def test_a_turn_running_in_another_process_makes_the_project_busy(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    await lock_elsewhere(project)
    async with opened(project, user) as socket:
        await send(socket, message="hello")
        error = await next_event(socket)
        assert await socket.receive_nothing()

    assert error["code"] == "busy"
    assert "already working on this project" in error["message"]
    assert scripted.requests == []
    assert not await sync_to_async(Message.objects.exists)()


async def test_a_message_sent_while_compacting_is_told_so_without_a_stop_to_press(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    await sync_to_async(lock_acquire)(project=project, purpose=COMPACTION_LOCK, details={}, ttl=60)
    async with opened(project, user) as socket:
        await send(socket, message="hello")
        error = await next_event(socket)

    assert error["code"] == "busy"
    assert "being summarised" in error["message"]
    assert "Stop" not in error["message"]
    assert scripted.requests == []


async def test_an_expired_lock_is_taken_over_and_the_turn_runs(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    lock = await lock_elsewhere(project)
    past = timezone.now() - timedelta(seconds=1)
    await sync_to_async(ProjectLock.objects.filter(holder=lock.holder).update)(expires_at=past)
    scripted.script(answer("Hello."))

    events = await one_turn(project, user, "hello")
    await turns.wait_all()

    assert events[-1]["status"] == "completed"
    assert len(scripted.requests) == 1
    assert not await sync_to_async(ProjectLock.objects.exists)()


@sync_to_async
def two_conversations(project: Project) -> tuple[Conversation, Conversation]:
    working = services.conversation_create(project=project, title="Bakery pages")
    return working, services.conversation_create(project=project, title="Colours")


async def test_a_message_refused_as_busy_does_not_name_the_conversation(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    working, _ = await two_conversations(project)
    fresh = await sync_to_async(services.conversation_create)(project=project)
    held = Held(answer("Pages done."), answer("Red it is."))
    scripted.responder = held
    async with (
        opened(project, user, query=f"conversation={working.pk}") as busy_tab,
        opened(project, user, query=f"conversation={fresh.pk}") as socket,
    ):
        await send(busy_tab, message="Make a bakery site")
        await events_until(busy_tab, "turn_started")
        await send(socket, message="Make it blue")
        refusal = await events_until(socket, "error")
        held.release()
        await events_until(socket, "done")
        await turns.wait_all()
        await send(socket, message="Make it red")
        await events_until(socket, "done")

    assert refusal[-1]["code"] == "busy"
    sent = await stored(fresh.pk)
    assert [row.content for row in sent if row.role == "user"] == ["Make it red"]
    assert (await sync_to_async(Conversation.objects.get)(pk=fresh.pk)).title == "Make it red"


# --- every tab of the project sees the turn -------------------------------------------


async def test_every_socket_of_the_project_gets_the_same_events_and_no_other_project_does(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    elsewhere = await other_project(user)
    scripted.script(writing_round(), answer())
    async with (
        opened(project, user) as sender,
        opened(project, user) as watcher,
        opened(elsewhere, user) as stranger,
    ):
        await send(sender, message="Make a bakery site")
        sent = await events_until(sender, "done")
        seen = await events_until(watcher, "done")
        assert await stranger.receive_nothing()
        assert await watcher.receive_nothing()

    assert folded(types(sent)) == TURN
    assert seen == sent


async def test_an_html_tab_on_the_same_conversation_draws_the_turn_too(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    conversation = await sync_to_async(services.conversation_create)(project=project)
    query = f"conversation={conversation.pk}"
    scripted.script(writing_round(), answer())
    async with (
        opened(project, user, query=query) as sender,
        opened(project, user, as_json=False, query=query) as watcher,
    ):
        await watcher.receive_from()
        await send(sender, message="Make a bakery site")
        started = (await events_until(sender, "done"))[0]
        frames = await frames_until(watcher, "turn-footer completed")
    turn = f"t{started['message_id']}"

    assert f'<article class="turn" id="{turn}">' in frames[0]
    assert card_states(frames) == {f"{turn}-c1": ["queued", "running", "done"]}
    assert "<strong>fresh bread</strong>" in "".join(frames)


async def test_a_tab_on_another_conversation_is_told_but_not_shown_the_turn(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    working, other = await two_conversations(project)
    held = Held(answer())
    scripted.responder = held
    async with (
        opened(project, user, query=f"conversation={working.pk}") as sender,
        opened(project, user, as_json=False, query=f"conversation={other.pk}") as watcher,
    ):
        await watcher.receive_from()
        await send(sender, message="Make a bakery site")
        await events_until(sender, "turn_started")
        told = await watcher.receive_from()
        held.release()
        await events_until(sender, "done")
        ended = await frames_until(watcher, 'id="chat-status"')

    assert 'data-busy="true"' in told
    assert "<article" not in told + "".join(ended)
    assert "data-busy" not in ended[-1]


async def test_a_tab_on_another_conversation_names_it_as_a_reload_does(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    working, other = await two_conversations(project)
    held = Held(answer())
    scripted.responder = held
    async with (
        opened(project, user, query=f"conversation={working.pk}") as sender,
        opened(project, user, as_json=False, query=f"conversation={other.pk}") as watcher,
    ):
        await watcher.receive_from()
        await send(sender, message="Make a bakery site")
        await events_until(sender, "turn_started")
        told = await watcher.receive_from()
        async with opened(project, user, as_json=False, query=f"conversation={other.pk}") as fresh:
            reloaded = await fresh.receive_from()
        held.release()
        await events_until(sender, "done")

    assert "working in another conversation (Bakery pages)." in reloaded
    assert "working in another conversation (Bakery pages)." in told


async def test_a_socket_opened_mid_turn_gets_the_turn_from_its_start_then_live(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    held = Held(answer())
    scripted.script(writing_round())
    scripted.responder = held
    async with opened(project, user) as sender:
        await send(sender, message="Make a bakery site")
        before = await events_until(sender, "files_changed")
        assert await sync_to_async(scripted.wait_for_requests)(2)  # held: mid-turn
        async with opened(project, user) as late:
            caught_up = await events_until(late, "files_changed")
            held.release()
            after = await events_until(sender, "done")
            live = await events_until(late, "done")
            assert await late.receive_nothing()

    assert joined_text(caught_up) == joined_text(before)
    assert live == after
    assert types(after)[0] == "content"


async def test_an_html_tab_opened_mid_turn_draws_the_running_turn_once(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    held = Held(answer())
    scripted.script(writing_round())
    scripted.responder = held
    async with opened(project, user) as sender:
        await send(sender, message="Make a bakery site")
        started = (await events_until(sender, "files_changed"))[0]
        assert await sync_to_async(scripted.wait_for_requests)(2)
        async with opened(project, user, as_json=False) as late:
            snapshot = await late.receive_from()
            replayed = await frames_until(late, "Created /index.html")
            held.release()
            frames = await frames_until(late, "turn-footer completed")
        await events_until(sender, "done")
    turn = f"t{started['message_id']}"
    everything = snapshot + "".join(replayed + frames)

    assert 'data-busy="true"' in snapshot
    assert f'id="{turn}"' not in snapshot  # the running turn comes from its events, not twice
    assert everything.count(f'<article class="turn" id="{turn}">') == 1
    assert card_states(replayed + frames)[f"{turn}-c1"][-1] == "done"
    assert "<strong>fresh bread</strong>" in "".join(frames)


async def test_the_turn_goes_on_when_the_socket_that_started_it_closes(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    held = Held(writing_round(), answer())
    scripted.responder = held
    async with opened(project, user) as socket:
        await send(socket, message="Make a bakery site")
        started = await next_event(socket)
        assert await sync_to_async(scripted.wait_for_requests)(1)
    held.release()
    await asyncio.wait_for(turns.wait_all(), 10)

    rows = await stored(started["conversation_id"])
    assert rows[-1].metadata["turn"]["status"] == "completed"
    assert rows[-1].content == ANSWER
    assert await file_content(project, "/index.html") == PAGE


# --- frames that cannot be used --------------------------------------------------------

BAD_FRAMES: dict[str, tuple[dict[str, Any], str, str]] = {
    "not JSON": ({"text_data": "make me a site"}, "bad_frame", "not JSON"),
    "binary": ({"bytes_data": b'{"message": "hi"}'}, "bad_frame", "as JSON text"),
    "a JSON array": ({"text_data": '["hi"]'}, "bad_frame", "expected a JSON object"),
    "unknown action": ({"text_data": '{"action": "dance"}'}, "bad_frame", "Unknown request"),
    "a message that is not text": ({"text_data": '{"message": 5}'}, "bad_frame", "Write"),
    "an empty message": ({"text_data": '{"message": "  "}'}, "bad_message", "Write a message"),
    "a message too long": (
        {"text_data": '{"message": "' + "x" * 41 + '"}'},
        "bad_message",
        "at most 40",
    ),
    "a model that is not text": (
        {"text_data": '{"message": "hi", "model": 5}'},
        "bad_frame",
        "The model must be given as text",
    ),
    "a model id of a bad form": (
        {"text_data": '{"message": "hi", "model": "the best one please"}'},
        "bad_model",
        "is not a model id",
    ),
}


async def test_bad_frames_are_each_answered_and_the_socket_stays_usable(
    scripted: FakeOpenRouter, settings: SettingsWrapper, project: Project, user: User
) -> None:
    settings.BUILTIT_MAX_MESSAGE_CHARS = 40
    scripted.script(answer("Hello."))
    answers: dict[str, dict[str, Any]] = {}
    async with opened(project, user) as socket:
        for name, (frame, _, _) in BAD_FRAMES.items():
            await socket.send_to(**frame)
            answers[name] = await next_event(socket)
        assert await socket.receive_nothing()
        assert scripted.requests == []
        await send(socket, message="hello")
        events = await events_until(socket, "done")

    for name, (_, code, says) in BAD_FRAMES.items():
        assert answers[name]["type"] == "error", name
        assert answers[name]["code"] == code, name
        assert says in answers[name]["message"], name
    assert events[-1]["status"] == "completed"
    assert len(scripted.requests) == 1


# --- the person's key, model and files ------------------------------------------------


@pytest.mark.parametrize("own_key", ["sk-or-v1-personal-0123456789", None])
async def test_a_personal_key_is_used_for_that_users_turns(
    scripted: FakeOpenRouter, project: Project, user: User, own_key: str | None
) -> None:
    if own_key is not None:
        await sync_to_async(key_save)(user=user, raw=own_key)
    scripted.script(answer("Hello."))

    await one_turn(project, user, "hello")

    assert scripted.requests[0].headers["authorization"] == f"Bearer {own_key or 'sk-test'}"


async def test_the_chosen_model_is_used_and_remembered_for_the_project(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(answer("One."), answer("Two."))
    async with opened(project, user) as socket:
        await send(socket, message="first", model="openai/gpt-5-mini")
        chosen = await events_until(socket, "done")
        await turns.wait_all()
        await send(socket, message="second")
        remembered = await events_until(socket, "done")

    assert chosen[0]["model"] == remembered[0]["model"] == "openai/gpt-5-mini"
    assert [r.json["model"] for r in scripted.requests] == ["openai/gpt-5-mini"] * 2
    assert (await refreshed(project)).default_model == "openai/gpt-5-mini"


@sync_to_async
def save(client: Client, project: Project, content: str) -> tuple[int, str]:
    version = ProjectFile.objects.get(project=project, path="/index.html").version
    response = client.post(
        reverse("file_save", args=[project.pk]),
        {"path": "/index.html", "content": content, "version": version},
    )
    return response.status_code, response.content.decode()


async def test_a_persons_save_waits_while_a_turn_runs(
    scripted: FakeOpenRouter, starter_project: Project, user: User, user_client: Client
) -> None:
    before = await file_content(starter_project, "/index.html")
    held = Held(answer("Done."))
    scripted.responder = held
    async with opened(starter_project, user) as socket:
        await send(socket, message="Change the title")
        await events_until(socket, "turn_started")
        during = await save(user_client, starter_project, "<h1>Mine</h1>")
        unchanged = await file_content(starter_project, "/index.html")
        held.release()
        await events_until(socket, "done")
    await turns.wait_all()
    after = await save(user_client, starter_project, "<h1>Mine</h1>")

    assert during[0] == 423
    assert "saving is paused" in during[1]
    assert unchanged == before
    assert after[0] == 200
    assert await file_content(starter_project, "/index.html") == "<h1>Mine</h1>"


async def test_without_any_api_key_the_turn_says_to_add_one_in_settings(
    scripted: FakeOpenRouter, settings: SettingsWrapper, project: Project, user: User
) -> None:
    settings.OPENROUTER_API_KEY = ""
    scripted.script(HttpError(401))  # what OpenRouter answers a request without a key

    events = await one_turn(project, user, "hello")

    error = first(events, "error")
    assert error["code"] == "no_api_key"
    assert "Settings" in error["message"]
    assert events[-1]["status"] == "failed"
    assert "authorization" not in scripted.requests[0].headers


async def test_socket_messages_do_not_queue_on_the_shared_database_thread(
    scripted: FakeOpenRouter, project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Channels closes old connections through asgiref's single shared thread before
    # every handler; for a chat socket that serialised every tab's every frame.
    hops = []

    async def counted() -> None:
        hops.append(1)

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    scripted.script(writing_round(), answer())
    events = await one_turn(project, user)

    assert events[-1]["status"] == "completed"
    assert hops == []
