"""Plan turns over the socket: the composer's switch (a checkbox's
"on") and a script's `"plan": true` start a turn whose model may only look; its
answer is drawn as a plan with "Build this plan", live and after a reload, and
that button's form starts a normal turn whose message carries the plan."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from chat.models import Message
from chat.tools import file_tools
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply
from projects.models import Project
from tests.chat.live.tabs import events_until, frames_until, next_event, opened, send

pytestmark = pytest.mark.django_db(transaction=True)

PLAN = "1. Create `contact.html` with a form.\n2. Link it from `index.html` & the footer."
LOOKING = {"list_project_files", "read_file", "search_files", "check_site"}
BUILD_FORM = re.compile(
    r'<form ws-send class="plan-build"><input type="hidden" name="message" value="([^"]*)">'
)


def offered(fake: FakeOpenRouter, number: int) -> set[str]:
    tools: list[dict[str, Any]] = fake.requests[number].json.get("tools") or []
    return {tool["function"]["name"] for tool in tools}


@sync_to_async
def user_messages() -> list[Message]:
    return list(Message.objects.filter(role=Message.Role.USER).order_by("sequence"))


def build_messages(page: str) -> list[str]:
    """What each "Build this plan" button on `page` sends, as the browser reads it."""
    return [html.unescape(value) for value in BUILD_FORM.findall(page)]


async def test_a_scripts_plan_turn_is_offered_only_the_tools_that_look(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(Reply(content=PLAN))
    async with opened(project, user) as socket:
        await send(socket, message="Add a contact page", plan=True)
        events = await events_until(socket, "done")

    assert events[0]["type"] == "turn_started"
    assert events[0]["plan"] is True
    assert events[-1]["status"] == "completed"
    assert offered(scripted, 0) == LOOKING
    assert [message.metadata.get("plan") for message in await user_messages()] == [True]


async def test_a_plan_flag_that_is_not_a_yes_or_no_is_refused(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    async with opened(project, user) as socket:
        await send(socket, message="Add a contact page", plan="maybe")
        refused = await next_event(socket)

    assert (refused["type"], refused["code"]) == ("error", "bad_frame")
    assert '"plan" must be true or false' in refused["message"]
    assert scripted.requests == []


async def test_build_this_plan_starts_a_turn_whose_message_carries_the_plan(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(Reply(content=PLAN), Reply(content="Built it."))
    async with opened(project, user, as_json=False) as socket:
        await socket.receive_from()  # the stored panel
        # As htmx's ws extension sends the composer with its switch on.
        await send(socket, message="Add a contact page", plan="on", HEADERS={"HX-Request": "1"})
        live = "".join(await frames_until(socket, "turn-footer completed"))
        assert build_messages(live) == [f"Build this plan:\n{PLAN}"]
        assert "Plan only: the assistant looks, and changes nothing" in live

        # The button's form, as the browser sends it.
        await send(socket, message=build_messages(live)[0], HEADERS={"HX-Request": "1"})
        built = "".join(await frames_until(socket, "turn-footer completed"))

    first, second = await user_messages()
    assert (first.content, first.metadata.get("plan")) == ("Add a contact page", True)
    assert second.content == f"Build this plan:\n{PLAN}"
    assert "plan" not in second.metadata, "building is a normal turn"
    assert offered(scripted, 0) == LOOKING
    assert offered(scripted, 1) == set(file_tools().names())
    assert "Built it." in built
    assert build_messages(built) == [], "the build's answer is no plan"


async def test_a_reloaded_page_shows_the_plan_with_its_button(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(Reply(content=PLAN))
    async with opened(project, user) as socket:
        await send(socket, message="Add a contact page", plan=True)
        await events_until(socket, "done")

    async with opened(project, user, as_json=False) as socket:
        panel = await socket.receive_from()

    assert build_messages(panel) == [f"Build this plan:\n{PLAN}"]
    assert 'class="plan-card"' in panel
    assert "Plan only: the assistant looks, and changes nothing" in panel
