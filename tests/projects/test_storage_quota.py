"""A storage quota per person: files and their history,
across all of a person's projects and their trash, bound by
BUILTIT_MAX_USER_STORAGE_BYTES; a write past it is refused in words that say
how to make room, from the editor, the model's tools and imports alike."""

from __future__ import annotations

import io
import random
import zipfile

import pytest
from django.contrib.auth.models import User
from django.test import Client

from projects.files.results import ErrorCode, FileError, FileWrite
from projects.lifecycle import project_create, project_purge, project_trash
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_update
from projects.usage import storage_used

KIB = 1024


def _text(n: int, size: int) -> str:
    """`size` bytes that do not compress much, different for each n."""
    rng = random.Random(n)
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789 \n") for _ in range(size))


def _write(result: FileWrite | FileError) -> FileWrite:
    assert isinstance(result, FileWrite), result
    return result


def test_history_counts_and_the_quota_refuses_in_words(
    settings, project: Project, author: Author, user: User
) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 120 * KIB
    _write(file_create(project=project, path="/a.txt", content=_text(0, 40 * KIB), author=author))
    used_once = storage_used(user.pk)
    assert 60 * KIB < used_once < 90 * KIB, "the file, plus its text in history"

    _write(file_update(project=project, path="/a.txt", content=_text(1, 40 * KIB), author=author))
    assert storage_used(user.pk) > used_once + 20 * KIB, "the old text stays in history"

    refused = file_update(project=project, path="/a.txt", content=_text(2, 40 * KIB), author=author)

    assert isinstance(refused, FileError)
    assert refused.code == ErrorCode.STORAGE_FULL
    assert "of 120 KiB" in refused.message
    assert "deleting them for good from the Trash" in refused.message
    assert ProjectFile.objects.get(project=project, path="/a.txt").content == _text(1, 40 * KIB)


def test_the_quota_spans_projects_and_the_trash_and_purging_makes_room(
    settings, user: User, author: Author
) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 180 * KIB
    first = project_create(owner=user, name="First")
    second = project_create(owner=user, name="Second")
    assert isinstance(first, Project)
    assert isinstance(second, Project)
    _write(file_create(project=first, path="/big.txt", content=_text(0, 80 * KIB), author=author))
    assert project_trash(project=first) is None

    refused = file_create(project=second, path="/b.txt", content=_text(1, 60 * KIB), author=author)
    assert isinstance(refused, FileError)
    assert refused.code == ErrorCode.STORAGE_FULL

    assert project_purge(project=first) is None
    _write(file_create(project=second, path="/b.txt", content=_text(1, 60 * KIB), author=author))


def test_one_persons_storage_does_not_count_against_another(
    settings, project: Project, author: Author, other_user: User
) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 200 * KIB
    _write(file_create(project=project, path="/a.txt", content=_text(0, 90 * KIB), author=author))
    theirs = project_create(owner=other_user, name="Theirs")
    assert isinstance(theirs, Project)
    _write(
        file_create(
            project=theirs, path="/a.txt", content=_text(1, 90 * KIB),
            author=Author.person(other_user),
        )
    )  # fmt: skip


def test_zero_means_no_quota(settings, project: Project, author: Author) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 0
    for n in range(4):
        _write(
            file_create(
                project=project, path=f"/{n}.txt", content=_text(n, 100 * KIB), author=author
            )
        )


def test_an_import_past_the_quota_is_refused_and_adds_nothing(
    settings, user_client: Client, user: User
) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 100 * KIB
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        for n in range(3):
            zipped.writestr(f"page{n}.html", _text(n, 40 * KIB))
    archive.seek(0)
    archive.name = "site.zip"

    response = user_client.post("/projects/import/", {"archive": archive}, follow=True)

    assert "would pass the project owner&#x27;s storage" in response.content.decode()
    assert not Project.objects.filter(owner=user).exists()


@pytest.mark.parametrize("path", ["/", "/trash/"])
def test_people_see_what_they_use(
    settings, user_client: Client, path: str, project, author
) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 200 * KIB
    _write(file_create(project=project, path="/a.txt", content=_text(0, 40 * KIB), author=author))
    page = user_client.get(path).content.decode()
    assert "of 200 KiB used" in page


def test_a_nearly_full_storage_is_said_before_writes_are_refused(
    settings, user_client: Client, project: Project, author: Author
) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 150 * KIB
    _write(file_create(project=project, path="/a.txt", content=_text(0, 40 * KIB), author=author))
    assert "Nearly full" not in user_client.get("/").content.decode()
    _write(file_create(project=project, path="/b.txt", content=_text(1, 60 * KIB), author=author))
    assert "Nearly full" in user_client.get("/").content.decode()
