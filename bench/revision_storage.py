"""What history costs on disk: 100 saves of a 512 KiB
page, each a small edit in the middle, as the editor or the model makes them.

Not a test: prints figures. Run with `.venv/bin/python bench/revision_storage.py`.

A fresh SQLite database in a temporary folder (migrated, VACUUMed); the figure
is the growth of the database file (WAL checkpointed) and the wall time of the
100 saves. The page is HTML-like text of random words, which compresses about
as well as a real page does (a little worse).
"""

from __future__ import annotations

import os
import random
import string
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ["BUILTIT_DATA_DIR"] = DATA
os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ["BUILTIT_MAX_USER_STORAGE_BYTES"] = "0"  # measure the storage, not the quota
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection

from projects.lifecycle import project_create
from projects.models import Project
from projects.services import Author, file_create, file_update

SAVES = 100


def page(size: int) -> str:
    words = random.Random(0)
    out: list[str] = []
    total = 0
    while total < size:
        word = "".join(words.choices(string.ascii_lowercase, k=words.randint(2, 9)))
        piece = f"<p class='w'>{word}</p>\n" if words.random() < 0.2 else word + " "
        out.append(piece)
        total += len(piece)
    return "".join(out)[:size]


def database_bytes() -> int:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return Path(settings.DATABASES["default"]["NAME"]).stat().st_size


def main() -> None:
    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM")
    owner = User.objects.create_user("bench")
    project = project_create(owner=owner, name="Bench")
    assert isinstance(project, Project)
    author = Author.person(owner)
    size = settings.BUILTIT_MAX_FILE_BYTES - 64
    base = page(size)
    file_create(project=project, path="/big.html", content=base, author=author)
    start_bytes = database_bytes()
    started = time.perf_counter()
    for n in range(1, SAVES + 1):
        text = base[: size // 2] + f"<!-- save {n} -->" + base[size // 2 :]
        file_update(project=project, path="/big.html", content=text, author=author)
    took = time.perf_counter() - started
    grown = database_bytes() - start_bytes
    print(
        f"{SAVES} saves of a {size / 1024:.0f} KiB page: database grew by "
        f"{grown / 2**20:.1f} MiB in {took:.1f} s ({grown / SAVES / 1024:.0f} KiB a save)"
    )


if __name__ == "__main__":
    main()
