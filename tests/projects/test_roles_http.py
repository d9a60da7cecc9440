"""Every URL of the app, walked with each person a project can have: its
owner, an editor, a viewer, a stranger and someone signed out. Each gets what
projects.access says: a member whose role allows the action what the page
does, a member whose role does not a 403 that says why, a stranger a 404,
and someone signed out the sign-in page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from chat import changes
from chat.models import ChatImage, Conversation, Message
from fakes.images import png
from projects.access import ACTIONS, Action, Role, refusal
from projects.history.undo import UndoRefused
from projects.lifecycle import project_create
from projects.models import FileRevision, Membership, Project
from projects.publish.services import site_publish
from projects.services import Author, file_create

# The 404 page a stranger gets (templates/404.html).
NOT_FOUND = "There is nothing at this address, or it belongs to someone else."

Person = Literal["owner", "editor", "viewer", "stranger", "anonymous"]
PEOPLE: tuple[Person, ...] = ("owner", "editor", "viewer", "stranger", "anonymous")


@dataclass
class World:
    project: Project
    people: dict[str, User]
    conversation: Conversation
    turn: Message
    reply: Message
    reversal_id: int
    revision_id: int
    image_id: int


Args = Callable[[World], dict[str, Any]]


@dataclass(frozen=True)
class Page:
    """One URL of a project: how to ask for it, and the action it is."""

    method: Literal["get", "post"]
    action: Action
    kwargs: Args = field(default=lambda w: {"project_id": w.project.pk})
    data: Args = field(default=lambda w: {})
    query: str = ""


def _p(**extra: Callable[[World], object]) -> Args:
    def build(w: World) -> dict[str, object]:
        return {"project_id": w.project.pk, **{k: f(w) for k, f in extra.items()}}

    return build


_TURN = _p(turn_id=lambda w: w.turn.pk)
_CONVERSATION = _p(conversation_id=lambda w: w.conversation.pk)
_REVISION = _p(revision_id=lambda w: w.revision_id)
_VERSION = _p(number=lambda w: 1)
_PATH = {"path": "/index.html"}

PAGES: dict[str, Page] = {
    # chat
    "workspace": Page("get", "view"),
    "conversation_new": Page("post", "chat"),
    "conversation_earlier": Page("get", "view", _CONVERSATION, query="before=99"),
    "conversation_compact": Page(
        "post", "chat", data=lambda w: {"conversation": w.conversation.pk}
    ),
    "conversation_export": Page("get", "view", _CONVERSATION),
    "turn_changes": Page("get", "view", _TURN),
    "turn_undo": Page("post", "edit", _TURN),
    "turn_restore": Page("post", "edit", _TURN, data=lambda w: {"when": "before"}),
    "turn_preview": Page("get", "view", _TURN),
    "reversal_revert": Page("post", "edit", _p(reversal_id=lambda w: w.reversal_id)),
    "draft_improve": Page("post", "chat", data=lambda w: {"draft": ""}),
    "chat_image_upload": Page("post", "chat"),
    "message_turn": Page("get", "view", _p(message_id=lambda w: w.reply.pk)),
    "chat_image": Page("get", "view", lambda w: {"image_id": w.image_id}),
    "chat_image_to_project": Page("post", "edit", lambda w: {"image_id": w.image_id}),
    "message_text": Page("get", "view", lambda w: {"message_id": w.reply.pk, "part": "content"}),
    # projects
    "project_rename": Page("post", "settings", data=lambda w: {"name": "Renamed"}),
    "project_delete": Page("get", "delete"),
    "project_export": Page("get", "view"),
    "preview_token_rotate": Page("post", "settings"),
    "file_open": Page("get", "view", query="path=/index.html"),
    "file_save": Page("post", "edit", data=lambda w: {**_PATH, "content": "<p>hi</p>"}),
    "file_new": Page("post", "edit", data=lambda w: {"path": "/new.html"}),
    "file_search": Page("get", "view", query="q=html"),
    "file_upload": Page("post", "edit"),
    "file_rename": Page("post", "edit", data=lambda w: {**_PATH, "new_path": "/home.html"}),
    "file_delete": Page("post", "edit", data=lambda w: {"path": "/styles.css"}),
    "file_history": Page("get", "view", query="path=/index.html"),
    "file_revision": Page("get", "view", _REVISION),
    "revision_diff": Page("get", "view", _REVISION),
    "revision_preview": Page("get", "view", _REVISION),
    "file_restore": Page("post", "edit", data=lambda w: {"revision": w.revision_id}),
    "git_remote_save": Page("post", "settings"),
    "git_remote_delete": Page("post", "settings"),
    "git_remote_push": Page("post", "settings"),
    "git_remote_pull": Page("post", "settings"),
    "preview_edit": Page("post", "edit"),
    "preview_edit_choices": Page("get", "edit"),
    "preview_edit_undo": Page("post", "edit"),
    "site_panel": Page("get", "view"),
    "site_publish": Page("post", "publish"),
    "site_unpublish": Page("post", "publish"),
    "site_password": Page("post", "publish"),
    "site_domain": Page("post", "publish"),
    "site_domain_check": Page("post", "publish"),
    "site_domain_state": Page("get", "view"),
    "site_version_live": Page("post", "publish", _VERSION),
    "site_version_zip": Page("get", "view", _VERSION),
    "forms_inbox": Page("get", "forms"),
    "forms_csv": Page("get", "forms"),
    "forms_read": Page("post", "forms"),
    "forms_delete": Page("post", "forms"),
    "forms_settings": Page("post", "publish"),
    # sharing: the list is everyone's to read; who is in, the owner's to change
    "share_panel": Page("get", "view"),
    "share_add": Page("post", "share", data=lambda w: {"username": "nobody", "role": "viewer"}),
    "share_role": Page(
        "post",
        "share",
        _p(user_id=lambda w: w.people["viewer"].pk),
        data=lambda w: {"role": "editor"},
    ),
    "share_remove": Page("post", "share", _p(user_id=lambda w: w.people["viewer"].pk)),
    "share_invite": Page(
        "post", "share", data=lambda w: {"email": "new@example.com", "role": "viewer"}
    ),
    "share_invite_revoke": Page("post", "share", _p(invitation_id=lambda w: 1)),
    "share_leave": Page("post", "view"),
    "share_hand_over": Page("post", "hand_over", data=lambda w: {"username": "nobody"}),
    "share_hand_over_withdraw": Page("post", "hand_over"),
    # An offer's answer: a member with none is told so in words (test_sharing_views
    # has the receiver, who may be a stranger to it until they accept).
    "hand_over_accept": Page("post", "view"),
    "hand_over_decline": Page("post", "view"),
}

# The trash is the owner's alone, and only for a project in it: a project out
# of the trash is not there for anyone (projects.selectors.trashed_get_for).
TRASH = {"project_restore", "project_purge"}

# URLs of no one project: what someone signed out gets (the sign-in page, or
# the page itself where it is public, a Git address answering in Git's words).
Open = Literal["login", "public"]
OTHERS: dict[str | None, Open] = {
    "login": "public",
    "logout": "public",
    "signup": "public",
    "password_change": "login",
    "password_change_done": "login",
    "sign_out_everywhere": "login",
    "settings": "login",
    "healthz": "public",
    "git_repository": "public",
    "git": "public",
    "project_start": "login",
    "dashboard": "login",
    "project_new": "login",
    "project_import": "login",
    "project_import_git": "login",
    "trash": "login",
    "preferences": "login",
    "invitation_open": "login",  # a mailed link: whoever is signed in may open it
    None: "public",  # the favicon's redirect, the one unnamed URL
}


def _names(patterns: list[URLPattern | URLResolver], namespace: str = "") -> list[str | None]:
    found: list[str | None] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                found.append("admin:*")
                continue
            found += _names(pattern.url_patterns, namespace)
        else:
            found.append(pattern.name)
    return found


def test_the_walk_covers_every_url_of_the_app() -> None:
    names = _names(get_resolver().url_patterns)
    assert len(names) == len(set(names)), "two URLs share a name"
    walked = set(PAGES) | TRASH | set(OTHERS) | {"admin:*"}
    assert set(names) - walked == set(), "a URL the walk does not cover: add it to PAGES"
    assert walked - set(names) == set(), "the walk names a URL the app no longer has"


def _user(name: str) -> User:
    return User.objects.create_user(name, f"{name}@example.com", "pw-for-tests-1")


@pytest.fixture
def world(db: None) -> World:
    people = {name: _user(name) for name in ("owner", "editor", "viewer", "stranger")}
    owner = people["owner"]
    project = project_create(owner=owner, name="Bakery", starter=True)
    assert isinstance(project, Project)
    Membership.objects.create(project=project, user=people["editor"], role="editor", added_by=owner)
    Membership.objects.create(project=project, user=people["viewer"], role="viewer", added_by=owner)
    conversation = Conversation.objects.create(project=project)
    turn = Message.objects.create(
        conversation=conversation, sequence=1, role="user", content="Add an about page"
    )
    reply = Message.objects.create(
        conversation=conversation, sequence=2, role="assistant", content="Done."
    )
    file_create(
        project=project,
        path="/about.html",
        content="<p>About</p>",
        author=Author.assistant(owner, message_id=reply.pk),
    )
    earlier = Message.objects.create(
        conversation=conversation, sequence=3, role="user", content="And a contact page"
    )
    answer = Message.objects.create(
        conversation=conversation, sequence=4, role="assistant", content="Done."
    )
    file_create(
        project=project,
        path="/contact.html",
        content="<p>Contact</p>",
        author=Author.assistant(owner, message_id=answer.pk),
    )
    undone = changes.turn_undo(user=owner, turn=earlier, keep_changed=False)
    assert not isinstance(undone, UndoRefused)
    site_publish(project=project, user=owner, name="bakery-roles")
    image = ChatImage.objects.create(  # sent with a message: the project's to see
        user=owner,
        project=project,
        message=turn,
        name="mockup.png",
        content_type="image/png",
        size=len(png()),
        width=2,
        height=1,
        data=png(),
    )
    revision = FileRevision.objects.filter(project=project, path="/index.html").first()
    assert revision is not None
    return World(project, people, conversation, turn, reply, undone.pk, revision.pk, image.pk)


def _client(world: World, person: Person) -> Client:
    client = Client()
    if person != "anonymous":
        client.force_login(world.people[person])
    return client


def _ask(world: World, name: str, person: Person) -> tuple[int, str, str]:
    page = PAGES[name]
    url = reverse(name, kwargs=page.kwargs(world))
    if page.query:
        url += "?" + page.query
    client = _client(world, person)
    asked = client.get if page.method == "get" else client.post
    response = asked(url, page.data(world)) if page.method == "post" else asked(url)
    body = b"" if getattr(response, "streaming", False) else response.content
    return response.status_code, body.decode("utf-8", "replace"), response.get("Location", "")


def _role(person: Person) -> Role | None:
    return person if person in ("owner", "editor", "viewer") else None


# Async views read the database from a pool thread: their rows must be committed.
ASYNC = {"conversation_compact", "draft_improve"}


@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.parametrize("name", sorted(set(PAGES) - ASYNC))
def test_each_person_gets_what_their_role_allows(world: World, name: str, person: Person) -> None:
    _check(world, name, person)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.parametrize("name", sorted(ASYNC))
def test_each_person_gets_what_their_role_allows_of_an_async_page(
    world: World, name: str, person: Person
) -> None:
    _check(world, name, person)


def _check(world: World, name: str, person: Person) -> None:
    page = PAGES[name]
    status, body, location = _ask(world, name, person)
    role = _role(person)
    if person == "anonymous":
        assert status == 302, status
        assert location.startswith("/accounts/login/"), location
    elif role is None:
        assert status == 404, status
        assert NOT_FOUND in body, body[:300]
    elif page.action in ACTIONS[role]:
        # Through the rule: what the page answers (a 404 here is the page's
        # own, in its words: "no edit of yours to take back").
        assert status != 403, body[:300]
        assert status < 500, body[:300]
        assert NOT_FOUND not in body, body[:300]
    else:
        assert status == 403, (status, body[:300])
        assert refusal(page.action, role) in body.replace("&#x27;", "'")


@pytest.mark.parametrize("person", ["owner", "editor", "viewer", "stranger"])
@pytest.mark.parametrize("name", sorted(TRASH))
def test_the_trash_is_no_one_s_for_a_project_out_of_it(
    world: World, name: str, person: Person
) -> None:
    url = reverse(name, kwargs={"project_id": world.project.pk})
    assert _client(world, person).post(url).status_code == 404


def test_a_refusal_in_htmx_is_one_line_in_words(world: World) -> None:
    client = _client(world, "viewer")
    url = reverse("file_save", kwargs={"project_id": world.project.pk})
    response = client.post(url, {**_PATH, "content": "x"}, headers={"HX-Request": "true"})
    assert response.status_code == 403
    said = response.content.decode().replace("&#x27;", "'")
    assert said == (
        '<span class="status error" role="alert">Viewers cannot change the project\'s files.</span>'
    )


def test_a_role_changed_holds_at_the_next_request(world: World) -> None:
    client = _client(world, "editor")
    url = reverse("file_save", kwargs={"project_id": world.project.pk})
    Membership.objects.filter(user=world.people["editor"]).update(role="viewer")
    assert client.post(url, {**_PATH, "content": "x"}).status_code == 403
    Membership.objects.filter(user=world.people["editor"]).delete()
    assert client.post(url, {**_PATH, "content": "x"}).status_code == 404


@pytest.mark.parametrize("name", sorted(n for n, kind in OTHERS.items() if n and kind == "login"))
def test_a_page_of_no_project_asks_someone_signed_out_to_sign_in(db: None, name: str) -> None:
    kwargs = {"token": "x" * 43} if name == "invitation_open" else {}
    response = Client().get(reverse(name, kwargs=kwargs))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
