"""History stored compactly: each text once per project,
compressed; the migration that moved existing revisions keeps them readable."""

from __future__ import annotations

import random
import string

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from projects.files.blobs import MAX_DEPTH, blob_for, shared_ends
from projects.files.results import FileError, FileWrite
from projects.history.revisions import file_history, revision_state
from projects.models import FileRevision, Project, RevisionBlob
from projects.services import file_create, file_update


def _page(seed: int, size: int) -> str:
    """An HTML-like text of `size` characters, different for each seed."""
    words = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < size:
        word = "".join(words.choices(string.ascii_lowercase, k=words.randint(2, 9)))
        piece = f"<p class='w'>{word}</p>\n" if words.random() < 0.2 else word + " "
        out.append(piece)
        total += len(piece)
    return "".join(out)[:size]


def test_a_hundred_saves_of_a_big_file_store_far_less_than_two_texts_each(project, author) -> None:
    size = 512 * 1024 - 64  # the largest file allowed, less room for the marks
    base = _page(0, size)
    result = file_create(project=project, path="/big.html", content=base, author=author)
    assert isinstance(result, FileWrite)
    for n in range(1, 101):
        # An edit in the middle, as a person or the model would make.
        text = base[: size // 2] + f"<!-- save {n} -->" + base[size // 2 :]
        assert isinstance(
            file_update(project=project, path="/big.html", content=text, author=author), FileWrite
        )

    stored = sum(RevisionBlob.objects.filter(project=project).values_list("stored_size", flat=True))
    # The old layout kept both texts of every change: 101 revisions, ~100 MiB.
    old_layout = 2 * 100 * size
    assert RevisionBlob.objects.filter(project=project).count() == 101
    # Each change keeps only what changed, and the chain of changes starts a
    # whole text again every MAX_DEPTH + 1: a few whole texts, not 200.
    assert stored < old_layout / 20
    last = FileRevision.objects.filter(project=project).order_by("-id").first()
    assert last is not None
    assert last.content_after is not None
    assert "<!-- save 100 -->" in last.content_after
    assert last.content_before is not None
    assert "<!-- save 99 -->" in last.content_before


def test_a_text_seen_again_reuses_its_blob(project, author) -> None:
    file_create(project=project, path="/a.html", content="one", author=author)
    file_update(project=project, path="/a.html", content="two", author=author)
    file_update(project=project, path="/a.html", content="one", author=author)

    assert sorted(RevisionBlob.objects.filter(project=project).values_list("size", flat=True)) == [
        3,
        3,
    ]
    history = file_history(project, "/a.html")
    assert not isinstance(history, FileError)
    assert [rev.chars for rev in history] == [3, 3, 3]


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_every_existing_revision_readable() -> None:
    executor = MigrationExecutor(connection)
    old = [("projects", "0004_project_trash"), ("chat", "0005_person_limits")]
    executor.migrate(old)
    old_apps = executor.loader.project_state(old).apps
    User = old_apps.get_model("auth", "User")
    OldProject = old_apps.get_model("projects", "Project")
    Revision = old_apps.get_model("projects", "FileRevision")
    owner = User.objects.create(username="old-timer")
    project = OldProject.objects.create(owner=owner, name="Before the change")
    texts = ["<h1>Café ☕</h1>", "<h1>Café ☕</h1>\n<p>more</p>", ""]
    Revision.objects.create(
        project=project, action="create", path="index.html", content_before=None,
        content_after=texts[0], version_after=1, actor="user",
    )  # fmt: skip
    Revision.objects.create(
        project=project, action="update", path="index.html", content_before=texts[0],
        content_after=texts[1], version_after=2, actor="assistant",
    )  # fmt: skip
    Revision.objects.create(
        project=project, action="update", path="index.html", content_before=texts[1],
        content_after=texts[2], version_after=3, actor="user",
    )  # fmt: skip
    Revision.objects.create(
        project=project, action="delete", path="index.html", content_before=texts[2],
        content_after=None, version_after=None, actor="user",
    )  # fmt: skip

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    rows = list(FileRevision.objects.filter(project_id=project.pk).order_by("id"))
    assert [(row.content_before, row.content_after) for row in rows] == [
        (None, texts[0]),
        (texts[0], texts[1]),
        (texts[1], texts[2]),
        (texts[2], None),
    ]
    # Three distinct texts, each stored once.
    assert RevisionBlob.objects.filter(project_id=project.pk).count() == 3
    state = revision_state(Project.all_objects.get(pk=project.pk), rows[1].pk)
    assert not isinstance(state, FileError)
    assert state.content == texts[1]

    # And back: the texts return to their columns.
    executor = MigrationExecutor(connection)
    executor.migrate([("projects", "0004_project_trash")])
    back = executor.loader.project_state([("projects", "0004_project_trash")]).apps
    old_rows = back.get_model("projects", "FileRevision").objects.order_by("id")
    assert [(row.content_before, row.content_after) for row in old_rows] == [
        (None, texts[0]),
        (texts[0], texts[1]),
        (texts[1], texts[2]),
        (texts[2], None),
    ]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("abcdef", "abXYef"),
        ("aaaa", "aaaaaa"),  # grows inside a run: the ends must not overlap
        ("aaaaaa", "aaaa"),
        ("", "new"),
        ("old", ""),
        ("same start", "same start, longer"),
        ("x" * 10_000 + "middle" + "y" * 10_000, "x" * 10_000 + "MIDDLE!" + "y" * 10_000),
        ("é☕" * 5000, "é☕" * 2500 + "∑" + "é☕" * 2500),
    ],
)
def test_a_change_kept_as_its_shared_ends_rebuilds_exactly(project, author, old, new) -> None:
    """Whatever two texts share, the blob made from the first rebuilds the second."""
    prefix, suffix = shared_ends(old, new)
    assert prefix + suffix <= min(len(old), len(new))
    assert new[:prefix] == old[:prefix]
    assert new[len(new) - suffix :] == old[len(old) - suffix :]
    base = blob_for(project, old)
    made = blob_for(project, new, base=base, base_text=old)
    assert made is not None
    assert RevisionBlob.objects.get(pk=made.pk).text == new


def test_a_long_line_of_changes_rebuilds_every_version_and_stays_shallow(project, author) -> None:
    versions = [_page(1, 20_000)]
    for n in range(1, 60):
        at = (n * 997) % len(versions[-1])
        versions.append(versions[-1][:at] + f"<b>{n}</b>" + versions[-1][at + 3 :])
    file_create(project=project, path="/a.html", content=versions[0], author=author)
    for text in versions[1:]:
        assert isinstance(
            file_update(project=project, path="/a.html", content=text, author=author), FileWrite
        )

    rows = FileRevision.objects.filter(project=project).order_by("id")
    assert [row.content_after for row in rows] == versions
    assert max(RevisionBlob.objects.filter(project=project).values_list("depth", flat=True)) <= (
        MAX_DEPTH
    )
