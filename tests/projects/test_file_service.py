"""The file service (the only writer of project files) and the read selectors, against the
real database: revisions, optimistic locking, placement rules, limits, reads and search."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import AnonymousUser

from projects.access import project_for_person
from projects.files.paths import ALLOWED_EXTENSIONS
from projects.files.results import ErrorCode, FileContent, FileError, FileWrite, SearchResults
from projects.lifecycle import project_create
from projects.models import FileRevision, Project, ProjectFile
from projects.selectors import (
    file_list,
    file_read,
    file_search,
    project_list_for,
)
from projects.services import (
    Author,
    Edit,
    file_create,
    file_delete,
    file_edit,
    file_rename,
    file_update,
)
from projects.starter import STARTER_FILES

LONG_AGO = datetime(2001, 1, 1, tzinfo=UTC)


def ok(result: object) -> FileWrite:
    assert isinstance(result, FileWrite), result
    return result


def refused(result: object, code: ErrorCode) -> FileError:
    assert isinstance(result, FileError), f"expected {code}, got {result!r}"
    assert result.code == code, result
    return result


def content_of(project: Project, path: str) -> str:
    return ProjectFile.objects.get(project=project, path=path).content


def revisions(project: Project) -> list[FileRevision]:
    return list(FileRevision.objects.filter(project=project).order_by("id"))


def paths_of(project: Project) -> list[str]:
    return list(ProjectFile.objects.filter(project=project).values_list("path", flat=True))


@pytest.fixture
def site(project: Project, author: Author) -> Project:
    """The empty project with one known file, /index.html (3 lines)."""
    ok(file_create(project=project, path="/index.html", content=INDEX, author=author))
    return project


INDEX = "<h1>Hello</h1>\n<p>Welcome</p>\n<p>Bye</p>\n"


# --- create ------------------------------------------------------------------


def test_create_stores_the_file_at_version_one(project, author):
    write = ok(file_create(project=project, path="/about.html", content="<p>Hi</p>", author=author))
    record = ProjectFile.objects.get(project=project, path="/about.html")
    assert (record.content, record.version, record.size) == ("<p>Hi</p>", 1, 9)
    assert (write.path, write.action, write.version, write.size) == ("/about.html", "create", 1, 9)


def test_create_normalises_a_path_without_leading_slash(project, author):
    write = ok(file_create(project=project, path="css/site.css", content="", author=author))
    assert write.path == "/css/site.css"
    assert paths_of(project) == ["/css/site.css"]


def test_create_counts_size_in_utf8_bytes(project, author):
    write = ok(file_create(project=project, path="/a.txt", content="café ☕", author=author))
    assert write.size == len("café ☕".encode())
    assert ProjectFile.objects.get(path="/a.txt").size == 9


def test_create_accepts_empty_content(project, author):
    write = ok(file_create(project=project, path="/empty.txt", content="", author=author))
    assert write.size == 0


def test_create_records_a_create_revision(project, author, user):
    write = ok(file_create(project=project, path="/a.html", content="A", author=author))
    [revision] = revisions(project)
    assert revision.pk == write.revision_id
    assert revision.action == FileRevision.Action.CREATE
    assert revision.actor == FileRevision.Actor.USER
    assert revision.user == user
    assert revision.path == "/a.html"
    assert revision.old_path == ""
    assert revision.content_before is None
    assert revision.content_after == "A"
    assert revision.version_after == 1


def test_create_by_the_assistant_is_recorded_as_the_assistant(project, user):
    ok(file_create(project=project, path="/a.html", content="A", author=Author.assistant(user)))
    ok(file_create(project=project, path="/b.html", content="B", author=Author.assistant()))
    first, second = revisions(project)
    assert (first.actor, first.user) == (FileRevision.Actor.ASSISTANT, user)
    assert (second.actor, second.user) == (FileRevision.Actor.ASSISTANT, None)


@pytest.mark.parametrize("path", ["../x.html", "/a/../b.html", "x.php", "", "a b.html", None])
def test_create_refuses_an_invalid_path_and_lists_allowed_extensions(project, author, path):
    error = refused(
        file_create(project=project, path=path, content="x", author=author),
        ErrorCode.INVALID_PATH,
    )
    assert error.allowed_extensions == ALLOWED_EXTENSIONS
    assert paths_of(project) == []
    assert revisions(project) == []


def test_create_refuses_an_existing_path(site, author):
    error = refused(
        file_create(project=site, path="index.html", content="new", author=author),
        ErrorCode.ALREADY_EXISTS,
    )
    assert "already exists" in error.message
    assert content_of(site, "/index.html") == INDEX
    assert len(revisions(site)) == 1


@pytest.mark.parametrize("path", ["/INDEX.html", "/Index.HTML", "/index.HTML"])
def test_create_refuses_a_path_differing_only_in_case(site, author, path):
    error = refused(
        file_create(project=site, path=path, content="x", author=author),
        ErrorCode.ALREADY_EXISTS,
    )
    assert error.suggestion == "/index.html"
    assert "only in letter case" in error.message
    assert paths_of(site) == ["/index.html"]


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        # a file where a folder is needed
        ("/blog.html", "/blog.html/post.html"),
        ("/blog.html", "/BLOG.html/post.html"),
        ("/a.html", "/a.html/b/c.html"),
        ("/a/b.html", "/a/b.html/c.css"),
        # a folder where a file is wanted
        ("/blog.html/post.html", "/blog.html"),
        ("/blog.html/post.html", "/Blog.HTML"),
        ("/a.css/b/c.html", "/a.css"),
        ("/a/b.js/c.html", "/a/B.js"),
    ],
)
def test_create_refuses_a_file_and_folder_sharing_a_name(project, author, existing, new):
    ok(file_create(project=project, path=existing, content="x", author=author))
    error = refused(
        file_create(project=project, path=new, content="y", author=author),
        ErrorCode.ALREADY_EXISTS,
    )
    assert error.suggestion == existing
    assert "cannot share a name" in error.message
    assert paths_of(project) == [existing]


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("/blog/index.html", "/blog.html"),
        ("/blog.html", "/blog/index.html"),
        ("/a.html/x.html", "/a.htm"),
        ("/a.html", "/a.html2/x.html"),
        ("/a/b.html", "/a/b.html.txt"),
        # '_' and '%' would be wildcards in SQL LIKE; they must match only themselves
        ("/a_b.html", "/axb.html"),
        ("/a_b.html/x.html", "/axb.html"),
        ("/a_b.html", "/axb.html/x.html"),
    ],
)
def test_create_allows_names_that_only_look_alike(project, author, existing, new):
    ok(file_create(project=project, path=existing, content="x", author=author))
    ok(file_create(project=project, path=new, content="y", author=author))
    assert sorted(paths_of(project)) == sorted([existing, new])


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("a\x00b", "NUL"),
        ("\x00", "NUL"),
        ("\ud800", "unpaired surrogates"),
        ("ok \udfff ok", "unpaired surrogates"),
        (b"bytes", "must be text"),
        (None, "must be text"),
    ],
)
def test_create_refuses_content_that_is_not_storable_text(project, author, content, problem):
    error = refused(
        file_create(project=project, path="/a.txt", content=content, author=author),
        ErrorCode.INVALID_CONTENT,
    )
    assert problem in error.message
    assert paths_of(project) == []
    assert revisions(project) == []


# --- limits ------------------------------------------------------------------


def test_create_allows_a_file_exactly_at_the_size_limit(project, author, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 10
    ok(file_create(project=project, path="/a.txt", content="x" * 10, author=author))


def test_create_refuses_a_file_over_the_size_limit(project, author, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 10
    error = refused(
        file_create(project=project, path="/a.txt", content="x" * 11, author=author),
        ErrorCode.FILE_TOO_LARGE,
    )
    assert (error.size, error.limit) == (11, 10)
    assert "/a.txt" in error.message
    assert paths_of(project) == []
    assert revisions(project) == []


def test_file_size_limit_counts_bytes_not_characters(project, author, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 10
    refused(
        file_create(project=project, path="/a.txt", content="é" * 6, author=author),
        ErrorCode.FILE_TOO_LARGE,
    )


def test_create_refuses_one_file_too_many(project, author, settings):
    settings.BUILTIT_MAX_FILES = 2
    ok(file_create(project=project, path="/a.txt", content="", author=author))
    ok(file_create(project=project, path="/b.txt", content="", author=author))
    error = refused(
        file_create(project=project, path="/c.txt", content="", author=author),
        ErrorCode.TOO_MANY_FILES,
    )
    assert error.limit == 2
    assert "at most 2 files" in error.message
    assert sorted(paths_of(project)) == ["/a.txt", "/b.txt"]
    assert len(revisions(project)) == 2


def test_create_is_allowed_again_after_a_delete_frees_a_slot(project, author, settings):
    settings.BUILTIT_MAX_FILES = 1
    ok(file_create(project=project, path="/a.txt", content="", author=author))
    ok(file_delete(project=project, path="/a.txt", author=author))
    ok(file_create(project=project, path="/b.txt", content="", author=author))


def test_create_refuses_a_file_that_would_make_the_project_too_large(project, author, settings):
    settings.BUILTIT_MAX_PROJECT_BYTES = 20
    ok(file_create(project=project, path="/a.txt", content="x" * 15, author=author))
    error = refused(
        file_create(project=project, path="/b.txt", content="x" * 6, author=author),
        ErrorCode.PROJECT_TOO_LARGE,
    )
    assert (error.size, error.limit) == (21, 20)
    ok(file_create(project=project, path="/b.txt", content="x" * 5, author=author))


def test_update_refuses_a_file_over_the_size_limit(site, author, settings):
    settings.BUILTIT_MAX_FILE_BYTES = len(INDEX)
    refused(
        file_update(project=site, path="/index.html", content=INDEX + "!", author=author),
        ErrorCode.FILE_TOO_LARGE,
    )
    assert content_of(site, "/index.html") == INDEX
    assert len(revisions(site)) == 1


def test_update_refuses_growth_past_the_project_limit(project, author, settings):
    settings.BUILTIT_MAX_PROJECT_BYTES = 20
    ok(file_create(project=project, path="/a.txt", content="x" * 15, author=author))
    ok(file_create(project=project, path="/b.txt", content="y" * 5, author=author))
    refused(
        file_update(project=project, path="/b.txt", content="y" * 6, author=author),
        ErrorCode.PROJECT_TOO_LARGE,
    )
    assert content_of(project, "/b.txt") == "y" * 5


def test_update_counts_the_replaced_content_only_once(project, author, settings):
    settings.BUILTIT_MAX_PROJECT_BYTES = 20
    ok(file_create(project=project, path="/a.txt", content="x" * 15, author=author))
    ok(file_create(project=project, path="/b.txt", content="y" * 5, author=author))
    ok(file_update(project=project, path="/a.txt", content="z" * 15, author=author))
    ok(file_update(project=project, path="/a.txt", content="z" * 4, author=author))


def test_shrinking_a_file_is_allowed_in_a_project_over_the_limit(project, author, settings):
    ok(file_create(project=project, path="/a.txt", content="x" * 30, author=author))
    settings.BUILTIT_MAX_PROJECT_BYTES = 20
    ok(file_update(project=project, path="/a.txt", content="x" * 10, author=author))


def test_edit_refuses_growth_past_the_file_limit(site, author, settings):
    settings.BUILTIT_MAX_FILE_BYTES = len(INDEX) + 2
    refused(
        file_edit(project=site, path="/index.html", edits=[Edit("Bye", "Goodbye")], author=author),
        ErrorCode.FILE_TOO_LARGE,
    )
    assert content_of(site, "/index.html") == INDEX


# --- update ------------------------------------------------------------------


def test_update_replaces_content_and_increments_the_version(site, author):
    write = ok(file_update(project=site, path="/index.html", content="<p>New</p>", author=author))
    record = ProjectFile.objects.get(project=site, path="/index.html")
    assert (record.content, record.version, record.size) == ("<p>New</p>", 2, 10)
    assert (write.action, write.version, write.size) == ("update", 2, 10)


def test_update_records_before_and_after(site, author, user):
    write = ok(file_update(project=site, path="/index.html", content="new", author=author))
    revision = revisions(site)[-1]
    assert revision.pk == write.revision_id
    assert revision.action == FileRevision.Action.UPDATE
    assert (revision.actor, revision.user) == (FileRevision.Actor.USER, user)
    assert (revision.content_before, revision.content_after) == (INDEX, "new")
    assert revision.version_after == 2
    assert revision.path == "/index.html"


def test_every_write_increments_the_version_by_one(site, author):
    for expected, text in enumerate(["one", "two", "three"], start=2):
        write = ok(file_update(project=site, path="/index.html", content=text, author=author))
        assert write.version == expected
    assert [r.version_after for r in revisions(site)] == [1, 2, 3, 4]


def test_update_with_the_current_version_succeeds(site, author):
    ok(file_update(project=site, path="/index.html", content="a", author=author))
    write = ok(
        file_update(
            project=site, path="/index.html", content="b", author=author, expected_version=2
        )
    )
    assert write.version == 3


@pytest.mark.parametrize("stale", [1, 3, 0])
def test_update_refuses_stale_version(site, author, stale):
    ok(file_update(project=site, path="/index.html", content="theirs", author=author))
    error = refused(
        file_update(
            project=site, path="/index.html", content="mine", author=author, expected_version=stale
        ),
        ErrorCode.CONFLICT,
    )
    assert error.current_version == 2
    assert "version 2" in error.message
    assert content_of(site, "/index.html") == "theirs"
    assert len(revisions(site)) == 2


def test_update_with_identical_content_is_no_change(site, author):
    error = refused(
        file_update(project=site, path="/index.html", content=INDEX, author=author),
        ErrorCode.NO_CHANGE,
    )
    assert error.current_version == 1
    assert ProjectFile.objects.get(project=site).version == 1
    assert len(revisions(site)) == 1


@pytest.mark.parametrize("content", ["a\x00", "\ud800", "x\udc00y"])
def test_update_refuses_unstorable_content_and_keeps_the_file(site, author, content):
    refused(
        file_update(project=site, path="/index.html", content=content, author=author),
        ErrorCode.INVALID_CONTENT,
    )
    assert content_of(site, "/index.html") == INDEX
    assert len(revisions(site)) == 1


def test_update_of_a_missing_file_lists_files_and_suggests_a_close_one(starter_project, author):
    error = refused(
        file_update(project=starter_project, path="/indx.html", content="x", author=author),
        ErrorCode.NOT_FOUND,
    )
    assert error.path == "/indx.html"
    assert set(error.available_files) == set(STARTER_FILES)
    assert error.suggestion == "/index.html"
    assert "Did you mean /index.html?" in error.message


def test_missing_file_differing_only_in_case_suggests_the_real_one(starter_project, author):
    error = refused(
        file_update(project=starter_project, path="/STYLES.CSS", content="x", author=author),
        ErrorCode.NOT_FOUND,
    )
    assert error.suggestion == "/styles.css"


def test_missing_file_with_nothing_close_suggests_nothing(starter_project, author):
    error = refused(
        file_delete(project=starter_project, path="/zzzzzzzzzzzz/qqqq.md", author=author),
        ErrorCode.NOT_FOUND,
    )
    assert error.suggestion is None
    assert "/index.html" in error.available_files


def test_missing_file_in_an_empty_project_says_so(project, author):
    error = refused(
        file_update(project=project, path="/index.html", content="x", author=author),
        ErrorCode.NOT_FOUND,
    )
    assert error.available_files == ()
    assert "no files yet" in error.message


def test_update_refuses_an_invalid_path(site, author):
    refused(
        file_update(project=site, path="/index.html/..", content="x", author=author),
        ErrorCode.INVALID_PATH,
    )


def test_update_only_touches_its_own_project(site, author, other_user):
    other = project_create(owner=other_user, name="Other")
    assert isinstance(other, Project)
    ok(
        file_create(
            project=other, path="/index.html", content="theirs", author=Author.person(other_user)
        )
    )
    ok(file_update(project=site, path="/index.html", content="mine", author=author))
    assert content_of(other, "/index.html") == "theirs"
    assert content_of(site, "/index.html") == "mine"


# --- edit --------------------------------------------------------------------


def test_edit_applies_search_replace_and_records_an_edit_revision(site, author):
    write = ok(
        file_edit(project=site, path="index.html", edits=[Edit("Hello", "Hi")], author=author)
    )
    assert (write.action, write.version) == ("edit", 2)
    assert content_of(site, "/index.html") == INDEX.replace("Hello", "Hi")
    revision = revisions(site)[-1]
    assert revision.action == FileRevision.Action.EDIT
    assert (revision.content_before, revision.content_after) == (
        INDEX,
        INDEX.replace("Hello", "Hi"),
    )
    assert revision.version_after == 2


def test_edit_failure_reports_path_and_version_and_writes_nothing(site, author):
    error = refused(
        file_edit(project=site, path="/index.html", edits=[Edit("<p>", "<div>")], author=author),
        ErrorCode.AMBIGUOUS_MATCH,
    )
    assert error.path == "/index.html"
    assert error.current_version == 1
    assert error.match_lines == (2, 3)
    assert content_of(site, "/index.html") == INDEX
    assert len(revisions(site)) == 1


def test_edit_is_all_or_nothing(site, author):
    error = refused(
        file_edit(
            project=site,
            path="/index.html",
            edits=[Edit("Hello", "Hi"), Edit("Missing text", "x")],
            author=author,
        ),
        ErrorCode.NO_MATCH,
    )
    assert error.edit_index == 2
    assert content_of(site, "/index.html") == INDEX
    assert ProjectFile.objects.get(project=site).version == 1
    assert len(revisions(site)) == 1


def test_edit_not_found_gives_the_closest_text(site, author):
    error = refused(
        file_edit(
            project=site, path="/index.html", edits=[Edit("<p>Welcom</p>", "x")], author=author
        ),
        ErrorCode.NO_MATCH,
    )
    assert error.closest_match == "<p>Welcome</p>\n"
    assert error.closest_match_line == 2


def test_edit_refuses_stale_version(site, author):
    ok(file_update(project=site, path="/index.html", content="<h1>Hello</h1>", author=author))
    refused(
        file_edit(
            project=site,
            path="/index.html",
            edits=[Edit("Hello", "Hi")],
            author=author,
            expected_version=1,
        ),
        ErrorCode.CONFLICT,
    )
    assert content_of(site, "/index.html") == "<h1>Hello</h1>"
    assert len(revisions(site)) == 2


def test_edit_that_changes_nothing_is_no_change(project, author):
    ok(file_create(project=project, path="/a.css", content="a {  \n}\n", author=author))
    refused(
        file_edit(
            project=project, path="/a.css", edits=[Edit("a {\n}", "a {  \n}")], author=author
        ),
        ErrorCode.NO_CHANGE,
    )
    assert len(revisions(project)) == 1


def test_edit_refuses_inserting_a_nul(site, author):
    refused(
        file_edit(project=site, path="/index.html", edits=[Edit("Bye", "B\x00")], author=author),
        ErrorCode.INVALID_CONTENT,
    )
    assert content_of(site, "/index.html") == INDEX


def test_edit_of_a_missing_file_is_not_found(site, author):
    refused(
        file_edit(project=site, path="/nope.html", edits=[Edit("a", "b")], author=author),
        ErrorCode.NOT_FOUND,
    )


# --- rename ------------------------------------------------------------------


def test_rename_moves_the_file_and_keeps_its_content(site, author, user):
    write = ok(file_rename(project=site, path="/index.html", new_path="home.html", author=author))
    assert (write.path, write.old_path, write.action, write.version) == (
        "/home.html",
        "/index.html",
        "rename",
        2,
    )
    assert paths_of(site) == ["/home.html"]
    assert content_of(site, "/home.html") == INDEX
    revision = revisions(site)[-1]
    assert revision.action == FileRevision.Action.RENAME
    assert (revision.path, revision.old_path) == ("/home.html", "/index.html")
    assert revision.content_before == revision.content_after == INDEX
    assert revision.version_after == 2
    assert (revision.actor, revision.user) == (FileRevision.Actor.USER, user)


def test_rename_into_a_new_folder(site, author):
    ok(file_rename(project=site, path="/index.html", new_path="/pages/index.html", author=author))
    assert paths_of(site) == ["/pages/index.html"]


def test_rename_to_a_case_variant_of_itself_is_allowed(site, author):
    write = ok(file_rename(project=site, path="/index.html", new_path="/Index.HTML", author=author))
    assert write.path == "/Index.HTML"
    assert paths_of(site) == ["/Index.HTML"]


@pytest.mark.parametrize("same", ["/index.html", "index.html"])
def test_rename_to_the_same_path_is_no_change(site, author, same):
    refused(
        file_rename(project=site, path="/index.html", new_path=same, author=author),
        ErrorCode.NO_CHANGE,
    )
    assert ProjectFile.objects.get(project=site).version == 1
    assert len(revisions(site)) == 1


@pytest.mark.parametrize("target", ["/styles.css", "/STYLES.css"])
def test_rename_onto_an_existing_file_is_refused(starter_project, author, target):
    before = {f.path: f.content for f in ProjectFile.objects.filter(project=starter_project)}
    refused(
        file_rename(project=starter_project, path="/script.js", new_path=target, author=author),
        ErrorCode.ALREADY_EXISTS,
    )
    after = {f.path: f.content for f in ProjectFile.objects.filter(project=starter_project)}
    assert after == before
    assert len(revisions(starter_project)) == len(STARTER_FILES)


def test_rename_onto_a_folder_is_refused(project, author):
    ok(file_create(project=project, path="/blog.html/post.html", content="p", author=author))
    ok(file_create(project=project, path="/index.html", content="i", author=author))
    error = refused(
        file_rename(project=project, path="/index.html", new_path="/blog.html", author=author),
        ErrorCode.ALREADY_EXISTS,
    )
    assert error.suggestion == "/blog.html/post.html"


def test_rename_under_an_existing_file_is_refused(starter_project, author):
    refused(
        file_rename(
            project=starter_project,
            path="/script.js",
            new_path="/index.html/script.js",
            author=author,
        ),
        ErrorCode.ALREADY_EXISTS,
    )
    assert "/script.js" in paths_of(starter_project)


def test_rename_to_an_invalid_path_is_refused(site, author):
    refused(
        file_rename(project=site, path="/index.html", new_path="../index.html", author=author),
        ErrorCode.INVALID_PATH,
    )
    refused(
        file_rename(project=site, path="/index.html", new_path="/index.php", author=author),
        ErrorCode.INVALID_PATH,
    )
    assert paths_of(site) == ["/index.html"]


def test_rename_of_a_missing_file_is_not_found(site, author):
    error = refused(
        file_rename(project=site, path="/indx.html", new_path="/a.html", author=author),
        ErrorCode.NOT_FOUND,
    )
    assert error.suggestion == "/index.html"


def test_rename_refuses_stale_version(site, author):
    ok(file_update(project=site, path="/index.html", content="v2", author=author))
    refused(
        file_rename(
            project=site,
            path="/index.html",
            new_path="/home.html",
            author=author,
            expected_version=1,
        ),
        ErrorCode.CONFLICT,
    )
    assert paths_of(site) == ["/index.html"]
    assert len(revisions(site)) == 2


def test_renamed_file_can_be_updated_at_its_new_path(site, author):
    ok(file_rename(project=site, path="/index.html", new_path="/home.html", author=author))
    write = ok(
        file_update(project=site, path="/home.html", content="x", author=author, expected_version=2)
    )
    assert write.version == 3
    refused(
        file_update(project=site, path="/index.html", content="y", author=author),
        ErrorCode.NOT_FOUND,
    )


# --- delete ------------------------------------------------------------------


def test_delete_removes_the_file_and_records_what_it_held(site, author, user):
    write = ok(file_delete(project=site, path="index.html", author=author))
    assert (write.path, write.action, write.version, write.size) == (
        "/index.html",
        "delete",
        None,
        0,
    )
    assert paths_of(site) == []
    revision = revisions(site)[-1]
    assert revision.pk == write.revision_id
    assert revision.action == FileRevision.Action.DELETE
    assert revision.content_before == INDEX
    assert revision.content_after is None
    assert revision.version_after is None
    assert (revision.actor, revision.user) == (FileRevision.Actor.USER, user)


def test_delete_refuses_stale_version(site, author):
    ok(file_update(project=site, path="/index.html", content="v2", author=author))
    refused(
        file_delete(project=site, path="/index.html", author=author, expected_version=1),
        ErrorCode.CONFLICT,
    )
    assert content_of(site, "/index.html") == "v2"
    assert len(revisions(site)) == 2


def test_delete_of_a_missing_file_is_not_found(site, author):
    refused(file_delete(project=site, path="/gone.html", author=author), ErrorCode.NOT_FOUND)
    assert paths_of(site) == ["/index.html"]


def test_deleted_path_can_be_created_again_and_history_is_kept(site, author):
    ok(file_delete(project=site, path="/index.html", author=author))
    write = ok(file_create(project=site, path="/index.html", content="again", author=author))
    assert write.version == 1
    assert [r.action for r in revisions(site)] == ["create", "delete", "create"]
    assert [r.content_after for r in revisions(site)] == [INDEX, None, "again"]


# --- every write bumps the project ---------------------------------------------

WRITES = {
    "create": lambda p, a: file_create(project=p, path="/new.html", content="n", author=a),
    "update": lambda p, a: file_update(project=p, path="/index.html", content="u", author=a),
    "edit": lambda p, a: file_edit(
        project=p, path="/index.html", edits=[Edit("Bye", "Ciao")], author=a
    ),
    "rename": lambda p, a: file_rename(project=p, path="/index.html", new_path="/h.html", author=a),
    "delete": lambda p, a: file_delete(project=p, path="/index.html", author=a),
}


@pytest.mark.parametrize("action", WRITES)
def test_every_write_bumps_project_updated_at(site, author, action):
    Project.objects.filter(pk=site.pk).update(updated_at=LONG_AGO)
    ok(WRITES[action](site, author))
    site.refresh_from_db()
    assert site.updated_at > LONG_AGO


STALE_WRITES = {
    "update": lambda p, a: file_update(
        project=p, path="/index.html", content="x", author=a, expected_version=1
    ),
    "edit": lambda p, a: file_edit(
        project=p, path="/index.html", edits=[Edit("Bye", "x")], author=a, expected_version=1
    ),
    "rename": lambda p, a: file_rename(
        project=p, path="/index.html", new_path="/x.html", author=a, expected_version=1
    ),
    "delete": lambda p, a: file_delete(project=p, path="/index.html", author=a, expected_version=1),
}


@pytest.mark.parametrize("action", STALE_WRITES)
def test_a_refused_write_leaves_project_updated_at_alone(site, author, action):
    ok(file_update(project=site, path="/index.html", content="<p>Bye</p>", author=author))
    Project.objects.filter(pk=site.pk).update(updated_at=LONG_AGO)
    refused(STALE_WRITES[action](site, author), ErrorCode.CONFLICT)
    site.refresh_from_db()
    assert site.updated_at == LONG_AGO


# --- file_list and file_read ---------------------------------------------------


def test_file_list_gives_every_file_sorted_with_size_and_version(starter_project, author):
    ok(file_update(project=starter_project, path="/script.js", content="x", author=author))
    listing = file_list(starter_project)
    assert [f.path for f in listing] == ["/AGENTS.md", "/index.html", "/script.js", "/styles.css"]
    script = listing[2]
    assert (script.size, script.version) == (1, 2)


def test_file_list_of_an_empty_project_is_empty(project):
    assert file_list(project) == []


def read(project: Project, path: str = "/index.html", **lines: int | None) -> FileContent:
    result = file_read(project, path, **lines)
    assert isinstance(result, FileContent), result
    return result


def test_read_whole_file(site):
    content = read(site, "index.html")
    assert content.path == "/index.html"
    assert content.content == INDEX
    assert (content.version, content.size) == (1, len(INDEX))
    assert (content.total_lines, content.start_line, content.end_line) == (3, 1, 3)


def test_read_empty_file(project, author):
    ok(file_create(project=project, path="/e.txt", content="", author=author))
    content = read(project, "/e.txt")
    assert (content.content, content.total_lines, content.start_line, content.end_line) == (
        "",
        0,
        0,
        0,
    )


@pytest.mark.parametrize(
    ("asked", "text", "answered"),
    [
        ((1, 1), "<h1>Hello</h1>\n", (1, 1)),
        ((2, 3), "<p>Welcome</p>\n<p>Bye</p>\n", (2, 3)),
        ((2, None), "<p>Welcome</p>\n<p>Bye</p>\n", (2, 3)),
        ((None, 2), "<h1>Hello</h1>\n<p>Welcome</p>\n", (1, 2)),
        ((3, 3), "<p>Bye</p>\n", (3, 3)),
        ((2, 99), "<p>Welcome</p>\n<p>Bye</p>\n", (2, 3)),
    ],
)
def test_read_a_line_range(site, asked, text, answered):
    start, end = asked
    content = read(site, start_line=start, end_line=end)
    assert content.content == text
    assert (content.start_line, content.end_line) == answered
    assert content.total_lines == 3


@pytest.mark.parametrize(("start", "end"), [(0, 2), (-1, None), (3, 2), (4, None), (4, 9)])
def test_read_refuses_a_range_outside_the_file(site, start, end):
    error = file_read(site, "/index.html", start_line=start, end_line=end)
    assert isinstance(error, FileError)
    assert error.code == ErrorCode.INVALID_ARGUMENT
    assert "which has 3 lines" in error.message


def test_read_refusal_names_the_requested_range(site):
    error = file_read(site, "/index.html", end_line=0)
    assert isinstance(error, FileError)
    assert "Lines 1 to 0" in error.message


def test_read_refuses_a_range_past_the_end_of_an_empty_file(project, author):
    ok(file_create(project=project, path="/e.txt", content="", author=author))
    error = file_read(project, "/e.txt", start_line=5, end_line=10)
    assert isinstance(error, FileError)
    assert error.code == ErrorCode.INVALID_ARGUMENT


def test_read_keeps_crlf_line_endings(project, author):
    ok(file_create(project=project, path="/a.txt", content="a\r\nb\r\nc\r\n", author=author))
    content = read(project, "/a.txt", start_line=2, end_line=2)
    assert content.content == "b\r\n"
    assert content.total_lines == 3


def test_read_numbers_lines_by_newlines_only(project, author):
    text = "const s = 'a\u2028b';\nfoo();\n"
    ok(file_create(project=project, path="/a.js", content=text, author=author))
    content = read(project, "/a.js", start_line=2, end_line=2)
    assert content.content == "foo();\n"
    assert content.total_lines == 2


def test_read_of_a_missing_file_lists_what_exists(site):
    error = file_read(site, "/indx.html")
    assert isinstance(error, FileError)
    assert error.code == ErrorCode.NOT_FOUND
    assert error.available_files == ("/index.html",)
    assert error.suggestion == "/index.html"


def test_read_refuses_an_invalid_path(site):
    error = file_read(site, "/../index.html")
    assert isinstance(error, FileError)
    assert error.code == ErrorCode.INVALID_PATH


# --- file_search -----------------------------------------------------------------


def search(
    project: Project, query: str, *, case_sensitive: bool = False, max_results: int = 100
) -> SearchResults:
    result = file_search(project, query, case_sensitive=case_sensitive, max_results=max_results)
    assert isinstance(result, SearchResults), result
    return result


def test_search_is_case_insensitive_by_default(starter_project):
    results = search(starter_project, "HELLO, WORLD")
    assert [(m.path, m.line, m.text) for m in results.matches] == [
        ("/index.html", 11, "<h1>Hello, world</h1>")
    ]
    assert results.total_matches == 1
    assert results.truncated is False


def test_search_can_be_case_sensitive(starter_project):
    assert search(starter_project, "HELLO, WORLD", case_sensitive=True).matches == ()
    assert search(starter_project, "Hello, world", case_sensitive=True).total_matches == 1


def test_search_finds_matches_across_files_and_counts_files_searched(starter_project):
    results = search(starter_project, "greet")
    assert {m.path for m in results.matches} == {"/index.html", "/script.js"}
    assert results.files_searched == len(STARTER_FILES)


def test_search_truncates_at_max_results_but_counts_everything(project, author):
    ok(file_create(project=project, path="/a.txt", content="hit\n" * 7, author=author))
    ok(file_create(project=project, path="/b.txt", content="no\nhit\n", author=author))
    results = search(project, "hit", max_results=5)
    assert len(results.matches) == 5
    assert results.total_matches == 8
    assert results.truncated is True


def test_search_reports_every_line_when_under_max_results(project, author):
    ok(file_create(project=project, path="/a.txt", content="x hit\ny\nhit z\n", author=author))
    results = search(project, "hit", max_results=2)
    assert [(m.line, m.text) for m in results.matches] == [(1, "x hit"), (3, "hit z")]
    assert results.truncated is False


def test_search_shortens_very_long_lines(project, author):
    ok(file_create(project=project, path="/a.js", content="needle" + "x" * 1000, author=author))
    [match] = search(project, "needle").matches
    assert match.text.startswith("needle")
    assert len(match.text) == 241
    assert match.text.endswith("…")


def test_search_shows_a_match_far_along_a_long_line(project, author):
    # A minified file: the match lies past the part of the line that is shown.
    content = "x" * 1000 + "needle" + "y" * 1000
    ok(file_create(project=project, path="/a.min.js", content=content, author=author))
    [match] = search(project, "NEEDLE").matches
    assert "needle" in match.text
    assert match.text.startswith("…")
    assert match.text.endswith("…")
    assert len(match.text) == 242


def test_search_without_matches_is_empty_not_an_error(starter_project):
    results = search(starter_project, "no such text anywhere")
    assert (results.matches, results.total_matches, results.truncated) == ((), 0, False)


def test_search_stays_inside_its_project(site, other_user):
    other = project_create(owner=other_user, name="Other", starter=True)
    assert isinstance(other, Project)
    assert search(site, "Say hello").matches == ()


def test_search_accepts_a_query_of_exactly_the_maximum_length(site):
    assert search(site, "x" * 500).matches == ()


@pytest.mark.parametrize("query", ["", "   ", "\t", "two\nlines", "x" * 501, None, 5])
def test_search_refuses_an_empty_multi_line_or_overlong_query(site, query):
    error = file_search(site, query)
    assert isinstance(error, FileError)
    assert error.code == ErrorCode.INVALID_ARGUMENT


def test_search_numbers_lines_by_newlines_only(project, author):
    text = "const s = 'a\u2028b';\nfoo();\n"
    ok(file_create(project=project, path="/a.js", content=text, author=author))
    [match] = search(project, "foo").matches
    assert match.line == 2


# --- projects a user may see -------------------------------------------------------


def test_project_for_person_finds_the_owners_project(user, project):
    assert project_for_person(user=user, project_id=project.pk, action="delete") == project


def test_project_for_person_hides_another_users_project(other_user, project):
    assert project_for_person(user=other_user, project_id=project.pk, action="view") is None


def test_project_for_person_hides_every_project_from_anonymous(project):
    assert project_for_person(user=AnonymousUser(), project_id=project.pk, action="view") is None


def test_project_for_person_unknown_id_is_none(user, project):
    assert project_for_person(user=user, project_id=uuid.uuid4(), action="view") is None


def test_project_list_for_lists_only_the_users_projects_with_counts(
    user, other_user, project, starter_project
):
    other = project_create(owner=other_user, name="Theirs", starter=True)
    assert isinstance(other, Project)
    # vars(): the annotations are plain attributes the type checker cannot see.
    listed = {p.name: vars(p) for p in project_list_for(user)}
    assert set(listed) == {"Empty site", "Starter site"}
    expected_size = sum(f.size for f in ProjectFile.objects.filter(project=starter_project))
    starter, empty = listed["Starter site"], listed["Empty site"]
    assert (starter["file_count"], starter["total_size"]) == (len(STARTER_FILES), expected_size)
    assert starter["last_file_change"] is not None
    assert (empty["file_count"], empty["total_size"], empty["last_file_change"]) == (0, 0, None)


def test_project_list_for_puts_the_most_recently_changed_first(
    user, project, starter_project, author
):
    Project.objects.filter(pk=starter_project.pk).update(updated_at=LONG_AGO)
    assert [p.pk for p in project_list_for(user)] == [project.pk, starter_project.pk]
    ok(file_create(project=starter_project, path="/new.html", content="", author=author))
    assert [p.pk for p in project_list_for(user)] == [starter_project.pk, project.pk]


def test_project_list_for_anonymous_is_empty(project):
    assert list(project_list_for(AnonymousUser())) == []
