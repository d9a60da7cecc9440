"""No frame of ours over the safe size: a long conversation
still opens, its earlier turns come on "Show earlier", a huge answer arrives in
frames that each fit, and a huge stored text is cut with a link to all of it.
Real ASGI app and database, WebsocketCommunicator, real HTTP to the fake."""

from __future__ import annotations

import asyncio
import json
import re
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from chat import services
from chat.live.consumers import ChatConsumer
from chat.live.framing import TOO_BIG_NOTICE, html_frames, json_frames
from chat.models import Conversation, Message
from chat.records.reply import AssistantRecord, ReplyRecord
from chat.records.tool_result import ToolRecord
from common.jsontypes import JSONObject
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply
from projects.models import Project
from tests.chat.live.tabs import frames_until, opened, send

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 256 * 1024
TURNS = 100
CALLS = 6
FILE = ("<p>Fresh bread and pastries, baked every morning.</p>\n" * 140)[:7_000]
BIG = 5 * 1024 * 1024


def a_long_conversation(project: Project) -> Conversation:
    """TURNS stored turns, each of CALLS update_file calls of 7 KB and an answer:
    the shape that, sent whole, passed daphne's 1 MiB frame by turn 24."""
    conversation = services.conversation_create(project=project, title="Long")
    sequence = 0

    def add(role: Message.Role, **fields: Any) -> Message:
        nonlocal sequence
        sequence += 1
        return services.message_create(
            conversation=conversation, sequence=sequence, role=role, **fields
        )

    for turn in range(1, TURNS + 1):
        sequence += 1
        services.message_user_create(
            conversation=conversation, sequence=sequence, text=f"Request {turn}", model="m"
        )
        calls = [
            {
                "id": f"call-{turn}-{n}",
                "type": "function",
                "function": {
                    "name": "update_file",
                    "arguments": json.dumps({"path": f"/page{n}.html", "content": FILE}),
                },
            }
            for n in range(CALLS)
        ]
        add(
            Message.Role.ASSISTANT, tool_calls=calls, record=AssistantRecord(ReplyRecord(model="m"))
        )
        for call in calls:
            result = {"success": True, "path": "/x.html", "content": FILE}
            add(
                Message.Role.TOOL,
                content=json.dumps(result),
                tool_call_id=str(call["id"]),
                record=ToolRecord.from_stored({"ok": True, "summary": "Rewrote the page"}),
            )
        outcome = {"status": "completed", "finish_reason": "stop", "usage": {"total_tokens": 9}}
        add(
            Message.Role.ASSISTANT,
            content=f"Answer {turn}",
            record=AssistantRecord.from_stored({"model": "m", "turn": outcome}),
            cost=Decimal("0.001"),
        )
    return conversation


def turn_numbers(html: str) -> list[int]:
    return [int(n) for n in re.findall(r"Request (\d+)</div>", html)]


def earlier_url(html: str) -> str | None:
    found = re.search(r'hx-get="([^"]+)"', html)
    return found.group(1).replace("&amp;", "&") if found else None


async def test_a_long_conversation_opens_in_frames_under_the_limit_and_shows_earlier_turns(
    project: Project, user: User
) -> None:
    conversation = await sync_to_async(a_long_conversation)(project)
    query = f"conversation={conversation.pk}"
    async with opened(project, user, as_json=False, query=query) as socket:
        frames = await frames_until(socket, "chat-signal")
        assert await socket.receive_nothing()
    assert all(len(frame.encode()) <= LIMIT for frame in frames)
    first = "".join(frames)
    shown = turn_numbers(first)
    assert shown, "the recent turns are shown"
    assert shown == list(range(shown[0], TURNS + 1)), "the newest turns, in order"
    assert shown[0] > 1, "not all of them: the rest are a click away"

    client = Client()
    await sync_to_async(client.force_login)(user)
    url = earlier_url(first)
    seen = shown
    while url is not None:
        response = await sync_to_async(client.get)(url)
        assert response.status_code == 200
        page = response.content.decode()
        seen = turn_numbers(page) + seen
        url = earlier_url(page)
    assert seen == list(range(1, TURNS + 1)), "every turn once, in order"


async def test_the_workspace_page_shows_the_recent_turns_of_a_long_conversation(
    project: Project, user: User, settings: SettingsWrapper
) -> None:
    conversation = await sync_to_async(a_long_conversation)(project)
    client = Client()
    await sync_to_async(client.force_login)(user)
    response = await sync_to_async(client.get)(
        f"/projects/{project.pk}/?conversation={conversation.pk}"
    )
    shown = turn_numbers(response.content.decode())
    assert shown[-1] == TURNS
    assert shown[0] > 1
    assert "Show earlier messages" in response.content.decode()


async def test_earlier_turns_are_only_for_the_owner(
    project: Project, user: User, other_user: User
) -> None:
    conversation = await sync_to_async(a_long_conversation)(project)
    client = Client()
    await sync_to_async(client.force_login)(other_user)
    url = f"/projects/{project.pk}/conversations/{conversation.pk}/earlier/?before=50"
    response = await sync_to_async(client.get)(url)
    assert response.status_code == 404


@pytest.fixture
def free(settings: SettingsWrapper) -> None:
    """Caps off: a 5 MiB answer costs more than a turn may spend (chat.agent.meter)."""
    settings.BUILTIT_TURN_COST_LIMIT = Decimal(0)
    settings.BUILTIT_PROJECT_COST_LIMIT = Decimal(0)
    settings.BUILTIT_USER_DAILY_COST_LIMIT = Decimal(0)
    settings.BUILTIT_USER_MONTHLY_COST_LIMIT = Decimal(0)


@pytest.mark.usefixtures("free")
async def test_a_5_mib_answer_arrives_whole_in_json_frames_under_the_limit(
    project: Project, user: User, scripted: FakeOpenRouter
) -> None:
    unit = "All the bread. "
    text = (unit * (BIG // len(unit) + 1))[:BIG]
    scripted.script(Reply(content=text, content_pieces=4))
    async with opened(project, user) as socket:
        await send(socket, message="Write a very long answer")
        frames: list[str] = []

        async def collect() -> None:
            while not frames or json.loads(frames[-1])["type"] != "done":
                frames.append(await socket.receive_from(timeout=30))

        await asyncio.wait_for(collect(), 60)
    assert all(len(frame.encode()) <= LIMIT for frame in frames)
    events = [json.loads(frame) for frame in frames]
    assert "".join(e["text"] for e in events if e["type"] == "content") == text
    assert events[-1]["status"] == "completed"


@pytest.mark.usefixtures("free")
async def test_a_5_mib_answer_streams_in_html_frames_under_the_limit_cut_for_the_page(
    project: Project, user: User, scripted: FakeOpenRouter
) -> None:
    unit = 'Rye & <spelt> "loaves" '
    text = (unit * (BIG // len(unit) + 1))[:BIG]
    scripted.script(Reply(content=text, content_pieces=4))
    async with opened(project, user, as_json=False) as socket:
        await send(socket, message="Write a very long answer")
        frames = await frames_until(socket, "turn-footer completed", timeout=60)
    assert all(len(frame.encode()) <= LIMIT for frame in frames)
    joined = "".join(frames)
    assert "Showing the first 32000 of 5242880 characters" in joined


async def test_a_huge_stored_answer_is_cut_with_a_link_to_all_of_it(
    project: Project, user: User, other_user: User
) -> None:
    text = "Sourdough. " * (BIG // 11)

    def store() -> Conversation:
        conversation = services.conversation_create(project=project, title="Big")
        services.message_user_create(conversation=conversation, sequence=1, text="Hi", model="m")
        services.message_create(
            conversation=conversation,
            sequence=2,
            role=Message.Role.ASSISTANT,
            content=text,
            record=AssistantRecord.from_stored(
                {"model": "m", "turn": {"status": "completed", "finish_reason": "stop"}}
            ),
        )
        return conversation

    conversation = await sync_to_async(store)()
    async with opened(project, user, as_json=False, query=f"conversation={conversation.pk}") as s:
        frames = await frames_until(s, "chat-signal")
    assert all(len(frame.encode()) <= LIMIT for frame in frames)
    page = "".join(frames)
    assert "Open the full text" in page
    link = re.search(r'href="(/messages/\d+/content\.txt)"', page)
    assert link is not None

    owner, stranger = Client(), Client()
    await sync_to_async(owner.force_login)(user)
    await sync_to_async(stranger.force_login)(other_user)
    response = await sync_to_async(owner.get)(link.group(1))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == text
    assert (await sync_to_async(stranger.get)(link.group(1))).status_code == 404


# --- the framing rules, without sockets ------------------------------------------------


def test_html_is_spread_over_frames_at_swap_boundaries() -> None:
    swaps = [f'<div hx-swap-oob="beforeend:#b{n}">{"x" * 1000}</div>' for n in range(300)]
    frames = html_frames("".join(swaps), 16 * 1024)
    assert len(frames) > 1
    assert all(len(frame.encode()) <= 16 * 1024 for frame in frames)
    assert "".join(frames) == "".join(swaps)


def test_a_single_swap_over_the_limit_becomes_a_notice(db: None) -> None:
    frames = html_frames('<div hx-swap-oob="beforeend:#b">' + "x" * 20_000 + "</div>", 8 * 1024)
    assert frames
    assert TOO_BIG_NOTICE in frames[0]
    assert all(len(frame.encode()) <= 8 * 1024 for frame in frames)


def test_json_text_is_split_and_other_events_are_trimmed_and_marked() -> None:
    text = "é\u0001" * 100_000
    pieces = json_frames({"type": "reasoning", "text": text}, 64 * 1024)
    assert all(len(piece.encode()) <= 64 * 1024 for piece in pieces)
    assert "".join(json.loads(piece)["text"] for piece in pieces) == text
    result: JSONObject = {
        "type": "tool_result",
        "id": "c1",
        "name": "read_file",
        "ok": True,
        "summary": "Read",
        "result": {"content": "x" * 500_000},
        "duration_ms": 1.0,
    }
    (frame,) = json_frames(result, 64 * 1024)
    trimmed = json.loads(frame)
    assert trimmed["truncated"] is True
    assert trimmed["id"] == "c1"
    assert len(frame.encode()) <= 64 * 1024


async def test_a_frame_for_a_socket_daphne_is_closing_is_dropped_without_a_traceback() -> None:
    consumer = ChatConsumer()

    async def closing(message: dict[str, object]) -> None:
        raise Disconnected("Attempt to send on a closed protocol")

    consumer.base_send = closing
    await consumer.send(text_data="late")  # no exception: the tab is gone
