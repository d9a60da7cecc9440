"""A running server for the `git` command line to talk to, and helpers to
drive it: clone, commit, push, as a person does in a terminal."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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


@dataclass
class Git:
    """The `git` command line, with a home of its own (no config of the machine's)."""

    home: Path

    def __call__(self, *args: str, cwd: Path | None = None, check: bool = True) -> str:
        done = self.run(*args, cwd=cwd)
        if check and done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.home),
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Ada",
            "GIT_AUTHOR_EMAIL": "ada@example.com",
            "GIT_COMMITTER_NAME": "Ada",
            "GIT_COMMITTER_EMAIL": "ada@example.com",
            "LC_ALL": "C",
        }
        return subprocess.run(  # noqa: S603
            ["git", *args],  # noqa: S607
            cwd=cwd or self.home,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


@pytest.fixture
def git(tmp_path: Path) -> Git:
    home = tmp_path / "home"
    home.mkdir()
    runner = Git(home)
    runner("config", "--global", "init.defaultBranch", "main")
    return runner


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
