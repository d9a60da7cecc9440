"""ZIP export and import (projects.archive). Import takes untrusted archives: a file that
cannot be used is left out and named with the reason, never repaired; a refused archive
leaves nothing behind (no project, no file, no revision); an export comes back byte for
byte."""

from __future__ import annotations

import io
import struct
import warnings
import zipfile

import pytest

from projects.archive import Imported, ImportRefused, project_export_zip, project_import_zip
from projects.models import FileRevision, Project, ProjectFile
from projects.services import Author, file_create

# --- building archives in memory ------------------------------------------------


def make_zip(
    entries: list[tuple[str, str | bytes]], compression: int = zipfile.ZIP_DEFLATED
) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # duplicate names, on purpose
        with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
            for name, data in entries:
                archive.writestr(name, data)
    return buffer.getvalue()


def patch_headers(data: bytes, *, local: tuple[int, bytes], central: tuple[int, bytes]) -> bytes:
    """Overwrite a field of the first entry's local header and central directory record."""
    patched = bytearray(data)
    offset, value = local
    patched[offset : offset + len(value)] = value
    start = patched.find(b"PK\x01\x02")
    offset, value = central
    patched[start + offset : start + offset + len(value)] = value
    return bytes(patched)


def with_flags(data: bytes, flags: int) -> bytes:
    value = struct.pack("<H", flags)
    return patch_headers(data, local=(6, value), central=(8, value))


def with_method(data: bytes, method: int) -> bytes:
    value = struct.pack("<H", method)
    return patch_headers(data, local=(8, value), central=(10, value))


def with_declared_size(data: bytes, size: int) -> bytes:
    value = struct.pack("<I", size)
    return patch_headers(data, local=(22, value), central=(24, value))


def import_bytes(user, data: bytes, name: str = "Imported") -> Imported | ImportRefused:
    return project_import_zip(owner=user, name=name, upload=io.BytesIO(data), upload_size=len(data))


def imported(user, data: bytes, name: str = "Imported") -> dict[str, str]:
    files, skipped = partly(user, data, name)
    assert skipped == (), skipped
    return files


def partly(user, data: bytes, name: str = "Imported") -> tuple[dict[str, str], tuple[str, ...]]:
    """What an import kept, and what it left out (with why)."""
    result = import_bytes(user, data, name)
    assert isinstance(result, Imported), result
    files = ProjectFile.objects.filter(project=result.project).values_list("path", "content")
    return dict(files), result.skipped


def refused(user, data: bytes, name: str = "Imported") -> ImportRefused:
    result = import_bytes(user, data, name)
    assert isinstance(result, ImportRefused), f"archive was imported: {result!r}"
    assert Project.objects.count() == 0, "a project was left behind"
    assert ProjectFile.objects.count() == 0, "files were left behind"
    assert FileRevision.objects.count() == 0, "revisions were left behind"
    return result


def everything(result: ImportRefused) -> str:
    return " ".join((result.message, *result.problems))


# --- accepted archives ---------------------------------------------------------------


def test_import_creates_a_project_with_every_file(user):
    data = make_zip([("index.html", "<h1>Hi</h1>"), ("css/site.css", "body{}")])
    result = import_bytes(user, data, name="  My   import ")
    assert isinstance(result, Imported)
    project = result.project
    assert (project.owner, project.name) == (user, "My import")
    files = dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    assert files == {"/index.html": "<h1>Hi</h1>", "/css/site.css": "body{}"}


def test_import_records_a_create_revision_per_file(user):
    result = import_bytes(user, make_zip([("a.html", "A"), ("b.css", "B")]))
    assert isinstance(result, Imported)
    revisions = FileRevision.objects.filter(project=result.project)
    assert sorted(r.path for r in revisions) == ["/a.html", "/b.css"]
    assert {(r.action, r.actor, r.user_id) for r in revisions} == {("create", "user", user.pk)}


def test_import_reads_stored_and_deflated_entries(user):
    assert imported(user, make_zip([("a.txt", "stored")], zipfile.ZIP_STORED)) == {
        "/a.txt": "stored"
    }


def test_import_strips_a_single_top_folder(user):
    data = make_zip(
        [("my-site-main/index.html", "i"), ("my-site-main/css/a.css", "c")],
    )
    assert imported(user, data) == {"/index.html": "i", "/css/a.css": "c"}


def test_import_strips_the_top_folder_of_a_single_file(user):
    assert imported(user, make_zip([("site/index.html", "i")])) == {"/index.html": "i"}


def test_import_strips_only_one_level_of_common_folder(user):
    data = make_zip([("a/b/x.html", "x"), ("a/b/y.html", "y")])
    assert set(imported(user, data)) == {"/b/x.html", "/b/y.html"}


@pytest.mark.parametrize(
    "names",
    [
        ["index.html", "css/a.css"],
        ["one/index.html", "two/index.html"],
        ["index.html"],
    ],
)
def test_import_keeps_paths_when_there_is_no_single_top_folder(user, names):
    assert set(imported(user, make_zip([(n, n) for n in names]))) == {"/" + n for n in names}


def test_import_skips_folder_entries(user):
    data = make_zip([("site/", ""), ("site/css/", ""), ("site/css/a.css", "c")])
    assert imported(user, data) == {"/css/a.css": "c"}


def test_import_skips_operating_system_junk(user):
    data = make_zip(
        [
            ("__MACOSX/site/._index.html", b"\x00\x05\x16\x07binary"),
            ("__MACOSX/._site", b"\x00\x05"),
            (".DS_Store", b"\x00\x00\x00\x01Bud1"),
            ("site/.DS_Store", b"\x00\x00\x00\x01Bud1"),
            ("site/Thumbs.db", b"\xd0\xcf\x11\xe0"),
            ("site/desktop.ini", "[.ShellClassInfo]"),
            ("site/index.html", "i"),
        ]
    )
    assert imported(user, data) == {"/index.html": "i"}


def test_import_does_not_count_junk_against_the_file_limit(user, settings):
    settings.BUILTIT_MAX_FILES = 2
    data = make_zip([("a.html", "a"), ("b.html", "b"), (".DS_Store", b"x"), ("__MACOSX/._a", b"")])
    assert set(imported(user, data)) == {"/a.html", "/b.html"}


def test_import_accepts_an_archive_exactly_at_the_limits(user, settings):
    settings.BUILTIT_MAX_FILES = 2
    settings.BUILTIT_MAX_FILE_BYTES = 10
    settings.BUILTIT_MAX_PROJECT_BYTES = 20
    assert set(imported(user, make_zip([("a.txt", "x" * 10), ("b.txt", "y" * 10)]))) == {
        "/a.txt",
        "/b.txt",
    }


def test_import_keeps_a_utf8_bom_and_non_ascii_text(user):
    text = "\ufeffcafé ☕ 😀"
    assert imported(user, make_zip([("a.txt", text.encode())])) == {"/a.txt": text}


# --- refused: paths that escape, hide or break the rules ---------------------------------

ESCAPING_NAMES = [
    "a/../../x.html",
    "site/../x.html",
    "/etc/passwd.txt",
    "/index.html",
    "//server/x.html",
    "\\x.html",
    "C:\\x.html",
    "C:/x.html",
    "c:x.html",
    "..\\evil.html",
    "a\\b.html",
    "a/.git/config.txt",
    ".env.txt",
    "a/./b.html",
    "evil.php",
    "run.exe",
    "README",
    "con.html",
    "my page.html",
    "caf\u00e9.html",
    "\u0456ndex.html",
]


@pytest.mark.parametrize("name", ESCAPING_NAMES)
def test_import_leaves_out_a_bad_name_and_keeps_the_good_ones(user, name):
    files, skipped = partly(user, make_zip([("index.html", "ok"), (name, "bad")]))
    assert files == {"/index.html": "ok"}, "never repaired, never written"
    assert len(skipped) == 1


@pytest.mark.parametrize("name", ["../evil.html", "./a.html", "../../x.html", "a//b.html"])
def test_import_leaves_out_a_traversal_or_doubled_slash(user, name):
    files, skipped = partly(user, make_zip([("index.html", "ok"), (name, "bad")]))
    assert files == {"/index.html": "ok"}
    assert len(skipped) == 1


@pytest.mark.parametrize("name", ESCAPING_NAMES)
def test_import_refuses_a_bad_name_on_its_own(user, name):
    refused(user, make_zip([(name, "bad")]))


@pytest.mark.parametrize(
    "names",
    [
        ["../evil.html"],
        ["../a.html", "../b.html"],
        ["./a.html"],
        [".git/config.txt"],
        ["a//b.html"],
    ],
)
def test_import_refuses_an_archive_whose_only_top_folder_is_not_a_clean_folder(user, names):
    refused(user, make_zip([(n, "x") for n in names]))


def test_import_refusal_names_absolute_paths(user):
    result = refused(user, make_zip([("/etc/passwd.txt", "x")]))
    assert "absolute paths are not allowed" in everything(result)
    assert "/etc/passwd.txt" in everything(result)


def test_import_names_the_rule_a_left_out_file_broke(user):
    _, skipped = partly(user, make_zip([("index.html", "ok"), ("app.php", "x")]))
    assert "'.php' files are not allowed" in " ".join(skipped)


def test_import_lists_at_most_ten_problems_and_counts_the_rest(user):
    data = make_zip([(f"bad{n}.php", "x") for n in range(12)])
    result = refused(user, data)
    assert "12 files" in result.message
    assert len(result.problems) == 11
    assert result.problems[-1] == "…and 2 more."


def test_import_keeps_the_first_of_duplicate_entries(user):
    files, skipped = partly(user, make_zip([("index.html", "one"), ("index.html", "two")]))
    assert files == {"/index.html": "one"}
    assert "same path" in " ".join(skipped)


@pytest.mark.parametrize(
    "names",
    [
        ["index.html", "INDEX.html"],
        ["css/a.css", "CSS/a.css"],
        ["site/a.html", "site/A.HTML"],
    ],
)
def test_import_keeps_one_of_entries_that_differ_only_in_case(user, names):
    files, skipped = partly(user, make_zip([(n, n) for n in names]))
    assert len(files) == 1
    assert "ignoring case" in " ".join(skipped)


def test_import_leaves_out_a_file_where_a_folder_is(user):
    files, skipped = partly(user, make_zip([("a.html", "file"), ("a.html/b.html", "inside")]))
    assert len(files) == 1
    assert "cannot share a name" in " ".join(skipped)


# --- refused: contents ---------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [b"\xff\xfe<\x00h\x001\x00>\x00", b"caf\xe9", b"\xed\xa0\x80", b"\x89PNG\r\n\x1a\n\xff"],
)
def test_import_leaves_out_content_that_is_not_utf8(user, data):
    files, skipped = partly(user, make_zip([("index.html", "ok"), ("a.txt", data)]))
    assert files == {"/index.html": "ok"}
    assert "a.txt is not UTF-8 text" in " ".join(skipped)


def test_import_leaves_out_nul_in_content(user):
    files, skipped = partly(user, make_zip([("index.html", "ok"), ("z.txt", b"a\x00b")]))
    assert files == {"/index.html": "ok"}
    assert "NUL" in " ".join(skipped)


# --- refused: sizes and counts ---------------------------------------------------------------


def test_import_refuses_too_many_files(user, settings):
    settings.BUILTIT_MAX_FILES = 3
    result = refused(user, make_zip([(f"p{n}.html", "x") for n in range(4)]))
    assert "4 files" in result.message
    assert "at most 3" in result.message


def test_import_leaves_out_a_file_over_the_size_limit(user, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 100
    files, skipped = partly(user, make_zip([("index.html", "ok"), ("big.txt", "x" * 101)]))
    assert files == {"/index.html": "ok"}
    assert "big.txt is larger than 100 bytes" in " ".join(skipped)


def test_import_refuses_an_archive_too_large_unpacked(user, settings):
    settings.BUILTIT_MAX_PROJECT_BYTES = 1000
    data = make_zip([(f"p{n}.txt", "x" * 400) for n in range(3)])
    assert len(data) < 1000
    result = refused(user, data)
    assert "Unpacked" in result.message


def test_import_refuses_a_compression_bomb(user, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 64 * 1024
    data = make_zip([("bomb.txt", "0" * (8 * 1024 * 1024))])
    assert len(data) < 64 * 1024
    refused(user, data)


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_import_refuses_an_entry_whose_declared_size_lies(user, settings, compression):
    settings.BUILTIT_MAX_FILE_BYTES = 1000
    real = make_zip([("big.txt", "x" * 100_000)], compression)
    lying = with_declared_size(real, 10)
    assert zipfile.ZipFile(io.BytesIO(lying)).infolist()[0].file_size == 10
    refused(user, lying)


def test_import_refuses_an_entry_declaring_a_huge_size(user):
    lying = with_declared_size(make_zip([("a.txt", "small")], zipfile.ZIP_STORED), 2**32 - 1)
    result = refused(user, lying)
    assert "Unpacked" in result.message


def test_import_refuses_an_upload_larger_than_the_import_limit(user, settings):
    settings.BUILTIT_MAX_IMPORT_BYTES = 100
    data = make_zip([("index.html", "x")])
    result = project_import_zip(owner=user, name="X", upload=io.BytesIO(data), upload_size=101)
    assert isinstance(result, ImportRefused)
    assert "largest accepted is 100 bytes" in result.message
    assert Project.objects.count() == 0
    assert ProjectFile.objects.count() == 0
    assert FileRevision.objects.count() == 0


# --- refused: archives that are not usable ---------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not a zip at all",
        b"PK\x03\x04" + b"\x00" * 40,
        b"%PDF-1.7\n",
    ],
)
def test_import_refuses_bytes_that_are_not_a_zip(user, data):
    result = refused(user, data)
    assert "not a readable ZIP archive" in result.message


def test_import_refuses_a_truncated_zip(user):
    data = make_zip([("index.html", "x" * 1000)])
    refused(user, data[: len(data) // 2])


def test_import_refuses_a_corrupted_entry(user):
    data = bytearray(make_zip([("a.txt", "hello world " * 50)]))
    start = data.find(b"a.txt") + len("a.txt")
    data[start + 5 : start + 25] = b"\xff" * 20
    refused(user, bytes(data))


def test_import_refuses_an_empty_zip(user):
    result = refused(user, make_zip([]))
    assert "contains no files" in result.message


def test_import_refuses_a_zip_of_only_folders_and_junk(user):
    result = refused(user, make_zip([("site/", ""), ("__MACOSX/._x", b""), (".DS_Store", b"")]))
    assert "contains no files" in result.message


def test_import_refuses_an_encrypted_entry(user):
    data = with_flags(make_zip([("secret.html", "x")], zipfile.ZIP_STORED), 0x1)
    assert zipfile.ZipFile(io.BytesIO(data)).infolist()[0].flag_bits & 0x1
    result = refused(user, data)
    assert "encrypted" in everything(result)


@pytest.mark.parametrize("method", [9, 99])
def test_import_refuses_an_unsupported_compression_method(user, method):
    refused(user, with_method(make_zip([("a.html", "x")], zipfile.ZIP_STORED), method))


@pytest.mark.parametrize("name", ["", "   ", "x" * 101])
def test_import_refuses_a_bad_project_name(user, name):
    result = refused(user, make_zip([("index.html", "x")]), name=name)
    assert result.message


# --- export ------------------------------------------------------------------------------


def test_export_holds_every_file_without_leading_slash(starter_project):
    with zipfile.ZipFile(io.BytesIO(project_export_zip(starter_project))) as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        contents = {name: archive.read(name).decode() for name in names}
    # The owner's instructions to the assistant too: they are the owner's file.
    assert names == ["AGENTS.md", "index.html", "script.js", "styles.css"]
    stored = dict(
        ProjectFile.objects.filter(project=starter_project).values_list("path", "content")
    )
    assert contents == {path.lstrip("/"): content for path, content in stored.items()}


def test_export_of_an_empty_project_is_an_empty_zip(project):
    with zipfile.ZipFile(io.BytesIO(project_export_zip(project))) as archive:
        assert archive.namelist() == []


def test_export_holds_only_that_projects_files(project, starter_project, author):
    file_create(project=project, path="/mine.html", content="m", author=author)
    with zipfile.ZipFile(io.BytesIO(project_export_zip(project))) as archive:
        assert archive.namelist() == ["mine.html"]


# --- round trip ------------------------------------------------------------------------------

ROUND_TRIP_FILES = {
    "/index.html": "<!doctype html>\r\n<title>CRLF</title>\r\n",
    "/css/site.css": "body {  \n\tcolor: red;\t\n}",
    "/js/app.min.js": "const s = 'caf\u00e9 \u2603 \U0001f600 \u2028';\n",
    "/data/empty.json": "",
    "/deep/a/b/c/d/e/f/x.txt": "\n\n\n",
    "/README.md": "\ufeff# Title\r\n",
    "/Mixed.Case.SVG": "<svg/>",
}


def project_with(user, files: dict[str, str]) -> Project:
    project = Project.objects.create(owner=user, name="Source")
    for path, content in files.items():
        created = file_create(
            project=project, path=path, content=content, author=Author.person(user)
        )
        assert not hasattr(created, "code"), created
    return project


def test_export_then_import_keeps_paths_and_contents_byte_for_byte(user):
    source = project_with(user, ROUND_TRIP_FILES)
    result = import_bytes(user, project_export_zip(source), name="Copy")
    assert isinstance(result, Imported)
    copy = result.project
    assert copy.pk != source.pk
    stored = dict(ProjectFile.objects.filter(project=copy).values_list("path", "content"))
    assert stored == ROUND_TRIP_FILES
    for record in ProjectFile.objects.filter(project=copy):
        assert record.size == len(ROUND_TRIP_FILES[record.path].encode())


def test_starter_project_survives_a_round_trip(user, starter_project):
    copy = imported(user, project_export_zip(starter_project))
    original = dict(
        ProjectFile.objects.filter(project=starter_project).values_list("path", "content")
    )
    assert copy == original


def test_round_trip_keeps_a_project_whose_files_share_one_folder(user):
    files = {"/src/index.html": "<p>i</p>", "/src/app.js": "go()"}
    source = project_with(user, files)
    assert imported(user, project_export_zip(source)) == files


@pytest.mark.parametrize("top", ["", "site/"])
def test_what_is_left_out_is_named_as_the_archive_names_it(user, settings, top):
    settings.BUILTIT_MAX_FILE_BYTES = 100
    entries: list[tuple[str, str | bytes]] = [
        ("index.html", "ok"),
        ("css/app.php", "x"),
        ("css/big.txt", "x" * 500),
        ("notes/a.txt", b"caf\xe9"),
        ("Index.HTML", "again"),
    ]
    result = import_bytes(user, make_zip([(top + name, data) for name, data in entries]))

    assert isinstance(result, Imported)
    assert result.folder == top
    assert ProjectFile.objects.get(project=result.project).path == "/index.html"
    named = sorted(line.split(" ", 1)[0].rstrip(":") for line in result.skipped)
    assert named == sorted(
        top + name for name in ["css/app.php", "css/big.txt", "notes/a.txt", "Index.HTML"]
    )
    assert not any(line.startswith(("'", "/", "Invalid")) for line in result.skipped)
