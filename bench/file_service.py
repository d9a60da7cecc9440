"""Latency of the file service and the preview on the default SQLite database.

Not a test: prints figures. Run with `.venv/bin/python bench/file_service.py`.
Every future tool call goes through these functions, so they set the floor
for "tool call complete -> tool result" in the chat loop.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from projects.files.editing import Edit
from projects.lifecycle import project_create
from projects.models import Project
from projects.selectors import file_read, file_search
from projects.services import Author, file_create, file_edit, file_update

ROUNDS = 200
PAGE = (
    "<!doctype html>\n<html><body>\n"
    + "<p>Lorem ipsum dolor sit amet.</p>\n" * 200
    + "</body></html>\n"
)


def measure(label: str, action: Callable[[int], object]) -> None:
    samples = []
    for i in range(ROUNDS):
        start = time.perf_counter()
        action(i)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p50 = statistics.median(samples)
    p95 = samples[int(len(samples) * 0.95) - 1]
    print(f"{label:<34} p50 {p50:6.2f} ms   p95 {p95:6.2f} ms   ({ROUNDS} rounds)")


def main() -> None:
    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", password="bench-password-1")
    project = project_create(owner=user, name="Bench")
    assert isinstance(project, Project)
    author = Author.person(user)
    print(f"SQLite in {os.environ['BUILTIT_DATA_DIR']}, page of {len(PAGE)} bytes")

    measure(
        "file_create",
        lambda i: file_create(project=project, path=f"/p{i}.html", content=PAGE, author=author),
    )
    measure(
        "file_update (whole file)",
        lambda i: file_update(
            project=project, path=f"/p{i}.html", content=PAGE + "<!-- u -->\n", author=author
        ),
    )
    measure(
        "file_edit (one search/replace)",
        lambda i: file_edit(
            project=project,
            path=f"/p{i}.html",
            edits=[Edit("<!-- u -->", "<!-- e -->")],
            author=author,
        ),
    )
    measure("file_read", lambda i: file_read(project, f"/p{i}.html"))
    measure(
        "file_search (200 files, 1.5 MB)",
        lambda i: file_search(project, "ipsum dolor", max_results=50),
    )
    client = Client(HTTP_HOST="127.0.0.1")
    token = project.preview_token

    def preview(i: int) -> None:
        response = client.get(f"/preview/{token}/p{i}.html")
        if response.status_code != 200:
            raise SystemExit(f"preview answered {response.status_code}; figures would be wrong")

    measure("preview GET (in-process client)", preview)


if __name__ == "__main__":
    main()
