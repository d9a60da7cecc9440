"""A tab once its process hears Redis again (`turn.resync`): what other
processes published meanwhile never came here."""

from __future__ import annotations

import os
import uuid
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth.models import User
from django.utils import timezone

from chat import services
from chat.live import messages, turns
from chat.live.relay import Relay, group_channel
from chat.selectors.running import TURN_LOCK
from projects.models import Project, ProjectLock
from tests.chat.live.tabs import events_until, next_event, opened, send

_REDIS = os.environ.get("REDIS_URL", "")
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not _REDIS, reason="needs Redis (REDIS_URL): make test-services"),
]


@sync_to_async
def a_turn_running_elsewhere(project: Project, key: str) -> None:
    conversation = services.conversation_create(project=project)
    ProjectLock.objects.create(
        project=project,
        holder=key,
        purpose=TURN_LOCK,
        details={"conversation": conversation.pk, "first_sequence": 1, "channel": None},
        acquired_at=timezone.now(),
        expires_at=timezone.now() + timedelta(seconds=60),
    )


async def log_elsewhere(key: str, events: list[messages.NumberedEvent]) -> None:
    """The turn's log, written by its own process (a relay of its own); its
    publication reached no one here."""
    relay = Relay(_REDIS, deliver=lambda target, message: None)
    nowhere = f"project.{uuid.uuid4().hex}"
    try:
        relay.publish(
            group_channel(nowhere),
            ("group", nowhere),
            messages.turn_events(turn=key, conversation=1, events=events),
        )
        await relay.drain()
    finally:
        await relay.aclose()


async def test_a_tab_following_no_turn_shows_the_one_begun_elsewhere_while_redis_was_down(
    project: Project, user: User
) -> None:
    key = f"elsewhere-{uuid.uuid4().hex}"
    async with opened(project, user) as tab:
        # Answered once the tab has connected (and caught up: no turn ran then).
        await send(tab, action="stop")
        assert (await next_event(tab))["code"] == "not_running"
        await a_turn_running_elsewhere(project, key)
        await log_elsewhere(
            key,
            [
                {"seq": 1, "event": {"type": "turn_started", "message_id": 9}},
                {"seq": 2, "event": {"type": "content", "text": "Hello"}},
            ],
        )
        group = turns.group_name(project.pk)

        await get_channel_layer().group_send(group, {"type": "turn.resync", "group": group})

        assert await events_until(tab, "content") == [
            {"type": "turn_started", "message_id": 9},
            {"type": "content", "text": "Hello"},
        ]
