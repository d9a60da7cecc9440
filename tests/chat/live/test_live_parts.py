"""The live path's parts as plain classes, without a socket: the
watchdog (one look per turn for the whole process), the heartbeat (one refresh
for every turn's lock), the relay between processes (Redis), and a tab's
following of a turn (numbered events shown once, a replay then live)."""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth.models import User
from django.utils import timezone

from chat import services
from chat.agent.events import ContentText, TurnStarted
from chat.live import layer as layer_module
from chat.live import messages
from chat.live.backoff import Backoff
from chat.live.following import TurnFollower
from chat.live.heartbeat import Heartbeat
from chat.live.inbox import Inbox
from chat.live.layer import LiveLayer
from chat.live.relay import Relay, Target, group_channel
from chat.live.watchdog import Watchdog, watchdog
from chat.llm.messages import Usage
from chat.models import Message
from chat.records.reply import AssistantRecord
from chat.records.turn import TurnRecord
from chat.render import streaming
from chat.render.fragments import TurnDrawing
from chat.selectors.running import TURN_LOCK, TurnState
from projects.locks import lock_acquire
from projects.models import Project, ProjectLock
from tests.chat.live.tabs import communicator, socket_path

PROJECT = uuid.uuid4()


class Tab:
    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []

    def feed(self, message: Any) -> None:
        self.got.append(dict(message))


class Looks:
    """The watchdog's database, as a script: each look's state per turn."""

    def __init__(self, states: list[TurnState], *, recorded: bool = True) -> None:
        self.states = states
        self.checks: list[str] = []
        self.abandoned: list[str] = []
        self.announced: list[str] = []
        self.recorded = recorded

    async def check(self, project_id: uuid.UUID, key: str) -> TurnState:
        self.checks.append(key)
        return self.states.pop(0)

    async def abandon(self, project_id: uuid.UUID, key: str) -> bool:
        self.abandoned.append(key)
        return self.recorded

    async def announce(self, project_id: uuid.UUID, key: str) -> None:
        self.announced.append(key)


def dog(looks: Looks) -> Watchdog:
    return Watchdog(
        interval=lambda: 3600.0,  # looks are made by hand here
        check=looks.check,
        abandon=looks.abandon,
        announce=looks.announce,
    )


async def test_the_watchdog_looks_once_per_turn_and_says_nothing_while_it_runs() -> None:
    looks = Looks(["running", "running"])
    watchdog = dog(looks)
    tabs = [Tab(), Tab(), Tab()]
    for tab in tabs[:2]:
        watchdog.watch(tab, project_id=PROJECT, key="t1")
    watchdog.watch(tabs[2], project_id=PROJECT, key="t2")

    await watchdog.look()

    assert sorted(looks.checks) == ["t1", "t2"]
    assert all(tab.got == [] for tab in tabs)
    assert watchdog.watching(tabs[0]) == "t1"


async def test_a_lock_gone_twice_without_done_tells_the_tabs_to_show_what_is_stored() -> None:
    looks = Looks(["ended", "ended"])
    watchdog = dog(looks)
    tab = Tab()
    watchdog.watch(tab, project_id=PROJECT, key="t1")

    await watchdog.look()  # released just before `done`, which may still be on its way
    assert tab.got == []
    await watchdog.look()

    assert tab.got == [{"type": "turn.unseen", "turn": "t1"}]
    assert watchdog.watching(tab) is None
    assert looks.abandoned == []


async def test_a_lapsed_lock_is_recorded_once_and_every_tab_and_process_told() -> None:
    looks = Looks(["lapsed"])
    watchdog = dog(looks)
    tabs = [Tab(), Tab()]
    for tab in tabs:
        watchdog.watch(tab, project_id=PROJECT, key="t1")

    await watchdog.look()

    assert looks.abandoned == ["t1"]
    assert looks.announced == ["t1"]
    assert [tab.got for tab in tabs] == [[{"type": "turn.lost", "turn": "t1"}]] * 2


async def test_a_lapsed_lock_another_process_recorded_is_not_announced_again() -> None:
    looks = Looks(["lapsed"], recorded=False)
    watchdog = dog(looks)
    tab = Tab()
    watchdog.watch(tab, project_id=PROJECT, key="t1")

    await watchdog.look()

    assert looks.announced == []
    assert tab.got == [{"type": "turn.lost", "turn": "t1"}]


async def test_a_tab_that_saw_the_end_is_no_longer_watched() -> None:
    looks = Looks([])
    watchdog = dog(looks)
    tab = Tab()
    watchdog.watch(tab, project_id=PROJECT, key="t1")
    watchdog.watch(tab, project_id=PROJECT, key=None)

    await watchdog.look()

    assert looks.checks == []


class Beating:
    def __init__(self, lock: ProjectLock) -> None:
        self.lock = lock
        self.lost = 0

    def lock_lost(self) -> None:
        self.lost += 1


@pytest.mark.django_db(transaction=True)
async def test_one_beat_refreshes_every_turns_lock_and_tells_the_one_that_lost_it(
    user: User,
) -> None:
    @sync_to_async
    def two_locks() -> list[ProjectLock]:
        made = []
        for name in ("Kept", "Taken"):
            project = Project.objects.create(owner=user, name=name)
            lock = lock_acquire(project=project, purpose="assistant", details={}, ttl=5)
            assert isinstance(lock, ProjectLock)
            made.append(lock)
        return made

    kept, taken = (Beating(lock) for lock in await two_locks())
    # Another turn took the second project over (its lock had lapsed).
    await sync_to_async(ProjectLock.objects.filter(holder=taken.lock.holder).update)(
        holder="someone-else"
    )
    beat = Heartbeat(ttl=lambda: 600.0)
    beat.add(kept)
    beat.add(taken)
    before = kept.lock.expires_at

    await beat.beat()

    assert (kept.lost, taken.lost) == (0, 1)
    assert kept.lock.expires_at > before
    stored = await sync_to_async(ProjectLock.objects.get)(holder=kept.lock.holder)
    assert stored.expires_at > timezone.now() + timedelta(seconds=300)
    beat.discard(kept)


_REDIS = os.environ.get("REDIS_URL", "")
needs_redis = pytest.mark.skipif(not _REDIS, reason="needs Redis (REDIS_URL): make test-services")


def batch(turn: str, *pieces: tuple[int, dict[str, Any]]) -> messages.TurnEvents:
    events: list[messages.NumberedEvent] = [{"seq": seq, "event": event} for seq, event in pieces]
    return messages.turn_events(turn=turn, conversation=1, events=events)


def text(value: str) -> dict[str, Any]:
    return {"type": "content", "text": value}


@needs_redis
async def test_another_process_hears_a_turn_and_a_late_tab_reads_its_log() -> None:
    heard_a: list[tuple[Target, Any]] = []
    heard_b: list[tuple[Target, Any]] = []
    a = Relay(_REDIS, deliver=lambda target, message: heard_a.append((target, message)))
    b = Relay(_REDIS, deliver=lambda target, message: heard_b.append((target, message)))
    group, turn = f"project.{uuid.uuid4().hex}", f"relay-test-{uuid.uuid4().hex}"
    channel = group_channel(group)
    try:
        assert await a.subscribe(channel)
        assert await b.subscribe(channel)
        b.publish(
            channel, ("group", group), batch(turn, (1, {"type": "turn_started", "message_id": 7}))
        )
        b.publish(channel, ("group", group), batch(turn, (2, text("Hel")), (3, text("lo"))))
        await b.drain()
        for _ in range(200):
            if len(heard_a) == 1:
                break
            await asyncio.sleep(0.01)
        # One flush, one message: the turn's events in order, its text merged.
        assert [message["events"] for _, message in heard_a] == [
            [
                {"seq": 1, "event": {"type": "turn_started", "message_id": 7}},
                {"seq": 3, "event": text("Hello")},
            ]
        ]
        assert heard_a[0][0] == ("group", group)
        assert heard_b == []  # its own publication is skipped: its tabs had it already

        b.publish(channel, ("group", group), batch(turn, (4, text(" there"))))
        await b.drain()
        assert await a.since(turn, 0) == [
            {"seq": 1, "event": {"type": "turn_started", "message_id": 7}},
            {"seq": 3, "event": text("Hello")},
            {"seq": 4, "event": text(" there")},
        ]
        assert await a.since(turn, 3) == [{"seq": 4, "event": text(" there")}]
        assert await a.since(f"never-{turn}", 0) == []
        assert 0 < await a._redis.ttl(f"builtit:turn:{turn}") <= 3600
    finally:
        await a.aclose()
        await b.aclose()


async def test_a_relay_that_cannot_reach_redis_says_so_and_loses_nothing_here(
    caplog: pytest.LogCaptureFixture,
) -> None:
    relay = Relay("redis://127.0.0.1:1/0", deliver=lambda target, message: None)
    channel = group_channel(f"project.{PROJECT.hex}")
    try:
        relay.publish(channel, ("group", "project.x"), batch("t1", (1, text("a"))))
        await relay.drain()
        assert await relay.since("t1", 0) is None
        assert not await relay.subscribe(channel)
    finally:
        await relay.aclose()
    assert "Could not relay messages through Redis" in caplog.text
    assert "Traceback" not in caplog.text


class Screen:
    def __init__(self) -> None:
        self.frames: list[str] = []
        self.redraws: list[float] = []  # the delays of the redraws asked for

    async def send_html(self, html: str) -> None:
        self.frames.append(html)

    async def send_text(self, text: str) -> None:
        self.frames.append(text)

    def signal(self, *, files: list[str] | None = None) -> str:
        return "<signal/>"

    def redraw_after(self, seconds: float) -> None:
        self.redraws.append(seconds)

    def notice_done(self) -> str:
        return ""


def follower(project: Project, screen: Screen, log: list[messages.NumberedEvent]) -> Any:
    asked: list[tuple[str, int]] = []

    async def replay(key: str, after: int) -> list[messages.NumberedEvent] | None:
        asked.append((key, after))
        return [item for item in log if item["seq"] > after]

    following = TurnFollower(
        project=project,
        conversation=None,
        as_json=True,
        screen=screen,
        replay=replay,
        watch=lambda key: None,
    )
    return following, asked


async def test_a_redraw_that_comes_before_its_time_asks_again(project: Project) -> None:
    # The redraw asked for when the first words waited came after a later drawing,
    # with words waiting since: not due yet, so it asks again rather than leave them.
    now = [0.0]
    drawing = TurnDrawing(TurnStarted(1, 7, "openai/gpt-5-mini", "Write"))
    drawing.start()
    drawing.show(ContentText("Fresh bread and cakes every morning. " * 4))
    drawing.live.clock = lambda: now[0]
    drawing.flush()
    screen = Screen()
    following, _ = follower(project, screen, [])
    following.drawing = drawing

    now[0] = 0.1
    drawing.show(ContentText("Our *rye*"))
    drawing.flush()
    assert drawing.waiting
    await following.redraw()  # asked for at 0.1: comes before its time
    assert screen.frames == []
    assert screen.redraws == [streaming.REDRAW_AFTER]

    now[0] = 0.1 + streaming.REDRAW_AFTER
    await following.redraw()
    assert "Our <em>rye</em>" in screen.frames[-1]
    assert not drawing.waiting
    assert screen.redraws == [streaming.REDRAW_AFTER]


async def a_running_turn(project: Project) -> None:
    """The lock of a turn "running-turn" on the project's new conversation."""
    conversation = await sync_to_async(services.conversation_create)(project=project)
    await turn_lock(project, conversation, "running-turn", lasts=60)


async def turn_lock(project: Project, conversation: Any, key: str, *, lasts: float) -> None:
    """The lock of the turn `key` begun at the conversation's first message,
    lapsing `lasts` seconds from now (lapsed already when it is below 0)."""
    await sync_to_async(ProjectLock.objects.create)(
        project=project,
        holder=key,
        purpose=TURN_LOCK,
        details={"conversation": conversation.pk, "first_sequence": 1, "channel": None},
        acquired_at=timezone.now(),
        expires_at=timezone.now() + timedelta(seconds=lasts),
    )


@pytest.mark.django_db(transaction=True)
async def test_a_tab_joining_mid_turn_reads_it_from_the_start_then_shows_each_event_once(
    project: Project,
) -> None:
    await a_running_turn(project)
    log: list[messages.NumberedEvent] = [
        {"seq": 1, "event": {"type": "turn_started", "message_id": 3}},
        {"seq": 3, "event": text("Hello")},
    ]
    screen = Screen()
    following, asked = follower(project, screen, log)

    await following.catch_up()
    # Live, what was already read, then what is new: each shown once.
    await following.follow(batch("running-turn", (2, text("He")), (3, text("llo"))))
    await following.follow(batch("running-turn", (4, text(" there"))))

    assert asked == [("running-turn", 0)]
    shown = [json.loads(frame) for frame in screen.frames]
    assert shown == [
        {"type": "turn_started", "message_id": 3},
        text("Hello"),
        text(" there"),
    ]


@pytest.mark.django_db(transaction=True)
async def test_a_tab_following_no_turn_follows_the_running_one_once_redis_is_heard_again(
    project: Project,
) -> None:
    """The turn began in another process while Redis was down here: its first
    events never came, and nothing else would show it before it ends."""
    await a_running_turn(project)
    log: list[messages.NumberedEvent] = [
        {"seq": 1, "event": {"type": "turn_started", "message_id": 3}},
        {"seq": 2, "event": text("Hello")},
    ]
    screen = Screen()
    following, asked = follower(project, screen, log)

    await following.resync()
    await following.follow(batch("running-turn", (3, text(" there"))))

    assert asked == [("running-turn", 0)]
    assert following.turn_key == "running-turn"
    shown = [json.loads(frame) for frame in screen.frames]
    assert shown == [{"type": "turn_started", "message_id": 3}, text("Hello"), text(" there")]


@pytest.mark.django_db(transaction=True)
async def test_a_tab_following_no_turn_shows_nothing_on_resync_when_none_runs(
    project: Project,
) -> None:
    screen = Screen()
    following, asked = follower(project, screen, [])

    await following.resync()

    assert (asked, screen.frames, following.turn_key) == ([], [], None)


@pytest.mark.django_db(transaction=True)
async def test_a_turn_seen_from_its_middle_is_not_drawn(project: Project) -> None:
    screen = Screen()
    following, _ = follower(project, screen, [])

    ended = await following.follow(batch("other-turn", (5, text("…and so"))))

    assert not ended
    assert screen.frames == []
    assert following.turn_key is None


@pytest.mark.django_db(transaction=True)
async def test_pieces_that_waited_across_the_replay_show_once(project: Project) -> None:
    """A tab joins mid-stream: pieces 2 and 3 reach its inbox while it reads the
    turn's log (which has them), piece 4 after. Joined before the tab drops what
    the replay showed, 2 to 4 would be one run numbered 4, shown again whole."""
    await a_running_turn(project)
    log: list[messages.NumberedEvent] = [
        {"seq": 1, "event": {"type": "turn_started", "message_id": 3}},
        {"seq": 3, "event": text("AB")},  # 2 and 3, merged by the replay
    ]
    inbox = Inbox()
    for seq, piece in ((2, "A"), (3, "B"), (4, "C")):
        inbox.feed(batch("running-turn", (seq, text(piece))))
    screen = Screen()
    following, _ = follower(project, screen, log)

    await following.catch_up()
    await following.follow(await inbox.receive())

    shown = [json.loads(frame) for frame in screen.frames]
    assert shown == [{"type": "turn_started", "message_id": 3}, text("AB"), text("C")]


@pytest.mark.django_db(transaction=True)
async def test_a_batch_lost_on_its_way_is_read_from_the_log(project: Project) -> None:
    log: list[messages.NumberedEvent] = [
        {"seq": 1, "event": {"type": "turn_started", "message_id": 3}},
        {"seq": 2, "event": text("Hello")},
        {"seq": 3, "event": text(" big")},
        {"seq": 4, "event": text(" world")},
    ]
    screen = Screen()
    following, asked = follower(project, screen, log)

    await following.follow(batch("t1", (1, log[0]["event"]), (2, text("Hello"))))
    lost_three: messages.TurnEvents = {**batch("t1", (4, text(" world"))), "first": 4}
    await following.follow(lost_three)

    assert asked == [("t1", 2)]
    texts = [json.loads(frame).get("text") for frame in screen.frames]
    assert "".join(piece for piece in texts if piece) == "Hello big world"


@needs_redis
async def test_a_publication_that_is_not_a_turns_events_is_ignored_and_the_rest_heard(
    caplog: pytest.LogCaptureFixture,
) -> None:
    heard: list[Any] = []
    relay = Relay(_REDIS, deliver=lambda target, message: heard.append(message))
    sender = Relay(_REDIS, deliver=lambda target, message: None)
    group = f"project.{uuid.uuid4().hex}"
    channel = group_channel(group)
    try:
        assert await relay.subscribe(channel)
        await sender._redis.publish(channel, b"hello from redis-cli")
        turn_events_alone = b'{"to": ["group", "g"], "message": {"type": "turn.events"}}'
        await sender._redis.publish(channel, b"x" * 32 + turn_events_alone)
        # Nested past what the JSON parser's recursion holds.
        await sender._redis.publish(channel, b"y" * 32 + b"[" * 100_000)
        sender.publish(channel, ("group", group), batch("t1", (1, text("still heard"))))
        await sender.drain()
        for _ in range(200):
            if heard:
                break
            await asyncio.sleep(0.01)
    finally:
        await relay.aclose()
        await sender.aclose()
    assert [message["events"][0]["event"]["text"] for message in heard] == ["still heard"]
    assert caplog.text.count("is not the layer's") == 3
    assert "Traceback" not in caplog.text


class FlakyRelay:
    """Redis down for the first tries of a group, then back."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.tries = 0

    async def subscribe(self, channel: str) -> bool:
        if not channel.startswith("builtit:group:"):
            return True  # the process's own channel
        self.tries += 1
        return self.tries > self.failures


async def test_a_project_redis_refused_is_subscribed_again_and_its_tabs_catch_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(layer_module, "RETRY_FIRST", 0.001)
    here = LiveLayer(redis_url="redis://127.0.0.1:1/0")
    relay = FlakyRelay(failures=3)
    here._remote().relay = relay  # type: ignore[union-attr]
    tab = await here.new_channel()
    group = f"project.{PROJECT.hex}"

    await here.group_add(group, tab)
    got = await asyncio.wait_for(here.receive(tab), 5)

    assert relay.tries == 4
    assert got == {"type": "turn.resync", "group": group}


async def test_a_persons_tabs_check_their_session_once_redis_hears_them_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What was published while the subscription was down never comes: a sign-out
    among it must not leave a tab open."""
    monkeypatch.setattr(layer_module, "RETRY_FIRST", 0.001)
    here = LiveLayer(redis_url="redis://127.0.0.1:1/0")
    here._remote().relay = FlakyRelay(failures=1)  # type: ignore[union-attr]
    tab = await here.new_channel()

    await here.group_add("user.7", tab)

    got = await asyncio.wait_for(here.receive(tab), 5)
    assert got == {"type": "session.check", "group": "user.7"}


class ScriptedRelay:
    """Redis's answers to the layer's group subscriptions, in the order asked."""

    def __init__(self, answers: list[bool]) -> None:
        self.answers = answers

    async def subscribe(self, channel: str) -> bool:
        if not channel.startswith("builtit:group:"):
            return True  # the process's own channel
        return self.answers.pop(0)


async def test_once_redis_takes_a_subscription_again_a_new_refusal_waits_the_shortest_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits: list[float] = []

    class Recorded(Backoff):
        def next(self) -> float:
            wait = super().next()
            waits.append(wait)
            return wait

    monkeypatch.setattr(layer_module, "Backoff", Recorded)
    monkeypatch.setattr(layer_module, "RETRY_FIRST", 0.001)
    here = LiveLayer(redis_url="redis://127.0.0.1:1/0")
    # Both joins refused; the first try refused; the second takes one group and
    # Redis fails again on the other; the third takes it.
    here._remote().relay = ScriptedRelay([False, False, False, True, False, True])  # type: ignore[union-attr]
    tab = await here.new_channel()
    await here.group_add("project.a", tab)
    await here.group_add("project.b", tab)

    got = [await asyncio.wait_for(here.receive(tab), 5) for _ in range(2)]

    assert sorted(message["group"] for message in got) == ["project.a", "project.b"]
    assert waits == [0.001, 0.002, 0.001]


def test_a_backoff_doubles_up_to_its_most_and_starts_again_once_reset() -> None:
    backoff = Backoff(first=1.0, most=5.0)
    assert [backoff.next() for _ in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    backoff.reset()
    assert backoff.next() == 1.0


@pytest.mark.django_db(transaction=True)
async def test_a_tab_whose_handler_failed_leaves_its_groups(
    project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Channels ends a consumer whose handler raised without a disconnect: its
    channel must not stay in the project's group, gathering every later turn's events."""

    async def broken(self: TurnFollower, state: object = None) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(TurnFollower, "catch_up", broken)
    socket = await communicator(socket_path(project), user=user)
    connected, _ = await socket.connect()
    assert connected  # accepted first; the catch-up after it failed
    with pytest.raises(RuntimeError, match="went away"):
        await socket.receive_output(timeout=5)

    assert get_channel_layer().members_here() == 0
    assert watchdog().watching_count() == 0


@pytest.mark.django_db(transaction=True)
async def test_a_tab_told_to_resync_closes_if_its_project_went_meanwhile(
    project: Project, user: User
) -> None:
    """After Redis came back, a `project.gone` published meanwhile never comes:
    the resync looks for the project itself."""
    socket = await communicator(socket_path(project), user=user)
    connected, _ = await socket.connect()
    assert connected
    await sync_to_async(Project.objects.filter(pk=project.pk).delete)()

    group = f"project.{project.pk.hex}"
    await get_channel_layer().group_send(group, {"type": "turn.resync", "group": group})

    closed = None
    for _ in range(50):
        output = await socket.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            closed = output
            break
    assert closed is not None
    assert closed["code"] == 4404


@pytest.mark.django_db(transaction=True)
async def test_a_script_shown_a_turns_end_from_its_record_is_not_told_it_again(
    project: Project,
) -> None:
    """The next turn's events came before this process's watchdog told the
    script of the turn it watched (`turn.lost`), and before that turn's own
    late frames: the end read from its record is the one `done` it gets."""
    conversation = await sync_to_async(services.conversation_create)(project=project)
    asked = await sync_to_async(services.message_user_create)(
        conversation=conversation, sequence=1, text="Build it", model="m"
    )
    await turn_lock(project, conversation, "dead", lasts=-1)
    screen = Screen()
    following, _ = follower(project, screen, [])
    await following.follow(batch("dead", (1, {"type": "turn_started", "message_id": asked.pk})))
    # The next turn, taking the lapsed lock over, records the dead one first.
    await sync_to_async(services.turn_abandon)(project_id=project.pk, key="dead")

    await following.follow(batch("next", (1, {"type": "turn_started", "message_id": 0})))
    await following.lost("dead")
    await following.ended_unseen("dead")
    await following.follow(batch("dead", (2, {"type": "done", "status": "stopped"})))

    shown = [json.loads(frame) for frame in screen.frames]
    assert [event["type"] for event in shown] == ["turn_started", "error", "done", "turn_started"]
    assert shown[2]["status"] == "interrupted"
    assert following.owed is not None, "it watches the new turn"
    assert following.owed.key == "next"


async def _a_turn_in(
    conversation: Any, *, first: int, text: str, answer: str, stored: bool = True
) -> Any:
    """The person's message at sequence `first` and, if `stored`, the turn's
    stored end (completed) after it: what a turn that finished leaves."""
    asked = await sync_to_async(services.message_user_create)(
        conversation=conversation, sequence=first, text=text, model="m"
    )
    if stored:
        record = TurnRecord.ended(
            status="completed",
            finish_reason="stop",
            iterations=1,
            usage=Usage(),
            files_changed=[],
            tool_timings=[],
            seconds=1.0,
            error=None,
        )
        await sync_to_async(services.message_create)(
            conversation=conversation,
            sequence=first + 1,
            role=Message.Role.ASSISTANT,
            content=answer,
            record=AssistantRecord(turn=record),
        )
    return asked


@pytest.mark.django_db(transaction=True)
async def test_a_page_shown_the_next_turn_whole_by_its_redraw_does_not_draw_it_again(
    project: Project,
) -> None:
    """A page owed a dead turn's end hears the next turn's first events only
    once that turn ended and was stored (a busy process, a turn that ends at
    once): the redraw from the record shows it whole, and its events add nothing."""
    conversation = await sync_to_async(services.conversation_create)(project=project)
    asked = await _a_turn_in(conversation, first=1, text="Build it", answer="", stored=False)
    await turn_lock(project, conversation, "dead", lasts=-1)
    screen = Screen()
    following = TurnFollower(
        project=project,
        conversation=conversation,
        as_json=False,
        screen=screen,
        replay=lambda key, after: asyncio.sleep(0, result=[]),
        watch=lambda key: None,
    )
    started = {"type": "turn_started", "conversation_id": conversation.pk, "model": "m"}
    await following.follow(
        batch("dead", (1, {**started, "message_id": asked.pk, "text": "Build it"}))
    )
    await sync_to_async(services.turn_abandon)(project_id=project.pk, key="dead")
    second = await _a_turn_in(conversation, first=3, text="Second request", answer="Answered.")

    before = len(screen.frames)
    await following.follow(
        batch("next", (1, {**started, "message_id": second.pk, "text": "Second request"}))
    )
    await following.follow(batch("next", (2, text("Answered."))))

    shown = "".join(screen.frames[before:])
    assert shown.count("Second request") == 1, "the next turn drawn once, by the redraw"
    assert "Answered." in shown
    assert following.owed is None


@pytest.mark.django_db(transaction=True)
async def test_a_script_told_of_a_lost_turn_that_stored_its_end_hears_that_end(
    project: Project,
) -> None:
    """The server stored the turn's end and died before it let its lock go: the
    turn is recorded as it ended, and a script watching it hears `completed`,
    as a page shows it, not that it was interrupted."""
    conversation = await sync_to_async(services.conversation_create)(project=project)
    asked = await _a_turn_in(conversation, first=1, text="Build it", answer="All done")
    await turn_lock(project, conversation, "finished", lasts=-1)
    screen = Screen()
    following, _ = follower(project, screen, [])
    await following.follow(batch("finished", (1, {"type": "turn_started", "message_id": asked.pk})))
    assert await sync_to_async(services.turn_abandon)(project_id=project.pk, key="finished")

    await following.lost("finished")  # what the connect's or the watchdog's announce does

    shown = [json.loads(frame) for frame in screen.frames]
    assert [event["type"] for event in shown] == ["turn_started", "done"]
    assert shown[-1]["status"] == "completed"
