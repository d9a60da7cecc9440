"""A project as a Git repository: cloning a large project, and a push of one
changed file, with the real `git` command line against daphne.

Not a test: prints figures. Run with `.venv/bin/python bench/git.py`
(`--files 300 --turns 200 --pushes 10`).

The targets (issue 43): cloning a project of 300 files and 200 turns of
history takes at most 2 s, and a push of one changed file at most 500 ms to
apply (p50 of ten). A project of `--files` files (pages of about 2 KB, some
stylesheets and scripts, in a few folders) is made through the file service
on a temporary SQLite database, then `--turns` turns of the assistant each
edit three files (a person's request, an assistant message, its revisions), so
the history has one commit per file made plus one per turn. One daphne serves
`builtit.asgi:application` as production runs it. Cloned twice: once by the
first request the process serves (it walks the whole revision log and keeps
its commits), and again (the walk kept). Then ten pushes, each changing one
file in a fresh commit on the clone, timed from `git push` to its exit (two
HTTP requests: the refs, then the pack, applied through the file service).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--pushes", type=int, default=10)
    return parser.parse_args()


ARGS = arguments()
WORK = Path(tempfile.mkdtemp(prefix="builtit-bench-git-"))
os.environ["BUILTIT_DATA_DIR"] = str(WORK / "data")
os.environ["BUILTIT_HTTPS"] = "0"
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"
os.environ["DEBUG"] = "0"
os.environ["LOG_LEVEL"] = "WARNING"
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

from django.contrib.auth.models import User
from django.core.management import call_command

from bench import fanout_servers as servers
from chat.access_tokens import NewToken, token_create
from chat.models import Conversation, Message
from projects.lifecycle import project_create
from projects.models import FileRevision, Project
from projects.services import Author, file_create, file_update


def page(index: int, version: int) -> str:
    body = "".join(
        f"<p>Paragraph {line} of page {index}, as of version {version}.</p>\n" for line in range(30)
    )
    return f"<!doctype html>\n<html><body>\n<h1>Page {index}</h1>\n{body}</body></html>\n"


def path_of(index: int) -> str:
    folder = ("", "/blog", "/shop", "/docs/guide")[index % 4]
    extension = (".html", ".html", ".css", ".js")[index % 4]
    return f"{folder}/file-{index}{extension}"


def project_made() -> tuple[Project, str]:
    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", password="bench-password-1")
    made = project_create(owner=user, name="Bench")
    assert isinstance(made, Project)
    person = Author.person(user)
    for index in range(ARGS.files):
        file_create(project=made, path=path_of(index), content=page(index, 0), author=person)
    conversation = Conversation.objects.create(project=made)
    for turn in range(ARGS.turns):
        Message.objects.create(
            conversation=conversation, sequence=2 * turn, role="user", content=f"Change {turn}"
        )
        reply = Message.objects.create(
            conversation=conversation, sequence=2 * turn + 1, role="assistant", content="Done."
        )
        author = Author.assistant(user, message_id=reply.pk)
        for offset in range(3):
            index = (turn * 7 + offset * 101) % ARGS.files
            content = page(index, turn + 1)
            file_update(project=made, path=path_of(index), content=content, author=author)
    token = token_create(user=user, name="bench")
    assert isinstance(token, NewToken)
    return made, token.secret


def git(*args: str, cwd: Path) -> float:
    """Seconds `git args` took."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(WORK),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "Bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "Bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
    }
    start = time.perf_counter()
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=False)  # noqa: S603, S607
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed:\n{done.stderr.decode()}")
    return took


def main() -> None:
    started = time.perf_counter()
    project, token = project_made()
    revisions = FileRevision.objects.filter(project=project).count()
    print(
        f"project: {ARGS.files} files, {ARGS.turns} turns, {revisions} revisions "
        f"(made in {time.perf_counter() - started:.1f} s)"
    )
    server = servers.start("daphne", ROOT, 1, WORK / "daphne.log")
    try:
        url = f"http://bench:{token}@127.0.0.1:{server.port}/git/{project.pk}.git"
        cold = git("clone", "-q", url, "first", cwd=WORK)
        warm = git("clone", "-q", url, "second", cwd=WORK)
        commits = subprocess.run(
            ["git", "rev-list", "--count", "HEAD"],  # noqa: S607
            cwd=WORK / "first",
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        print(f"clone, the process's first request: {cold * 1000:7.0f} ms ({commits} commits)")
        print(f"clone, again:                       {warm * 1000:7.0f} ms")
        clone = WORK / "first"
        pushes = []
        for round_ in range(ARGS.pushes):
            target = clone / path_of(round_ * 13 % ARGS.files).lstrip("/")
            target.write_text(page(round_, 1000 + round_))
            git("commit", "-q", "-am", f"Push {round_}", cwd=clone)
            pushes.append(git("push", "-q", "origin", "main", cwd=clone))
        pushes.sort()
        print(
            f"push of one changed file:           p50 {statistics.median(pushes) * 1000:5.0f} ms"
            f"   max {pushes[-1] * 1000:5.0f} ms   ({ARGS.pushes} pushes)"
        )
    finally:
        servers.stop(server)


if __name__ == "__main__":
    main()
