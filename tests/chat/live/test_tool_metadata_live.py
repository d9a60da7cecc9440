"""Tool metadata through the socket: a turn's tool events say what kind of step
each call is in JSON mode, and an HTML tab folds the quiet ones into one line."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User

from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply, ToolCallScript
from projects.models import Project
from tests.chat.live.tabs import events_until, frames_until, opened, send

pytestmark = pytest.mark.django_db(transaction=True)

WHOLE = 1 << 20  # the fake writes each reply at once: the events' order is fixed
PATHS = ("/index.html", "/styles.css", "/script.js")


def three_reads_then_a_write() -> list[Reply]:
    reads = [ToolCallScript("read_file", {"path": path}) for path in PATHS]
    write = ToolCallScript("update_file", {"path": "/styles.css", "content": "body {}\n"})
    return [
        Reply(tool_calls=reads, piece_size=WHOLE),
        Reply(tool_calls=[write], piece_size=WHOLE),
        Reply(content="Plainer now.", piece_size=WHOLE),
    ]


def steps(events: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    """Each call's events as (type, tool, category, visibility), announced ones one by one."""
    found = []
    for event in events:
        for step in event.get("calls", [event]):
            if "visibility" in step:
                found.append((event["type"], step["name"], step["category"], step["visibility"]))
    return found


async def test_json_frames_say_each_calls_category_and_visibility(
    scripted: FakeOpenRouter, starter_project: Project, user: User
) -> None:
    scripted.script(*three_reads_then_a_write())
    async with opened(starter_project, user) as socket:
        await send(socket, message="Plainer styles")
        events = await events_until(socket, "done")

    assert events[-1]["status"] == "completed"
    read = ("read_file", "read", "quiet")
    write = ("update_file", "write", "primary")
    assert sorted(steps(events)) == sorted(
        (kind, *tool)
        for kind in ("tool_calls", "tool_executing", "tool_result")
        for tool in (read, read, read, write)
    )
    # Nothing else carries them.
    assert all(
        "visibility" not in event
        for event in events
        if event["type"] not in ("tool_executing", "tool_result")
    )


async def test_an_html_tab_folds_the_reads_into_one_line_before_the_writes_card(
    scripted: FakeOpenRouter, starter_project: Project, user: User
) -> None:
    scripted.script(*three_reads_then_a_write())
    async with opened(starter_project, user, as_json=False) as socket:
        await socket.receive_from()  # the stored panel
        await send(socket, message="Plainer styles")
        frames = await frames_until(socket, "turn-footer completed")
    everything = "".join(frames)

    assert everything.count('<li class="tool-group"') == 1
    line = everything.rsplit('-group-line" data-state=', 1)[1]
    assert line.startswith('"done"')
    assert "Looked at 3 files" in line.split("</span></span>", 1)[0]
    # The write's card goes into the list of steps itself, after the group.
    written = next(frame for frame in frames if 'tool-name">Rewrite' in frame)
    assert re.search(r'hx-swap-oob="beforeend:#t\d+-b\d+"><li class="tool-card queued"', written)
