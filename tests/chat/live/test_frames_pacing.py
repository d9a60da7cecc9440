"""Frames wait only under load: a turn's events go to its tabs as
soon as the server gets to them; pieces that came while a tab was busy go
together, each exactly once and in order; a tool call or the end of the turn is
never held back, and text after which nothing comes is not left waiting.
Whether the server is busy is made a matter of structure here (a tab's inbox
read later), never of timing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from chat.live import turns
from chat.live.inbox import Inbox
from chat.live.load import Load
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply, Stall, Stream, ToolCallScript
from projects.models import Project
from tests.chat.live.tabs import events_until, opened, send, types
from tests.fakes.held import Held

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = " ".join(f"word{number}" for number in range(40))
PIECES = 40
LONGER_THAN_ANY_TEST = 3600.0  # seconds


def paced(content: str = WORDS, **fields: Any) -> Reply:
    """Text in PIECES pieces, each written apart, as a model streams it."""
    return Reply(content=content, content_pieces=PIECES, pause=0.01, **fields)


def texts(events: list[dict[str, Any]]) -> list[str]:
    return [event["text"] for event in events if event["type"] == "content"]


def batch(turn: str, *pieces: tuple[int, str]) -> dict[str, Any]:
    events = [{"seq": seq, "event": {"type": "content", "text": text}} for seq, text in pieces]
    return {"type": "turn.events", "turn": turn, "conversation": 1, "events": events}


async def test_pieces_that_came_while_a_tab_was_busy_go_together_each_once_and_in_order() -> None:
    inbox = Inbox()
    shared = batch("t1", (1, "Hel"))
    inbox.feed(shared)
    inbox.feed(batch("t1", (2, "lo ")))
    inbox.feed(batch("t1", (3, "there")))

    message = await inbox.receive()
    # One message, each piece with its own number: the tab drops what it had
    # shown by number before it joins the text (chat.live.following).
    assert [(item["seq"], item["event"]["text"]) for item in message["events"]] == [
        (1, "Hel"),
        (2, "lo "),
        (3, "there"),
    ]
    assert len(inbox) == 0
    # The first message is every tab's (the hub hands the same to each): never changed.
    assert [item["seq"] for item in shared["events"]] == [1]


async def test_an_idle_tab_gets_each_piece_at_once_and_other_turns_and_messages_stay_apart() -> (
    None
):
    inbox = Inbox()
    waiting = asyncio.ensure_future(inbox.receive())
    await asyncio.sleep(0)
    inbox.feed(batch("t1", (1, "Hi")))
    first = await waiting
    assert first["events"][0]["event"]["text"] == "Hi"

    inbox.feed(batch("t1", (2, "a")))
    inbox.feed({"type": "turn.lost", "turn": "t0"})
    inbox.feed(batch("t1", (3, "b")))
    inbox.feed(batch("t2", (1, "c")))
    got = [await inbox.receive() for _ in range(4)]
    assert [message["type"] for message in got] == ["turn.events", "turn.lost"] + [
        "turn.events"
    ] * 2
    assert [message.get("turn") for message in got] == ["t1", "t0", "t1", "t2"]


async def test_a_whole_answer_reaches_the_tab_once_and_in_order(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(paced())
    async with opened(project, user) as socket:
        await send(socket, message="Describe the bakery")
        events = await events_until(socket, "done")
    assert "".join(texts(events)) == WORDS
    assert types(events)[-1] == "done"


async def test_a_tool_call_after_text_goes_out_at_once_with_the_text_before_it(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    page = ToolCallScript("create_file", {"path": "/index.html", "content": "<p>Bread</p>"})
    held = Held(Reply(content="Done."))
    scripted.script(paced(tool_calls=[page]))
    scripted.responder = held
    async with opened(project, user) as socket:
        await send(socket, message="Make a bakery site")
        # The model's next reply is held: had the call waited for later text,
        # these would never come.
        before = await events_until(socket, "files_changed")
        assert await sync_to_async(scripted.wait_for_requests)(2)
        held.release()
        after = await events_until(socket, "done")

    assert "".join(texts(before)) == WORDS
    kinds = types(before)
    assert kinds.index("tool_calls") > max(i for i, kind in enumerate(kinds) if kind == "content")
    assert "".join(texts(after)) == "Done."


async def test_text_after_which_nothing_comes_is_not_left_waiting(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    stream = paced().to_stream()
    # The text, then nothing more: no later event can carry what waits.
    scripted.script(Stream([*stream.events[: PIECES + 1], Stall()], pause=stream.pause))
    async with opened(project, user) as socket:
        await send(socket, message="Describe the bakery")
        received: list[dict[str, Any]] = []
        while "".join(texts(received)) != WORDS:
            received += await events_until(socket, "content")
        await send(socket, action="stop")
        rest = await events_until(socket, "done")

    assert texts(rest) == []
    assert rest[-1]["status"] == "stopped"


def test_the_process_is_busy_above_its_share_of_a_core() -> None:
    clock = {"cpu": 0.0, "wall": 0.0}
    busy = Load(cpu=lambda: clock["cpu"], wall=lambda: clock["wall"])
    clock.update(cpu=0.05, wall=0.1)  # half a core
    cpu, wall = busy.look(0.0, 0.0)
    assert not busy.busy
    clock.update(cpu=cpu + 0.09, wall=wall + 0.1)  # nine tenths
    busy.look(cpu, wall)
    assert busy.busy


async def test_on_a_busy_server_text_waits_for_more_and_goes_once_in_order(
    scripted: FakeOpenRouter, project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "BUSY_WINDOW", LONGER_THAN_ANY_TEST)
    monkeypatch.setattr(
        Load, "busy", property(lambda self: True, lambda self, value: None), raising=False
    )
    scripted.script(paced())
    async with opened(project, user) as socket:
        await send(socket, message="Describe the bakery")
        events = await events_until(socket, "done")

    # Every piece waited (the window is longer than the test), and the end of
    # the stream took them all along, at once and whole.
    sent = texts(events)
    assert len(sent) == 1
    assert sent == [WORDS]
    assert types(events)[-1] == "done"
