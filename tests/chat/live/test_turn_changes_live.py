"""A turn's changes over the socket: the summary under the turn grows
while it runs and offers Undo once it ends; an undo made in one tab reaches every
tab of the project, as HTML (tree, signal, summary) or, in JSON mode, as an event."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import Client

from chat.models import Message
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply, ToolCallScript
from projects.models import Project
from tests.chat.live.tabs import events_until, frames_until, opened, send

pytestmark = pytest.mark.django_db(transaction=True)


def _two_rounds(fake: FakeOpenRouter) -> None:
    about = {"path": "/about.html", "content": "<h1>About</h1>\n"}
    contact = {"path": "/contact.html", "content": "<h1>Contact</h1>\n<p>Call us</p>\n"}
    fake.script(
        Reply(tool_calls=[ToolCallScript("create_file", about)]),
        Reply(tool_calls=[ToolCallScript("create_file", contact)]),
        Reply(content="Two pages added."),
    )


async def test_the_summary_grows_while_the_turn_runs_and_offers_undo_at_the_end(
    scripted: FakeOpenRouter, starter_project: Project, user: User
) -> None:
    _two_rounds(scripted)
    async with opened(starter_project, user, as_json=False) as tab:
        await frames_until(tab, 'id="chat-signal"')
        await send(tab, message="Add two pages")
        first = await frames_until(tab, "1 file changed")
        assert "Undo this turn" not in first[-1], "not while the turn runs"
        second = await frames_until(tab, "2 files changed")
        assert "+3" in second[-1]
        assert "/contact.html" in second[-1]
        ended = await frames_until(tab, "Undo this turn")
        turn = await sync_to_async(Message.objects.get)(role=Message.Role.USER)
        assert f'id="t{turn.pk}-changes" hx-swap-oob="true"' in ended[-1]
        assert "Restore the project to here" in ended[-1]


async def test_an_undo_in_one_tab_reaches_every_tab(
    scripted: FakeOpenRouter, starter_project: Project, user: User
) -> None:
    _two_rounds(scripted)
    async with (
        opened(starter_project, user, as_json=False) as page,
        opened(starter_project, user, as_json=True) as script,
    ):
        await frames_until(page, 'id="chat-signal"')
        await send(page, message="Add two pages")
        done = await events_until(script, "done")
        turn_id = done[0]["message_id"]
        await frames_until(page, "Undo this turn")

        client = Client()
        await sync_to_async(client.force_login)(user)
        url = f"/projects/{starter_project.pk}/turns/{turn_id}/undo/"
        answer = await sync_to_async(client.post)(url)
        assert answer.status_code == 200

        moved = await events_until(script, "files_moved")
        assert moved[-1] == {
            "type": "files_moved",
            "paths": ["/about.html", "/contact.html"],
            "turn": turn_id,
            "by": "history",
        }
        shown = (await frames_until(page, "Undone"))[-1]
        assert 'id="file-tree"' in shown
        assert 'data-path="/index.html"' in shown
        assert 'data-path="/about.html"' not in shown, "gone from the tree"
        signal = shown.split('data-signal="', 1)[1].split('"', 1)[0]
        assert json.loads(signal.replace("&quot;", '"'))["files"] == [
            "/about.html",
            "/contact.html",
        ]
