"""Undo never overwrites a save it did not see, across two
real server processes: in each round the person's save goes to one and
"Undo this turn" to the other, at once. Either the save lands first and the
undo sees the file as changed since (and leaves it, saying why), or the undo
lands first and the save is refused as stale (the editor keeps the text).
Never both succeed with the person's text gone from the file.

The review saw the save overwritten in 11 of 60 tries; a small, varying head
start for the save sweeps it across the undo's window between its plan and its
writes, where the race was.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

import httpx
import pytest
from django.contrib.auth.models import User
from django.test import Client

from chat.models import Conversation, Message
from chat.services import conversation_create, message_create, message_user_create
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_update
from tests.servers import ServerProcess, server_start, shared_settings

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 200


@dataclass
class Person:
    """A signed-in browser's cookies and CSRF token, valid on every server."""

    cookies: dict[str, str]
    csrf: str

    def post(self, server: ServerProcess, path: str, data: dict[str, str]) -> httpx.Response:
        headers = {"X-CSRFToken": self.csrf, "HX-Request": "true", "Origin": server.url}
        return httpx.post(
            server.url + path, data=data, headers=headers, cookies=self.cookies, timeout=30
        )


@pytest.fixture
def servers(transactional_db: None) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    first = server_start(shared_settings())
    try:
        second = server_start(shared_settings())
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()


def signed_in(user: User, server: ServerProcess, project: Project) -> Person:
    client = Client()
    client.force_login(user)
    cookies = {"sessionid": client.cookies["sessionid"].value}
    page = httpx.get(f"{server.url}/projects/{project.pk}/", cookies=cookies, timeout=30)
    assert page.status_code == 200
    return Person({**cookies, "csrftoken": page.cookies["csrftoken"]}, page.cookies["csrftoken"])


def a_turn_changing(conversation: Conversation, path: str, sequence: int) -> tuple[Message, int]:
    """A turn whose assistant rewrote `path`: its person's message, and the
    file's version after it (what the person's editor holds)."""
    turn = message_user_create(
        conversation=conversation, sequence=sequence, text=f"Rewrite {path}", model="m"
    )
    reply = message_create(
        conversation=conversation, sequence=sequence + 1, role=Message.Role.ASSISTANT
    )
    written = file_update(
        project=conversation.project,
        path=path,
        content=f"the assistant's {path}",
        author=Author.assistant(message_id=reply.pk),
    )
    assert isinstance(written, FileWrite)
    assert written.version is not None
    return turn, written.version


def at_once(
    undo: Callable[[], httpx.Response], save: Callable[[], httpx.Response], head_start: float
) -> tuple[httpx.Response, httpx.Response]:
    """The undo and the save, sent together (the save `head_start` seconds later)."""
    start = threading.Barrier(2)
    answers: dict[str, httpx.Response] = {}

    def send(name: str, request: Callable[[], httpx.Response], delay: float) -> None:
        start.wait()
        threading.Event().wait(delay)
        answers[name] = request()

    workers = [
        threading.Thread(target=send, args=("undo", undo, 0.0)),
        threading.Thread(target=send, args=("save", save, head_start)),
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    return answers["undo"], answers["save"]


def test_a_save_racing_an_undo_on_another_process_is_never_lost(
    servers: tuple[ServerProcess, ServerProcess], user: User
) -> None:
    undoing, saving = servers
    project = project_create(owner=user, name="Race")
    assert isinstance(project, Project)
    conversation = conversation_create(project=project)
    person = signed_in(user, undoing, project)
    rng = random.Random(26)
    outcomes = {"save first": 0, "undo first": 0}

    for round_ in range(ROUNDS):
        path = f"/page-{round_}.html"
        assert isinstance(
            file_create(project=project, path=path, content="before", author=Author.person(user)),
            FileWrite,
        )
        turn, version = a_turn_changing(conversation, path, 2 * round_ + 1)
        mine = f"the person's text, round {round_}"
        undone, saved = at_once(
            partial(person.post, undoing, f"/projects/{project.pk}/turns/{turn.pk}/undo/", {}),
            partial(
                person.post,
                saving,
                f"/projects/{project.pk}/files/save/",
                {"path": path, "content": mine, "version": str(version)},
            ),
            rng.uniform(0, 0.02),
        )

        now = ProjectFile.objects.get(project=project, path=path).content
        if saved.status_code == 200:
            assert now == mine, f"round {round_}: the save was answered 'saved', then overwritten"
            assert undone.status_code == 409, f"round {round_}: the undo did not see the save"
            assert path in undone.text, "the undo says which file changed since"
            outcomes["save first"] += 1
        else:
            assert saved.status_code == 409, f"round {round_}: the save answered {saved}"
            assert "changed since it was opened" in saved.text
            assert undone.status_code == 200
            assert now == "before"
            outcomes["undo first"] += 1

    # Both orders happened, so the race was run, not just one side of it.
    assert outcomes["save first"] > 0, outcomes
    assert outcomes["undo first"] > 0, outcomes
