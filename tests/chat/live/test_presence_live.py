"""Who else has the project open (issue 45, chat.live.presence): on the real
ASGI app, each tab of a project gets the list of its people when it opens and
whenever someone comes, goes or opens another file, through the project's
group; a viewer's file shows too; a removed person drops out at once; an older
list never replaces a newer one; and the list is bounded."""

from __future__ import annotations

import html
import json
import re

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import User
from django.db import OperationalError
from redis.asyncio import Redis

from chat.live import consumers, presence, turns
from chat.live.consumers import OPEN_BURST
from chat.render.panel import SHOWN_PEOPLE, presence_html
from projects.models import Membership, Project
from projects.signals import access_changed
from tests.chat.live.tabs import communicator, frames_until, opened, send, socket_path

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def person(name: str, *, full: str = "") -> User:
    user = User.objects.create_user(name, f"{name}@example.com", "a long enough secret")
    if full:
        user.first_name = full
        user.save()
    return user


@sync_to_async
def share(project: Project, user: User, role: str) -> None:
    Membership.objects.create(project=project, user=user, role=role, added_by=project.owner)


@sync_to_async
def remove(project: Project, user: User) -> None:
    Membership.objects.filter(project=project, user=user).delete()
    access_changed.send(Project, project=project, user_id=user.pk, role=None)


def shown(frame: str) -> tuple[list[str], dict[str, list[str]]]:
    """The top bar's words for each other person, and the files they have open."""
    box = frame[frame.index('id="presence"') :]
    labels = [html.unescape(label) for label in re.findall(r'data-label="([^"]*)"', box)]
    files = json.loads(html.unescape(re.search(r'data-files="([^"]*)"', box)[1]))  # type: ignore[index]
    return labels, files


async def presence_now(socket: WebsocketCommunicator) -> tuple[list[str], dict[str, list[str]]]:
    """The next list of people this tab is sent."""
    return shown((await frames_until(socket, 'id="presence"', timeout=5))[-1])


async def settled_list(
    socket: WebsocketCommunicator, labels: list[str]
) -> tuple[list[str], dict[str, list[str]]]:
    """Lists until the one showing `labels` (a join sends one, then the file)."""
    for _ in range(10):
        found = await presence_now(socket)
        if found[0] == labels:
            return found
    raise AssertionError(f"never shown: {labels}")


async def html_tab(project: Project, user: User) -> WebsocketCommunicator:
    socket = await communicator(socket_path(project, as_json=False), user=user)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def test_two_people_see_each_other_their_files_and_who_left(
    project: Project, user: User
) -> None:
    erin = await person("erin", full="Erin")
    await share(project, erin, "editor")
    mine = await html_tab(project, user)
    assert (await presence_now(mine))[0] == []  # alone: nobody else
    hers = await html_tab(project, erin)
    await settled_list(mine, ["Erin — editor"])
    await settled_list(hers, ["ada — owner"])

    await send(hers, action="open", path="/index.html")
    _, files = await settled_list(mine, ["Erin — editor, has index.html open"])
    assert files == {"/index.html": ["Erin"]}

    await hers.disconnect()
    await settled_list(mine, [])
    await mine.disconnect()


async def test_a_viewer_shows_their_file_and_a_bad_path_is_refused_in_words(
    project: Project, user: User
) -> None:
    vera = await person("vera")
    await share(project, vera, "viewer")
    mine = await html_tab(project, user)
    async with opened(project, vera, as_json=False) as hers:
        await send(hers, action="open", path="/about.html")
        await settled_list(mine, ["vera — viewer, has about.html open"])
        await send(hers, action="open", path="/../secret")
        refused = await frames_until(hers, "chat-notice", timeout=5)
        assert "project path" in refused[-1]
    await settled_list(mine, [])
    await mine.disconnect()


async def test_a_person_removed_from_the_project_drops_out_at_once(
    project: Project, user: User
) -> None:
    erin = await person("erin")
    await share(project, erin, "editor")
    mine = await html_tab(project, user)
    hers = await html_tab(project, erin)
    await settled_list(mine, ["erin — editor"])
    await remove(project, erin)
    await settled_list(mine, [])
    await hers.disconnect()
    await mine.disconnect()


async def test_a_connect_that_fails_after_joining_leaves_no_one_behind(
    project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    erin = await person("erin")
    await share(project, erin, "editor")

    async def unreadable(*args: object, **kwargs: object) -> None:
        raise OperationalError("database is locked")

    # Its last step, long after the socket joined the project's presence, fails.
    monkeypatch.setattr(consumers.ChatConsumer, "_send_opening", unreadable)
    hers = await communicator(socket_path(project, as_json=False), user=erin)
    await hers.connect()  # accepted first; the failure ends the consumer after
    assert "chat-log" in await hers.receive_from()  # what is stored
    with pytest.raises(OperationalError):
        await hers.receive_output(timeout=5)
    monkeypatch.undo()

    mine = await html_tab(project, user)
    assert (await presence_now(mine))[0] == []
    await mine.disconnect()


@pytest.mark.skipif(not settings.BUILTIT_LIVE_REDIS_URL, reason="needs Redis: make test-services")
async def test_entries_redis_lost_are_put_back_by_the_renewal(project: Project, user: User) -> None:
    erin = await person("erin")
    await share(project, erin, "editor")
    mine = await html_tab(project, user)
    hers = await html_tab(project, erin)
    await settled_list(mine, ["erin — editor"])
    # Redis loses everything (a restart; CI's keeps nothing on disk): the next
    # change lists only the one who made it.
    key = presence.key_of(project.pk)
    redis = Redis.from_url(settings.BUILTIT_LIVE_REDIS_URL)
    await redis.delete(key, f"{key}:about", f"{key}:version")
    await redis.aclose()
    await send(mine, action="open", path="/index.html")
    await settled_list(mine, [])

    registry = presence.registry()
    assert isinstance(registry, presence.RedisRegistry)
    await registry.renew()  # as every RENEW seconds

    await settled_list(mine, ["erin — editor"])
    await hers.disconnect()
    await mine.disconnect()


async def test_an_older_list_never_replaces_a_newer_one(project: Project, user: User) -> None:
    mine = await html_tab(project, user)
    await presence_now(mine)
    layer = get_channel_layer()
    group = turns.group_name(project.pk)
    stale = presence.here_of(user=-1, name="Stale", role="editor")
    await layer.group_send(group, presence.changed([stale], 0))
    fresh = presence.here_of(user=-2, name="Fresh", role="viewer")
    await layer.group_send(group, presence.changed([fresh], 2**62))
    # Both went the same way, in order: the first frame after is the newer list.
    assert (await presence_now(mine))[0] == ["Fresh — viewer"]
    await mine.disconnect()


async def test_open_frames_are_bounded_in_rate(project: Project, user: User) -> None:
    async with opened(project, user, as_json=False) as mine:
        for n in range(OPEN_BURST + 1):
            await send(mine, action="open", path=f"/page{n}.html")
        refused = await frames_until(mine, "too fast", timeout=5)
        assert "chat-notice" in refused[-1]


async def test_a_file_held_back_by_the_bound_shows_when_the_window_frees(
    project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Smaller bounds, so the window frees within the test: three frames come
    # well within the window on any machine.
    monkeypatch.setattr(consumers, "OPEN_BURST", 2)
    monkeypatch.setattr(consumers, "OPEN_WINDOW", 3.0)
    erin = await person("erin")
    await share(project, erin, "editor")
    mine = await html_tab(project, user)
    async with opened(project, erin, as_json=False) as hers:
        await settled_list(mine, ["erin — editor"])
        for name in ["a", "b", "c"]:
            await send(hers, action="open", path=f"/{name}.html")
        refused = await frames_until(hers, "too fast", timeout=5)
        assert "shows to them after a pause" in refused[-1]

        # Held back, then shown with no frame more from her.
        await settled_list(mine, ["erin — editor, has c.html open"])
    await mine.disconnect()


def test_each_person_once_with_their_latest_file_and_the_rest_counted() -> None:
    tabs = [
        presence.Here(1, "Erin", "editor", "/a.html", at=1.0),
        presence.Here(1, "Erin", "editor", "/b.html", at=2.0),  # her latest tab
        *(presence.Here(10 + n, f"p{n:02}", "viewer", "", at=1.0) for n in range(30)),
        presence.Here(99, "Me", "owner", "/a.html", at=1.0),
    ]
    people, total = presence.people_of(tabs)
    assert total == 32
    assert len(people) == presence.LISTED
    assert {"user": 1, "name": "Erin", "role": "editor", "path": "/b.html"} in people
    drawn = presence_html(people, total=total, me=99)
    assert drawn.count('class="presence-dot') == SHOWN_PEOPLE
    assert f"and {31 - SHOWN_PEOPLE} more" in drawn  # all but me, less those shown
    assert presence.here_of(user=1, name="x" * 500, role="editor").name == "x" * 59 + "…"
    assert presence.here_of(user=1, name="x", role="editor", path="/" + "a" * 400).path == ""
