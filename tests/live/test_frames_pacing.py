"""Streamed text goes out in frames at most turns.FRAME_INTERVAL apart per turn
(issue 19): pieces the model sends within one window reach the tabs together,
each exactly once and in order, while a tool call or the end of the turn is
never held back behind the window. Windows far longer than any test make the
outcome a matter of structure, not of timing."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from chat.live import turns
from projects.models import Project
from tests.fakes.held import Held
from tests.fakes.openrouter import FakeOpenRouter
from tests.fakes.script import Reply, Stall, Stream, ToolCallScript
from tests.live.tabs import events_until, opened, send, types

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = " ".join(f"word{number}" for number in range(40))
PIECES = 40
LONGER_THAN_ANY_TEST = 3600.0  # seconds


def paced(content: str = WORDS, **fields: Any) -> Reply:
    """Text in PIECES pieces, each written apart, as a model streams it."""
    return Reply(content=content, content_pieces=PIECES, pause=0.01, **fields)


def texts(events: list[dict[str, Any]]) -> list[str]:
    return [event["text"] for event in events if event["type"] == "content"]


async def test_pieces_within_one_window_go_out_together_each_once_and_in_order(
    scripted: FakeOpenRouter, project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "FRAME_INTERVAL", LONGER_THAN_ANY_TEST)
    scripted.script(paced())
    async with opened(project, user) as socket:
        await send(socket, message="Describe the bakery")
        events = await events_until(socket, "done")

    # The first piece at once (an idle turn feels instant); every later one
    # waited for the window, and the end of the stream took them all along.
    sent = texts(events)
    assert len(sent) == 2
    assert "".join(sent) == WORDS
    assert types(events)[-1] == "done"


async def test_a_tool_call_after_text_goes_out_at_once_with_the_text_before_it(
    scripted: FakeOpenRouter, project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "FRAME_INTERVAL", LONGER_THAN_ANY_TEST)
    page = ToolCallScript("create_file", {"path": "/index.html", "content": "<p>Bread</p>"})
    held = Held(Reply(content="Done."))
    scripted.script(paced(tool_calls=[page]))
    scripted.responder = held
    async with opened(project, user) as socket:
        await send(socket, message="Make a bakery site")
        # The model's next reply is held: had the call waited for the window,
        # these would never come.
        before = await events_until(socket, "files_changed")
        assert await sync_to_async(scripted.wait_for_requests)(2)
        held.release()
        after = await events_until(socket, "done")

    assert "".join(texts(before)) == WORDS
    kinds = types(before)
    assert kinds.index("tool_calls") > max(i for i, kind in enumerate(kinds) if kind == "content")
    assert "".join(texts(after)) == "Done."


async def test_text_waiting_for_its_frame_goes_out_when_the_window_ends(
    scripted: FakeOpenRouter, project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "FRAME_INTERVAL", 0.05)
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
