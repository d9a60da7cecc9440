"""A caller's own refusal of a text (services.ContentCheck): the file service asks
it with the text a write replaces and the new one, and a refusal writes nothing.
The model's file tools refuse lazy writes this way (tests/chat/tools/test_lazy_writes.py)."""

from __future__ import annotations

import pytest

from projects.files.results import ErrorCode, FileError, FileWrite
from projects.models import FileRevision, Project, ProjectFile
from projects.services import Author, Edit, file_create, file_edit, file_update

pytestmark = pytest.mark.django_db

INDEX = "<h1>Hello</h1>\n<p>Welcome</p>\n"


class Recorder:
    """A check that remembers what it was asked and refuses text holding "TODO"."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def __call__(self, old: str, new: str) -> str | None:
        self.asked.append((old, new))
        return "No TODO, please." if "TODO" in new else None


def refused(result: object) -> FileError:
    assert isinstance(result, FileError), result
    assert (result.code, result.message) == (ErrorCode.INVALID_CONTENT, "No TODO, please.")
    return result


@pytest.fixture
def site(project: Project, author: Author) -> Project:
    assert isinstance(
        file_create(project=project, path="/index.html", content=INDEX, author=author), FileWrite
    )
    return project


def test_create_asks_the_check_with_no_old_text_and_stores_nothing_refused(project, author):
    check = Recorder()

    result = file_create(
        project=project, path="/a.html", content="<p>TODO</p>", author=author, check=check
    )

    assert refused(result).path == "/a.html"
    assert check.asked == [("", "<p>TODO</p>")]
    assert not ProjectFile.objects.filter(project=project).exists()
    assert not FileRevision.objects.filter(project=project).exists()


def test_update_asks_the_check_with_the_text_it_replaces(site, author):
    check = Recorder()

    result = file_update(
        project=site, path="/index.html", content="TODO\n", author=author, check=check
    )

    assert (refused(result).path, refused(result).current_version) == ("/index.html", 1)
    assert check.asked == [(INDEX, "TODO\n")]
    assert ProjectFile.objects.get(project=site, path="/index.html").content == INDEX


def test_edit_asks_the_check_with_the_file_as_the_edits_leave_it(site, author):
    check = Recorder()

    result = file_edit(
        project=site,
        path="/index.html",
        edits=[Edit("Welcome", "TODO")],
        author=author,
        check=check,
    )

    refused(result)
    assert check.asked == [(INDEX, INDEX.replace("Welcome", "TODO"))]
    assert FileRevision.objects.filter(project=site).count() == 1  # the creation only


def test_a_text_the_check_lets_through_is_written(site, author):
    result = file_update(
        project=site, path="/index.html", content="<h1>Hi</h1>\n", author=author, check=Recorder()
    )

    assert isinstance(result, FileWrite), result
    assert ProjectFile.objects.get(project=site, path="/index.html").content == "<h1>Hi</h1>\n"
