"""The chat socket, `ws/projects/<uuid>/chat/` (DESIGN §7). Thin: it checks who
is asking, parses frames, starts or stops turns (chat.live.turns) and shows their
events, as HTML fragments for htmx or, with `?format=json`, as one JSON event
per frame (the names and fields of `manage.py chat --json`).

The project's owner and the people it is shared with get in (a session from
this site's pages, or a personal access token: chat.live.socket_auth, in front
of this consumer); anyone else is closed before a byte of data. What each may
do is the one rule's (projects.access): a viewer follows the turns, an editor
and the owner also send messages and stop turns; a refusal is a notice in
words and the socket stays open. A person removed from the project has their
sockets on it closed with words, and a changed role shows at once
(`access_changed`); each turn, each Stop and each reading of the files reads
the person's role again first.
Signing out, a password change or a revoked token closes the socket, and a
turn starts only on a session still valid. A connecting tab first gets what is
stored, then the running turn's events so far, then follows it live
(chat.live.following). Everything it receives, a turn's frames and every
other message, comes through the channel layer (chat.live.layer), read by
Channels' own consumer loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
import weakref
from collections import deque
from collections.abc import Collection
from typing import Any, Literal
from urllib.parse import parse_qs

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import User

from chat import openings, services
from chat.live import messages, orders, presence, turns
from chat.live.closing import REASONS, Close
from chat.live.following import TurnFollower
from chat.live.frames import Frame, FrameRefused, parse_frame
from chat.live.framing import html_frames
from chat.live.layer import Addressed
from chat.live.snapshot import Snapshot, snapshot
from chat.live.socket_auth import (
    session_follow,
    session_valid,
    user_group,
)
from chat.live.watchdog import Watchdog, announce_lost, watchdog
from chat.models import Conversation
from chat.render import panel
from common import threads
from common.users import person_name
from projects.access import ACTIONS, Action, Role, allows, project_access, refusal
from projects.lifecycle import project_remember_model
from projects.models import Project
from projects.selectors import FilesMovedSince, files_moved_since, open_file_news
from projects.web.workspace import tree_html

logger = logging.getLogger(__name__)

CLOSE_WAIT = 2.0  # seconds a restart waits for the tabs to answer its close
# "open" frames (the file in the tab's editor) a socket may send within
# OPEN_WINDOW seconds: the page sends one per change of file, after a pause.
# Past that, the latest is held back and shown once the window frees.
OPEN_BURST, OPEN_WINDOW = 10, 10.0

_OPEN: weakref.WeakSet[ChatConsumer] = weakref.WeakSet()  # this process's chat sockets


async def settle(*, timeout: float) -> None:
    """Wait (up to `timeout` seconds) for the tabs kept open through a shutdown to
    show their turn's end and close themselves (`_follow`)."""
    await _gone(list(_OPEN), timeout=timeout)


async def close_all(*, keep: Collection[uuid.UUID] = ()) -> None:
    """Close this process's chat sockets for a restart, but those of the projects
    in `keep`, and wait (a little) for each tab to answer: a close frame still in
    the server's buffer when it exits never reaches the tab, which then waits for
    a timeout instead of reconnecting at once."""
    closing = [consumer for consumer in list(_OPEN) if consumer.project.pk not in keep]
    for consumer in closing:
        _OPEN.discard(consumer)
        try:
            await consumer.close(code=Close.SERVICE_RESTART)
        except Exception:  # one broken socket must not hold up the others
            logger.warning("Could not close a chat socket for the restart", exc_info=True)
    await _gone(closing, timeout=CLOSE_WAIT)


async def _gone(consumers: list[ChatConsumer], *, timeout: float) -> None:
    """Until each of `consumers` has seen its socket close, or `timeout` seconds."""
    waits = [asyncio.ensure_future(consumer.closed()) for consumer in consumers]
    if waits:
        await asyncio.wait(waits, timeout=timeout)
        for waiting in waits:
            waiting.cancel()


def _sent_to_self(sending: asyncio.Future[None]) -> None:
    # A tab too far behind to take one more message (ChannelFull) draws its
    # answer with the next piece instead, and shows a held-back file with its
    # next "open" frame.
    if not sending.cancelled() and sending.exception() is not None:
        logger.info("A tab's message to itself was not queued: %s", sending.exception())


class ChatConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    project: Project
    user: User
    _gone: asyncio.Event | None = None  # made only for someone waiting (a restart)
    _is_closed = False
    joined = False  # in the project's group
    follower: TurnFollower
    _noticed = False  # whether this socket's last notice (a refusal) may still show
    _redraw: asyncio.TimerHandle | None = None  # the follower's redraw, when one is due
    _redrawing: asyncio.Task[None] | None = None
    _watchdog: Watchdog
    _seat: presence.Seat | None = None  # this socket's entry in the project's presence
    _presence_seen = 0  # the version of the latest list of people shown
    _open_path = ""  # the file the tab said its editor has open
    _open_held: str | None = None  # the latest file held back by the bound on "open" frames
    _open_due: asyncio.TimerHandle | None = None  # its showing, when one is due
    _open_sending: asyncio.Future[None] | None = None
    _presence_drawn = ""  # the list of people as last sent to the tab
    _presence_pending = ""  # the first list, for the catch-up's frame
    _drawn_role: str = ""  # the role the tab's page was drawn for (its URL says)

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close()
            return
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.as_json = query.get("format", [""])[0] == "json"
        project_id = self.scope["url_route"]["kwargs"]["project_id"]
        opened = await threads.run(
            orders.socket_project, user, project_id, query.get("conversation", [""])[0]
        )
        if opened is None:
            await self.close()
            return
        if not turns.accepting():  # shutting down: try again elsewhere
            await self.accept()
            await self.close(code=Close.SERVICE_RESTART)
            return
        self.user = user
        self.project, self.role, conversation = opened.project, opened.role, opened.conversation
        # The role the page was drawn for: a change between its drawing and this
        # connect reached no socket of theirs, so the first frame shows it.
        drawn = query.get("role", [""])[0]
        self._drawn_role = drawn if drawn in ACTIONS else self.role
        self.group = turns.group_name(self.project.pk)
        self.addressed = Addressed(self.channel_layer, self.channel_name)
        self._watchdog = watchdog()
        self.signals = 0
        self._open_sent: deque[float] = deque()
        self.follower = TurnFollower(
            project=self.project,
            conversation=conversation,
            as_json=self.as_json,
            screen=self,
            replay=turns.replay,
            watch=self._watch,
        )
        await self.accept()  # first: joining a group waits for Redis, up to its own bound
        _OPEN.add(self)
        try:
            await self._join(conversation)
        except BaseException:
            # Channels ends a consumer whose handler raised without a disconnect:
            # out of the groups and the project's presence here, or the seat
            # stays, renewed for as long as this process lives.
            await self.disconnect(1011)  # 1011: the server met an error
            raise

    async def _join(self, conversation: Conversation | None) -> None:
        """The accepted socket joins the person's and the project's groups and
        presence, then hears what is stored and the running turn so far."""
        await self.channel_layer.group_add(user_group(self.user.pk), self.channel_name)
        # Joined before anything is read: what a turn sends from here on reaches
        # this channel, and the catch-up below reads what it sent before.
        self.joined = True
        await self.channel_layer.group_add(self.group, self.channel_name)
        opened = await threads.run(_opened, self.project, self.user, conversation)
        if opened is None:
            await self.project_gone({"type": "project.gone"})
            return
        if opened == "removed":
            await self._closing(Close.REMOVED, code="removed")
            return
        role, state, opening, recorded = opened
        if recorded is not None:  # the tabs that watched it redraw it; scripts hear `done`
            await announce_lost(self.project.pk, recorded)
        if role != self.role or role != self._drawn_role:
            await self._role_changed(role)  # the tab shows what the new role allows
        self._seat, entries, version = await presence.registry().join(self.project.pk, self._here())
        here = self._presence_shown(presence.changed(entries, version))
        # The tab's own list rides in its catch-up's frame (`signal`); the
        # others hear of it after, so a catch-up that fails sends nothing.
        self._presence_pending = "" if here is None else here
        await self.follower.catch_up(state)
        await self.channel_layer.group_send(self.group, presence.changed(entries, version))
        await self._send_opening(opening)

    async def _leave(self) -> None:
        """Out of the project's group and the watchdog, once."""
        if not self.joined:
            return
        self.joined = False
        watchdog().watch(self.addressed, project_id=self.project.pk, key=None)
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def closed(self) -> None:
        """Until the socket has closed."""
        if self._is_closed:
            return
        if self._gone is None:
            self._gone = asyncio.Event()
        await self._gone.wait()

    @property
    def conversation(self) -> Conversation | None:
        return self.follower.conversation

    async def dispatch(self, message: dict[str, Any]) -> None:
        """As Channels' own, without closing old database connections first: that
        hops through asgiref's one shared thread for every message of every tab,
        which serialised the whole fan-out (bench/ws_fanout.py, 50 tabs: p99 227 to 241
        ms with it, 61 to 64 without). This consumer's database work runs in
        common.threads, which closes stale connections itself. The one override of
        Channels left (tests/chat/live/test_channels_upstream.py)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        # The turn goes on: it belongs to the project, not to this tab.
        _OPEN.discard(self)
        self._is_closed = True
        if self._redraw is not None:
            self._redraw.cancel()
        if self._open_due is not None:
            self._open_due.cancel()
        if self._gone is not None:
            self._gone.set()
        await self._leave()
        await self._absent()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(user_group(self.user.pk), self.channel_name)

    # --- what the person sends ----------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame = parse_frame(text_data)
        if isinstance(frame, FrameRefused):
            await self._notice(frame.message, code="bad_frame")
        elif frame.action == "files":  # reading, as a viewer may
            if await self._may("view"):
                await self._files(frame)
        elif frame.action == "open":
            if await self._may("view"):
                await self._opened_file(frame.open_path)
        elif frame.action == "stop":
            if await self._may("chat") and not await turns.stop(self.project.pk):
                await self._notice("Nothing is running right now.", code="not_running")
        elif not allows(self.role, "chat"):
            # A message or a plan turn: the notice says why; the message stays
            # in the box (it is emptied only once a turn took it).
            await self._notice(refusal("chat", self.role), code="role_refused")
        else:
            await self._start(frame)

    # --- who else is here (chat.live.presence) ------------------------------------------

    def _here(self) -> presence.Here:
        return presence.here_of(
            user=self.user.pk, name=person_name(self.user), role=self.role, path=self._open_path
        )

    async def _present(self) -> str:
        """This socket's entry changed (its file, its role): the list after to
        every tab of the project; this one's drawing of it, if it changed, is
        returned (the group's copy is not drawn again)."""
        if self._seat is None:
            return ""
        found = await presence.registry().change(self._seat, self._here())
        if found is None:
            return ""
        message = presence.changed(*found)
        await self.channel_layer.group_send(self.group, message)
        return self._presence_shown(message) or ""

    def _presence_shown(self, message: messages.PresenceChanged) -> str | None:
        """The list as this tab draws it, or None: older than the one it has, or
        drawn the same (another tab of the same person came)."""
        if message["version"] <= self._presence_seen and self._presence_seen:
            return None
        self._presence_seen = message["version"]
        drawn = panel.presence_html(message["people"], total=message["total"], me=self.user.pk)
        if drawn == self._presence_drawn:
            return None
        self._presence_drawn = drawn
        return drawn

    async def _absent(self) -> None:
        """Out of the project's presence, once (a tab closed, a person removed)."""
        seat, self._seat = self._seat, None
        if seat is None:
            return
        found = await presence.registry().change(seat, None)
        if found is not None:
            await self.channel_layer.group_send(self.group, presence.changed(*found))

    async def _opened_file(self, path: str) -> None:
        """The tab's editor shows `path` now ("" none): its people see it. Past
        OPEN_BURST in OPEN_WINDOW seconds the latest is held back and shown
        when the window frees (one timer per socket at most), so the others'
        view comes right without the person doing anything."""
        if self._seat is None:
            return
        if self._open_due is not None:  # one is held back already: the latest wins
            self._open_held = path
            return
        if path == self._open_path:
            return
        now = time.monotonic()
        sent = self._open_sent
        while sent and sent[0] <= now - OPEN_WINDOW:
            sent.popleft()
        if len(sent) >= OPEN_BURST:
            self._open_held = path
            wait = max(sent[0] + OPEN_WINDOW - now, 0.0)
            self._open_due = asyncio.get_running_loop().call_later(wait, self._open_free)
            await self._notice(
                "The file you have open is changing too fast to show to the others here; "
                "it shows to them after a pause.",
                code="too_fast",
            )
            return
        sent.append(now)
        self._open_path = path
        shown = await self._present()
        if shown and not self.as_json:
            await self.send_html(shown)

    def _open_free(self) -> None:
        # Through the tab's own channel, as the redraw: the held file is shown
        # between two of its messages, never inside one.
        self._open_due = None
        if self._is_closed:
            return
        due: messages.OpenDue = {"type": "open.due"}
        self._open_sending = asyncio.ensure_future(self.channel_layer.send(self.channel_name, due))
        self._open_sending.add_done_callback(_sent_to_self)

    async def open_due(self, message: messages.OpenDue) -> None:
        path, self._open_held = self._open_held, None
        if path is not None and not self._is_closed:
            await self._opened_file(path)

    async def presence_changed(self, message: messages.PresenceChanged) -> None:
        """Who has the project open now: shown unless this tab has a newer list
        (a script's socket counts as here, and is sent no list: its events are
        those of `manage.py chat --json`)."""
        if self._is_closed or self.as_json:
            return
        drawn = self._presence_shown(message)
        if drawn:
            await self.send_html(drawn)

    async def _files(self, frame: Frame) -> None:
        """The files as they are now, for a tab whose socket was down: what
        changed meanwhile came to no one there. The tree, and news of the file
        open in its editor if it changed (the page reloads its preview itself)."""
        if self.as_json:
            return
        if frame.since is not None:
            await self._files_since(frame.since)
            return
        found = await threads.run(_files_now, self.project, frame.open_path, frame.open_version)
        if found is None:
            await self.project_gone({"type": "project.gone"})
            return
        tree, files, by = found
        await self.send_html(tree + (self._signal(files=files, by=by) if files else ""))

    async def _files_since(self, since: int) -> None:
        """A tab's first socket: files changed after its page was drawn (from
        revision `since`) and before this socket joined the project's group
        reached no message here. The tree, and a signal naming them, as a
        change made in another tab is shown."""
        found = await threads.run(_files_moved_since, self.project, since, self.user)
        if found is None:
            return
        tree, moved, who = found
        await self.send_html(tree + self._signal(files=moved.paths, by=moved.by, who=who))

    async def _send_opening(self, text: str) -> None:
        """The request this project was started with on the dashboard, taken by
        this socket (`_opened`), sent; if it cannot go, it goes into the message
        box, to send once the notice's reason is dealt with."""
        if text and not await self._start(Frame("message", text)) and not self.as_json:
            await self.send(text_data=self._signal(draft=text))

    async def _start(self, frame: Frame) -> bool:
        """Whether the turn `frame` asks for started."""
        if not await threads.run(session_valid, self.scope):
            await self._session_ended()
            return False
        if not await self._may("chat"):
            return False
        order = await orders.order_from(
            frame, project=self.project, user=self.user, conversation=self.conversation
        )
        if isinstance(order, orders.OrderRefused):
            await self._notice(order.message, code=order.code)
            return False
        self.follower.conversation = order.conversation
        started = await turns.start(order)
        if isinstance(started, turns.TurnRefused):
            await self._notice(started.message, code="busy")
            return False
        if order.model is not None:
            # Remembered only once a turn really started with it: a message
            # refused as busy changes nothing.
            await threads.run(project_remember_model, project=self.project, model=order.model)
        if not self.as_json:
            self._noticed = False
            await self.send(text_data=panel.notice_html("") + self._signal(sent=True))
        return True

    async def _may(self, action: Action) -> bool:
        """Whether the person may do `action` (start a turn, stop one, read the
        files), by their role as it is now (one query, as the project's presence
        was): a change whose message has not come yet still holds. If not, the
        page is told why (a removed person's socket closes)."""
        now = await threads.run(_role_now, self.project, self.user)
        if now is None:
            await self.project_gone({"type": "project.gone"})
            return False
        if now == "removed":
            await self._closing(Close.REMOVED, code="removed")
            return False
        if now != self.role:
            await self._role_changed(now)
        if not allows(now, action):
            await self._notice(refusal(action, now), code="role_refused")
            return False
        return True

    # --- the person's session ------------------------------------------------------

    async def session_check(self, message: messages.SessionCheck) -> None:
        """Signed out somewhere or everywhere, a password changed, a token
        revoked: still valid?"""
        session = self.scope.get("session")
        ended = message.get("ended")
        if (ended and ended == getattr(session, "session_key", None)) or not await threads.run(
            session_valid, self.scope
        ):
            await self._session_ended(everywhere=message.get("everywhere", False))

    async def session_moved(self, message: messages.SessionMoved) -> None:
        """This tab's session changed the password and went on under a new key."""
        session_follow(self.scope, old_key=message["old_key"], new_key=message["new_key"])

    async def access_changed(self, message: messages.AccessChanged) -> None:
        """The person's access to a project changed (to their every socket): on
        this one's project, a removal closes it with words, a new role shows."""
        if message["project"] != self.project.pk.hex:
            return
        role = message["role"]
        if role is None:
            await self._closing(Close.REMOVED, code="removed")
        elif role in ACTIONS and role != self.role:  # not when its connect read it already
            await self._role_changed(role)

    async def _role_changed(self, role: Role) -> None:
        """From now on this socket does what `role` allows; the page shows it
        (chat/signals.js): the message box or the viewer line in its place,
        the controls the role allows, and an event for the page's other parts."""
        self.role = role
        shown = await self._present()
        if self.as_json:
            await self.send(text_data=json.dumps({"type": "role", "role": role}))
            return
        await self.send_html(shown + self._signal(role=role))

    async def project_gone(self, message: messages.ProjectGone) -> None:
        await self._closing(Close.PROJECT_GONE, code="project_gone")

    async def _session_ended(self, *, everywhere: bool = False) -> None:
        if everywhere:
            await self._closing(Close.SIGNED_OUT_EVERYWHERE, code="signed_out_everywhere")
        else:
            await self._closing(Close.SESSION_ENDED, code="session_ended")

    async def _closing(self, close: int, *, code: str) -> None:
        """Say why in the chat (and to a script, as `code`), then close with it;
        out of the project's presence at once, not when the tab answers."""
        await self._absent()
        await self._notice(REASONS[close], code=code)
        await self.close(code=close, reason=REASONS[close])

    # --- what the project's turns send (chat.live.following) ---------------------------

    async def turn_events(self, message: messages.TurnEvents) -> None:
        if await self.follower.follow(message) and not turns.accepting():
            # Kept open through a shutdown to see this turn end: now go elsewhere.
            _OPEN.discard(self)
            await self.close(code=Close.SERVICE_RESTART)

    async def turn_resync(self, message: dict[str, str]) -> None:
        """The way from other processes broke and holds again: what was published
        meanwhile never comes, so read the turn's log again, and see that the
        project is still there (a `project.gone` may have been lost)."""
        if message.get("group", self.group) != self.group:
            return
        if not await threads.run(_still_there, self.project):
            await self.project_gone({"type": "project.gone"})
            return
        await self.follower.resync()

    async def turn_unseen(self, message: messages.TurnLost) -> None:
        """The watchdog found the turn ended, and its `done` never came here."""
        await self.follower.ended_unseen(message["turn"])

    async def turn_lost(self, message: messages.TurnLost) -> None:
        """The turn's server stopped (this process's watchdog or another's found it,
        or a connecting tab did): shown if this tab watches it."""
        await self.follower.lost(message["turn"])

    def _watch(self, key: str | None) -> None:
        # The loop's watchdog, found once: every batch this tab shows says what it watches.
        self._watchdog.watch(self.addressed, project_id=self.project.pk, key=key)

    async def files_moved(self, message: messages.FilesMoved) -> None:
        """An undo, a redo, a restore or the person in a tab changed files: redraw
        as after a turn."""
        if self.as_json:
            event = {
                "type": "files_moved",
                "paths": message["paths"],
                "turn": message["turn"],
                "by": message["by"],
            }
            await self.send(text_data=json.dumps(event, ensure_ascii=False))
            return
        parts = [
            await self.follower.changes_html(message["turn"]),
            await threads.run(tree_html, self.project),
            self._signal(
                files=message["paths"],
                by=message["by"],
                tab=message["tab"],
                # Another person's change names them; one's own, from another tab, does not.
                who=message.get("name", "") if message.get("person") != self.user.pk else "",
            ),
        ]
        await self.send_html("".join(parts))

    async def conversation_compacted(self, message: messages.ConversationCompacted) -> None:
        """Earlier turns were summarised by hand (in this tab or another)."""
        conversation = self.conversation
        if conversation is None or conversation.pk != message["conversation"]:
            return
        if self.as_json:
            event = {"type": "compacted", "conversation": message["conversation"]}
            await self.send(text_data=json.dumps(event))
            return
        await self.send_html(await threads.run(panel.latest_turn_html, conversation))

    # --- frames (chat.live.following.Screen) -------------------------------------------

    async def send_html(self, html: str) -> None:
        """HTML swaps in as many frames as keep each under the size daphne allows."""
        for frame in html_frames(html, settings.BUILTIT_MAX_FRAME_BYTES):
            await self.send(text_data=frame)

    async def send_text(self, text: str) -> None:
        await self.send(text_data=text)

    def signal(self, *, files: list[str] | None = None) -> str:
        # The tab's first list of people goes with the first signal, its catch-up's.
        pending, self._presence_pending = self._presence_pending, ""
        return ("" if self.as_json else pending) + self._signal(files=files)

    def redraw_after(self, seconds: float) -> None:
        if self._redraw is None and not self._is_closed:
            self._redraw = asyncio.get_running_loop().call_later(seconds, self._redraw_due)

    def _redraw_due(self) -> None:
        # Through the tab's own channel, so the drawing comes between two of its
        # messages, never inside one.
        self._redraw = None
        if self._is_closed:
            return
        redraw: messages.AnswerRedraw = {"type": "answer.redraw"}
        self._redrawing = asyncio.ensure_future(self.channel_layer.send(self.channel_name, redraw))
        self._redrawing.add_done_callback(_sent_to_self)

    async def answer_redraw(self, message: messages.AnswerRedraw) -> None:
        await self.follower.redraw()

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Disconnected:
            # The tab went away while a frame was on its way (daphne has begun
            # closing, its disconnect message not yet here): nothing to tell it;
            # it catches up from what is stored when it comes back.
            logger.debug("A chat frame for a closing socket was dropped.")

    async def _notice(self, message: str, *, code: str) -> None:
        if self.as_json:
            error = {"type": "error", "code": code, "message": message, "retryable": False}
            await self.send(text_data=json.dumps(error, ensure_ascii=False))
        else:
            self._noticed = bool(message)
            await self.send(text_data=panel.notice_html(message))

    def notice_done(self) -> str:
        if not self._noticed:
            return ""
        self._noticed = False
        return panel.notice_html("")

    def _signal(
        self,
        *,
        sent: bool = False,
        files: list[str] | None = None,
        by: str = "assistant",
        tab: str = "",
        who: str = "",
        draft: str = "",
        role: str = "",
    ) -> str:
        self.signals += 1
        return panel.signal_html(
            self.signals,
            sent=sent,
            files=files or [],
            by=by,
            tab=tab,
            who=who,
            draft=draft,
            role=role,
        )


def _opened(
    project: Project, user: User, conversation: Conversation | None
) -> tuple[Role, Snapshot, str, str | None] | Literal["removed"] | None:
    """In one job, once the socket is in the person's group: their role now
    (a removal or a new role between the connect's read of their access,
    orders.socket_project, and that join sent its `access_changed` to no socket
    of theirs; "removed" and None as `_role_now`), what the tab shows first,
    the request the project was started with on the dashboard if this is
    the first of its owner's sockets to take it (chat.openings; "" otherwise):
    the owner's words, sent (and paid for) by no one else; and the key of the
    turn this connect recorded as interrupted, if it did (`_lapsed_recorded`)."""
    role = _role_now(project, user)
    if role is None or role == "removed":
        return role
    state = snapshot(project, conversation)
    recorded = None
    if state.lapsed is not None:
        recorded, state = _lapsed_recorded(project, conversation, state.lapsed)
    if conversation is None or role != "owner":
        return role, state, "", recorded
    return role, state, openings.opening_take(conversation=conversation), recorded


def _lapsed_recorded(
    project: Project, conversation: Conversation | None, key: str
) -> tuple[str | None, Snapshot]:
    """The turn `key` whose server stopped, its lock lapsed, is recorded as
    interrupted now (unless a watchdog just did), as the next turn would do
    (chat.services.turn_lock_take): a tab connecting now watches no running
    turn, so no `turn.lost` would ever redraw it, and it would show the turn
    unended without the reason. Then what the tab shows, read again."""
    recorded = services.turn_abandon(project_id=project.pk, key=key)
    return (key if recorded else None), snapshot(project, conversation)


def _files_now(project: Project, path: str, version: int) -> tuple[str, list[str], str] | None:
    """In one job: the tree, and news of the file open at `version` (None: the
    project was deleted meanwhile)."""
    if not _still_there(project):
        return None
    files, by = open_file_news(project=project, path=path, version=version)
    return tree_html(project), files, by


def _files_moved_since(
    project: Project, since: int, user: User
) -> tuple[str, FilesMovedSince, str] | None:
    """In one job: the tree, what changed after revision `since`, and who
    changed it if another person did (None: nothing changed)."""
    moved = files_moved_since(project=project, after=since)
    if moved is None:
        return None
    by = None
    if moved.user_id is not None and moved.user_id != user.pk:
        by = User.objects.filter(pk=moved.user_id).first()
    return tree_html(project), moved, person_name(by) if by is not None else ""


def _role_now(project: Project, user: User) -> Role | Literal["removed"] | None:
    """The person's role in the project now: "removed" when it is no longer
    shared with them, None when it went to the trash or was deleted."""
    found = project_access(user, project.pk)
    if found is not None:
        return found.role
    return "removed" if _still_there(project) else None


def _still_there(project: Project) -> bool:
    return Project.objects.filter(pk=project.pk).exists()  # not deleted meanwhile
