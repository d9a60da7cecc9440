"""Attachments over the socket (issue 17): a message with the preview's problems
starts a turn whose request to the model carries them, whose started event
shows them, and whose stored message keeps them apart from the words."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from chat.models import Message
from projects.models import Project
from tests.fakes.openrouter import FakeOpenRouter
from tests.fakes.script import Reply
from tests.live.tabs import events_until, next_event, opened, send

pytestmark = pytest.mark.django_db(transaction=True)

PROBLEM = {
    "type": "problem",
    "kind": "error",
    "message": "go is not defined",
    "file": "/app.js",
    "line": 3,
}


async def test_a_message_with_problems_reaches_the_model_with_them(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(Reply(content="Defined go()."))
    async with opened(project, user) as socket:
        await send(socket, message="Fix it", attachments=json.dumps([PROBLEM]))
        events = await events_until(socket, "done")
    started = events[0]
    assert started["type"] == "turn_started"
    assert started["attachments"][0]["message"] == "go is not defined"
    asked = scripted.requests[-1].json["messages"][-1]["content"]
    assert asked.startswith("Fix it\n\nContext from the live preview")
    assert "- Error at /app.js:3: go is not defined" in asked
    stored = await sync_to_async(Message.objects.get)(role=Message.Role.USER)
    assert stored.content == "Fix it"
    assert stored.metadata["attachments"][0]["file"] == "/app.js"


async def test_bad_attachments_are_refused_and_nothing_starts(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    async with opened(project, user) as socket:
        await send(socket, message="Fix it", attachments=[{"type": "rm -rf"}])
        refused = await next_event(socket)
    assert refused["type"] == "error"
    assert refused["code"] == "bad_frame"
    assert "attachments were not understood" in refused["message"]
    assert not await sync_to_async(Message.objects.exists)()
    assert scripted.requests == []
