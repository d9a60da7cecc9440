"""The chat socket by role (issue 45): the owner and the people a project is
shared with connect, a stranger is refused; each socket action by the one rule
(projects.access), a refusal in words with the socket left open; a turn is
paid by the person who sent it (their key, their ledger); one turn at a time
for everyone, a second person's message refused with who is running it; and
access changes hold at once: a removed person's socket closes with words, a
changed role reaches an open socket. Real ASGI app, real database, real HTTP
to the fake OpenRouter."""

from __future__ import annotations

import html
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from chat.agent.person_limits import too_many_turns_message
from chat.live import orders, turns
from chat.live.closing import REASONS, Close
from chat.models import Charge, Conversation, Message, PersonLimits
from chat.personal_keys import key_save
from chat.selectors.conversations import SocketProject
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply
from projects.access import refusal
from projects.models import Membership, Project
from projects.sharing import membership_remove
from projects.signals import access_changed
from tests.chat.live.tabs import (
    communicator,
    events_until,
    frames_until,
    next_event,
    opened,
    send,
    socket_path,
)
from tests.chat.live.test_presence_live import presence_now
from tests.fakes.held import Held

pytestmark = pytest.mark.django_db(transaction=True)

WHOLE = 1 << 20
VIEWER_REFUSED = refusal("chat", "viewer")


def answer(content: str = "Done.") -> Reply:
    return Reply(content=content, piece_size=WHOLE)


@sync_to_async
def person(name: str) -> User:
    return User.objects.create_user(name, f"{name}@example.com", "a long enough secret")


@sync_to_async
def share(project: Project, user: User, role: str) -> Membership:
    return Membership.objects.create(project=project, user=user, role=role, added_by=project.owner)


@sync_to_async
def change_role(project: Project, user: User, role: str | None) -> None:
    """What share-ui's services do: the membership changed, then access_changed."""
    if role is None:
        Membership.objects.filter(project=project, user=user).delete()
    else:
        Membership.objects.filter(project=project, user=user).update(role=role)
    access_changed.send(Project, project=project, user_id=user.pk, role=role)


async def as_role(project: Project, owner: User, role: str) -> User:
    """The project's owner, or a new person it is shared with as `role`."""
    if role == "owner":
        return owner
    member = await person(f"erin-{role}")
    await share(project, member, role)
    return member


@sync_to_async
def user_messages() -> list[Message]:
    return list(Message.objects.filter(role=Message.Role.USER).order_by("pk"))


@sync_to_async
def default_model(project: Project) -> str:
    return Project.objects.get(pk=project.pk).default_model


# --- who gets in ------------------------------------------------------------------


@pytest.mark.parametrize("role", ["owner", "editor", "viewer"])
async def test_the_owner_and_members_connect_and_follow_a_stranger_is_refused(
    scripted: FakeOpenRouter, project: Project, user: User, other_user: User, role: str
) -> None:
    me = await as_role(project, user, role)
    scripted.script(answer("Hello."))
    async with opened(project, me) as follower, opened(project, user) as sender:
        await send(sender, message="hello")
        seen = await events_until(follower, "done")
    assert seen[0]["type"] == "turn_started"
    assert seen[-1]["status"] == "completed"

    stranger = await communicator(socket_path(project), user=other_user)
    connected, _ = await stranger.connect()
    assert not connected


@sync_to_async
def socket_role(user: User, project: Project) -> str | None:
    found = orders.socket_project(user, project.pk, "")
    return None if found is None else found.role


async def test_the_connect_cache_never_keeps_a_person_in_after_a_membership_change(
    project: Project, user: User
) -> None:
    erin = await person("erin")
    membership = await share(project, erin, "editor")
    assert await socket_role(erin, project) == "editor"
    assert await socket_role(erin, project) == "editor"  # kept now
    membership.role = "viewer"
    await sync_to_async(membership.save)()
    assert await socket_role(erin, project) == "viewer"
    await sync_to_async(membership.delete)()
    assert await socket_role(erin, project) is None
    assert await socket_role(user, project) == "owner"


async def test_a_removed_person_cannot_connect_again(project: Project, user: User) -> None:
    erin = await person("erin")
    await share(project, erin, "editor")
    async with opened(project, erin):
        pass
    await change_role(project, erin, None)
    socket = await communicator(socket_path(project), user=erin)
    connected, _ = await socket.connect()
    assert not connected


# --- each socket action by role --------------------------------------------------------


@pytest.mark.parametrize("plan", [False, True])
@pytest.mark.parametrize("role", ["owner", "editor", "viewer"])
async def test_sending_a_message_or_a_plan_needs_chat(
    scripted: FakeOpenRouter, project: Project, user: User, role: str, plan: bool
) -> None:
    me = await as_role(project, user, role)
    scripted.script(answer("Planned." if plan else "Done."))
    async with opened(project, me) as socket:
        await send(socket, message="Add a page", plan=plan, model="openai/gpt-5-mini")
        got = await next_event(socket)
        if role != "viewer":
            rest = await events_until(socket, "done")

    if role == "viewer":
        assert got == {
            "type": "error",
            "code": "role_refused",
            "message": VIEWER_REFUSED,
            "retryable": False,
        }
        assert scripted.requests == []
        assert await user_messages() == []
        assert await default_model(project) == ""  # picking a model needs chat too
    else:
        assert got["type"] == "turn_started"
        assert rest[-1]["status"] == "completed"
        assert [m.content for m in await user_messages()] == ["Add a page"]
        assert await default_model(project) == "openai/gpt-5-mini"


@pytest.mark.parametrize("role", ["owner", "editor", "viewer"])
async def test_stop_needs_chat(
    scripted: FakeOpenRouter, project: Project, user: User, role: str
) -> None:
    me = await as_role(project, user, role)
    held = Held(answer("Done."))
    scripted.responder = held
    async with opened(project, user) as owner, opened(project, me) as socket:
        await send(owner, message="first")
        await events_until(owner, "turn_started")
        await events_until(socket, "turn_started")
        await send(socket, action="stop")
        if role == "viewer":
            refused = await events_until(socket, "error")
            held.release()
        done = await events_until(owner, "done")

    if role == "viewer":
        assert refused[-1]["code"] == "role_refused"
        assert refused[-1]["message"] == VIEWER_REFUSED
        assert done[-1]["status"] == "completed"  # the turn went on
    else:
        assert done[-1]["status"] == "stopped"


@pytest.mark.parametrize("role", ["owner", "editor", "viewer"])
async def test_reading_the_files_again_is_for_every_role(
    project: Project, user: User, role: str
) -> None:
    me = await as_role(project, user, role)
    async with opened(project, me, as_json=False) as socket:
        await socket.receive_from()  # what is stored
        await send(socket, action="files", open="", version=0)
        tree = await socket.receive_from()
    assert '<nav id="file-tree"' in tree
    assert 'role="alert"' not in tree


async def test_a_viewers_refusal_is_shown_in_the_page_and_their_text_stays(
    project: Project, user: User
) -> None:
    viewer = await as_role(project, user, "viewer")
    async with opened(project, viewer, as_json=False) as socket:
        await socket.receive_from()
        await send(socket, message="May I?")
        frame = await socket.receive_from()
    assert 'id="chat-notice"' in frame
    assert 'role="alert"' in frame
    assert VIEWER_REFUSED in html.unescape(frame)
    # No `sent` signal: the page empties the message box only on one (chat/signals.js).
    assert "chat-signal" not in frame


async def test_the_opening_request_is_left_to_the_owner(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    conversation = await sync_to_async(Conversation.objects.create)(
        project=project, opening="Build a bakery site"
    )
    editor = await as_role(project, user, "editor")
    scripted.script(answer("Built."))
    async with opened(project, editor, as_json=False) as socket:
        first = await socket.receive_from()
    assert "Build a bakery site" not in first
    assert scripted.requests == []
    stored = await sync_to_async(Conversation.objects.get)(pk=conversation.pk)
    assert stored.opening == "Build a bakery site"  # still there for the owner


# --- who pays, who asked ---------------------------------------------------------------


@sync_to_async
def senders() -> set[int | None]:
    return set(Message.objects.values_list("sender_id", flat=True))


@sync_to_async
def charges() -> list[tuple[int, str]]:
    return [(c.user_id, str(c.project_id)) for c in Charge.objects.all()]


@pytest.mark.parametrize("senders_key", [True, False])
async def test_a_turn_is_paid_by_its_sender(
    scripted: FakeOpenRouter, project: Project, user: User, senders_key: bool
) -> None:
    editor = await as_role(project, user, "editor")
    await sync_to_async(key_save)(user=user, raw="sk-or-v1-owners-key-0123456789")
    if senders_key:
        await sync_to_async(key_save)(user=editor, raw="sk-or-v1-erins-key-0123456789")
    scripted.script(answer("Paid."))
    async with opened(project, editor) as socket:
        await send(socket, message="hello")
        await events_until(socket, "done")
    await turns.wait_all()

    expected = "sk-or-v1-erins-key-0123456789" if senders_key else "sk-test"
    assert scripted.requests[0].headers["authorization"] == f"Bearer {expected}"
    ledger = await charges()
    assert ledger
    assert ledger == [(editor.pk, str(project.pk))] * len(ledger)
    assert await senders() == {editor.pk}


async def test_a_shared_projects_turn_shows_who_asked(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    editor = await as_role(project, user, "editor")
    await sync_to_async(User.objects.filter(pk=editor.pk).update)(first_name="Erin")
    scripted.script(answer("One."), answer("Two."))
    async with opened(project, editor) as socket:
        await send(socket, message="hello")
        seen = await events_until(socket, "done")
    assert seen[0]["asked_by"] == "Erin"
    assert seen[0]["asked_by_id"] == editor.pk  # the page marks her dot by it
    async with opened(project, user, as_json=False) as owner_tab:
        stored = await owner_tab.receive_from()
    assert f'data-user="{editor.pk}">Erin asked' in stored


async def test_a_project_used_only_by_its_owner_names_nobody(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    scripted.script(answer("One."))
    async with opened(project, user) as socket:
        await send(socket, message="hello")
        seen = await events_until(socket, "done")
    assert seen[0]["asked_by"] == ""
    assert seen[0]["asked_by_id"] == 0
    async with opened(project, user, as_json=False) as tab:
        assert " asked</p>" not in await tab.receive_from()


@pytest.mark.parametrize("as_json", [True, False])
async def test_a_second_persons_message_while_a_turn_runs_is_refused_naming_who(
    scripted: FakeOpenRouter, project: Project, user: User, as_json: bool
) -> None:
    editor = await as_role(project, user, "editor")
    held = Held(answer("Done."))
    scripted.responder = held
    async with opened(project, user) as owner, opened(project, editor, as_json=as_json) as socket:
        if not as_json:
            await socket.receive_from()
        await send(owner, message="first")
        await events_until(owner, "turn_started")
        await send(socket, message="mine")
        if as_json:
            refused = (await events_until(socket, "error"))[-1]
            said = refused["message"]
            assert refused["code"] == "busy"
        else:
            frame = (await frames_until(socket, 'role="alert"'))[-1]
            said = html.unescape(frame)
            assert '"sent": true' not in html.unescape(frame)  # the box keeps their text
        held.release()
        await events_until(owner, "done")

    assert turns.busy_message(by="ada") in said
    assert "ada is working with the assistant" in said
    assert [m.content for m in await user_messages()] == ["first"]
    assert len(scripted.requests) == 1


# --- access changes hold at once ------------------------------------------------------------


@pytest.mark.parametrize("as_json", [True, False])
async def test_a_removed_persons_open_socket_closes_with_words(
    project: Project, user: User, as_json: bool
) -> None:
    editor = await as_role(project, user, "editor")
    socket = await communicator(socket_path(project, as_json=as_json), user=editor)
    connected, _ = await socket.connect()
    assert connected
    if not as_json:
        await socket.receive_from()
    async with opened(project, user) as owner:
        await change_role(project, editor, None)
        # An HTML tab was shown the owner coming first (chat.live.presence).
        notice = (await frames_until(socket, "removed you"))[-1]
        closing: dict[str, Any] = await socket.receive_output(timeout=5)
        # The owner's own socket on the project stays open.
        await send(owner, action="stop")
        assert (await next_event(owner))["code"] == "not_running"

    words = "The owner removed you from this project."
    assert REASONS[Close.REMOVED] == words
    assert words in html.unescape(notice)
    assert closing == {"type": "websocket.close", "code": Close.REMOVED, "reason": words}


async def test_a_person_removed_while_their_socket_connects_is_closed_with_words(
    project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = await as_role(project, user, "editor")
    read = orders.socket_project

    def removed_after_the_read(*args: Any) -> SocketProject | None:
        # The owner removes them once their access was read, before their
        # socket joined their own group: its access_changed reaches no one.
        found = read(*args)
        assert membership_remove(project=project, by=user, user=editor) is None
        return found

    monkeypatch.setattr(orders, "socket_project", removed_after_the_read)
    socket = await communicator(socket_path(project, as_json=False), user=editor)
    connected, _ = await socket.connect()
    assert connected  # accepted first, to say why it closes
    notice = (await frames_until(socket, "removed you"))[-1]
    closing: dict[str, Any] = await socket.receive_output(timeout=5)
    monkeypatch.undo()

    words = REASONS[Close.REMOVED]
    assert words in html.unescape(notice)
    assert closing == {"type": "websocket.close", "code": Close.REMOVED, "reason": words}
    async with opened(project, user, as_json=False) as owner:
        labels, _ = await presence_now(owner)
    assert labels == []  # not left in the project's presence


async def test_a_removal_on_another_project_leaves_the_socket_open(
    project: Project, user: User
) -> None:
    editor = await as_role(project, user, "editor")
    other = await sync_to_async(Project.objects.create)(owner=user, name="Other")
    await share(other, editor, "editor")
    async with opened(project, editor) as socket:
        await change_role(other, editor, None)
        await send(socket, action="stop")
        assert (await next_event(socket))["code"] == "not_running"


async def test_a_changed_role_reaches_an_open_socket(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    erin = await as_role(project, user, "editor")
    scripted.script(answer("Now."))
    async with opened(project, erin, as_json=False) as page, opened(project, erin) as script:
        await page.receive_from()
        await change_role(project, erin, "viewer")
        shown = html.unescape(await page.receive_from())
        assert await next_event(script) == {"type": "role", "role": "viewer"}
        await send(script, message="still?")
        assert (await next_event(script))["message"] == VIEWER_REFUSED

        await change_role(project, erin, "editor")
        back = html.unescape(await page.receive_from())
        assert await next_event(script) == {"type": "role", "role": "editor"}
        await send(script, message="now?")
        done = await events_until(script, "done")

    # The signal the page's script shows the viewer line in place of the
    # message box by, with what the role may do now (the page's root takes it,
    # and the controls that need more hide).
    assert '"role": "viewer"' in shown
    assert '"may": "view"' in shown
    assert '"role": "editor"' in back
    assert '"may": "chat edit forms view"' in back
    assert done[-1]["status"] == "completed"


@pytest.mark.parametrize("drawn", ["owner", "viewer"])
async def test_a_role_changed_between_the_pages_drawing_and_its_connect_is_shown(
    project: Project, user: User, drawn: str
) -> None:
    """The page was drawn for another role (the hand-over or a role change
    came before its socket was in the person's group, so no message reached
    it): the socket's first frames show the role the person has now."""
    erin = await as_role(project, user, "editor")
    async with opened(project, erin, as_json=False, query=f"role={drawn}") as page:
        frames = await frames_until(page, 'id="presence"', timeout=5)
    shown = html.unescape("".join(frames))
    assert '"role": "editor"' in shown
    assert '"may": "chat edit forms view"' in shown


async def test_a_page_drawn_for_the_role_the_person_has_hears_no_role_change(
    project: Project, user: User
) -> None:
    erin = await as_role(project, user, "editor")
    async with opened(project, erin, as_json=False, query="role=editor") as page:
        frames = await frames_until(page, 'id="presence"', timeout=5)
    assert '"role": "editor"' not in html.unescape("".join(frames))


async def test_a_role_changed_where_no_message_came_still_holds_for_the_next_turn(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    # The membership changed with no access_changed sent (an SQL UPDATE, a
    # message lost): the socket reads the role again before any turn.
    erin = await as_role(project, user, "editor")
    async with opened(project, erin) as socket:
        await sync_to_async(Membership.objects.filter(user=erin).update)(role="viewer")
        await send(socket, message="hello")
        got = [await next_event(socket), await next_event(socket)]
    assert got == [
        {"type": "role", "role": "viewer"},
        {"type": "error", "code": "role_refused", "message": VIEWER_REFUSED, "retryable": False},
    ]
    assert scripted.requests == []


@pytest.mark.parametrize("role", [None, "viewer"])
async def test_a_turn_stops_when_its_sender_is_removed_or_made_a_viewer(
    scripted: FakeOpenRouter, project: Project, user: User, role: str | None
) -> None:
    editor = await as_role(project, user, "editor")
    held = Held(answer("Done."))
    scripted.responder = held
    async with opened(project, user) as owner, opened(project, editor) as socket:
        await send(socket, message="a long turn")
        await events_until(owner, "turn_started")
        await change_role(project, editor, role)
        done = await events_until(owner, "done")
        held.release()

    assert done[-1]["status"] == "stopped"  # as Stop ends it, the owner's tab told
    assert [m.content for m in await user_messages()] == ["a long turn"]


async def test_a_turn_goes_on_when_another_persons_role_changes(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    editor = await as_role(project, user, "editor")
    viewer = await as_role(project, user, "viewer")
    finn = await person("finn")
    await share(project, finn, "editor")
    held = Held(answer("Done."))
    scripted.responder = held
    async with opened(project, user) as owner, opened(project, editor) as socket:
        await send(socket, message="a long turn")
        await events_until(owner, "turn_started")
        await change_role(project, viewer, None)
        await change_role(project, finn, "viewer")
        held.release()
        done = await events_until(owner, "done")

    assert done[-1]["status"] == "completed"


async def test_a_demotion_where_no_message_came_still_holds_for_stop(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    erin = await as_role(project, user, "editor")
    held = Held(answer("Done."))
    scripted.responder = held
    async with opened(project, user) as owner, opened(project, erin) as socket:
        await send(owner, message="the owner's turn")
        await events_until(socket, "turn_started")
        await sync_to_async(Membership.objects.filter(user=erin).update)(role="viewer")
        await send(socket, action="stop")
        got = await events_until(socket, "error")
        held.release()
        done = await events_until(owner, "done")

    assert {"type": "role", "role": "viewer"} in got
    assert got[-1]["code"] == "role_refused"
    assert got[-1]["message"] == refusal("chat", "viewer")
    assert done[-1]["status"] == "completed"  # the turn went on


@pytest.mark.parametrize("action", ["stop", "files"])
async def test_a_removal_where_no_message_came_closes_the_socket_on_stop_or_files(
    project: Project, user: User, action: str
) -> None:
    erin = await as_role(project, user, "editor")
    async with opened(project, erin, as_json=False) as page:
        await page.receive_from()  # what is stored
        await sync_to_async(Membership.objects.filter(user=erin).delete)()
        await send(page, action=action, open="", version=0)
        notice = await page.receive_from()
        closing: dict[str, Any] = await page.receive_output(timeout=5)

    words = REASONS[Close.REMOVED]
    assert words in html.unescape(notice)
    assert '<nav id="file-tree"' not in notice
    assert closing == {"type": "websocket.close", "code": Close.REMOVED, "reason": words}


@sync_to_async
def limit_running_turns(user: User, most: int) -> None:
    PersonLimits.objects.update_or_create(user=user, defaults={"max_running_turns": most})


async def test_running_turns_count_against_their_sender_not_the_owner(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    editor = await as_role(project, user, "editor")
    await limit_running_turns(user, 1)
    await limit_running_turns(editor, 1)
    own = await sync_to_async(Project.objects.create)(owner=user, name="Ada's other site")
    theirs = await sync_to_async(Project.objects.create)(owner=editor, name="Erin's own site")
    held = Held(answer("Done."), answer("Mine."))
    scripted.responder = held
    async with (
        opened(project, editor) as shared_tab,
        opened(own, user) as owners_tab,
        opened(theirs, editor) as editors_tab,
    ):
        await send(shared_tab, message="Erin's turn on Ada's project")
        await events_until(shared_tab, "turn_started")
        # Ada runs nothing: her limit leaves her a turn.
        await send(owners_tab, message="Ada's own turn")
        started = await next_event(owners_tab)
        # Erin runs one already (on Ada's project): her limit is reached.
        await send(editors_tab, message="Erin's own turn")
        refused = await next_event(editors_tab)
        held.release()
        await events_until(shared_tab, "done")
        await events_until(owners_tab, "done")

    assert started["type"] == "turn_started"
    assert refused["type"] == "error"
    assert refused["code"] == "busy"
    assert refused["message"] == too_many_turns_message(1)
