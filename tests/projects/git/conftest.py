"""A running server for the `git` command line (tests.gitcli) to talk to, and
what the tests make: tokens, turns."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User

from chat.access_tokens import NewToken, token_create
from chat.models import Conversation, Message
from projects.models import Project
from projects.services import Author, file_create
from tests.servers import ServerProcess, server_start, shared_settings


@pytest.fixture(scope="module")
def git_server(
    django_db_setup: None, django_db_blocker: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        server = server_start(shared_settings())
    yield server
    server.stop()


def address(server: ServerProcess, project: Project, token: str, name: str = "ada") -> str:
    return f"http://{name}:{token}@127.0.0.1:{server.port}/git/{project.pk}.git"


def make_token(user: User, *, can_write: bool = True) -> str:
    made = token_create(user=user, name="git", can_write=can_write)
    assert isinstance(made, NewToken)
    return made.secret


def turn(project: Project, user: User, request: str, files: dict[str, str]) -> None:
    """A finished turn: the person's request, the assistant's message whose
    tool calls wrote `files`."""
    conversation = project.conversations.first() or Conversation.objects.create(project=project)
    sequence = conversation.messages.count()
    Message.objects.create(
        conversation=conversation, sequence=sequence, role="user", content=request
    )
    reply = Message.objects.create(
        conversation=conversation, sequence=sequence + 1, role="assistant", content="Done."
    )
    for path, content in files.items():
        author = Author.assistant(user, message_id=reply.pk)
        result = file_create(project=project, path=path, content=content, author=author)
        assert not hasattr(result, "code"), result
