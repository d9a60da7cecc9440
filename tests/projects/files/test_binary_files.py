"""Binary files in projects: uploaded, checked by their bytes, kept
once, with history, undo and restore like any file; served with their type, an
ETag and byte ranges; carried by ZIP export and import; described, never
returned as bytes, to the model, which cannot overwrite them with text."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.tools import file_tools
from chat.tools.registry import ToolContext, ToolOutcome
from fakes.images import gif, jpeg, png, png_claiming
from projects.archive import Imported, project_export_zip, project_import_zip
from projects.files.results import BinaryInfo, ErrorCode, FileError, FileWrite
from projects.history.revisions import file_restore
from projects.history.undo import changes_undo
from projects.models import BinaryBlob, FileRevision, Project, ProjectFile, Reversal
from projects.selectors import file_list, file_read
from projects.services import Author, file_create, file_delete, file_rename, file_upload

pytestmark = pytest.mark.django_db


def binary_of(project: Project, path: str) -> BinaryInfo:
    read = file_read(project, path)
    assert not isinstance(read, FileError), read
    assert read.binary is not None
    return read.binary


def upload(project: Project, path: str, data: bytes, user: User) -> FileWrite | FileError:
    return file_upload(project=project, path=path, data=data, author=Author.person(user))


def test_an_uploaded_image_is_a_file_with_its_type_and_size(project: Project, user: User) -> None:
    written = upload(project, "img/logo.png", png(2, 1), user)
    assert isinstance(written, FileWrite)
    read = file_read(project, "/img/logo.png")
    assert not isinstance(read, FileError)
    assert read.binary is not None
    assert (read.binary.content_type, read.binary.width, read.binary.height) == ("image/png", 2, 1)
    assert read.size == len(png(2, 1))
    (info,) = file_list(project)
    assert info.binary is not None
    assert info.binary.describe() == "image/png, 2x1 px"
    assert FileRevision.objects.filter(project=project, action="create").count() == 1


@pytest.mark.parametrize(
    ("path", "data", "message"),
    [
        ("/app.js", png(), "is a text file type"),
        ("/photo.png", b"<html><script>alert(1)</script></html>", "is not a PNG image"),
        ("/photo.png", png()[:20], "cut short"),
        ("/photo.png", png()[:-12], "cut short"),
        ("/photo.png", jpeg(), "named like a PNG image but its content is a JPEG image"),
        ("/photo.png", b"PK\x03\x04" + b"\x00" * 100, "is not a PNG image"),
        ("/photo.png", png_claiming(20_000, 20_000), "too large to check and show safely"),
        ("/photo.png", b"", "is empty"),
        ("/font.woff2", b"wOFF" + b"\x00" * 40, "its content is a WOFF font"),
    ],
)
def test_bytes_must_be_what_the_name_says(
    project: Project, user: User, path: str, data: bytes, message: str
) -> None:
    result = upload(project, path, data, user)
    assert isinstance(result, FileError)
    assert message in result.message
    assert not ProjectFile.objects.exists()


def test_a_binary_file_has_its_own_size_limit(
    project: Project, user: User, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_MAX_BINARY_BYTES = 50
    result = upload(project, "/big.png", png(40, 40), user)
    assert isinstance(result, FileError)
    assert result.code == ErrorCode.FILE_TOO_LARGE
    assert "a binary file may be at most 50 bytes" in result.message


def test_identical_bytes_are_kept_once(project: Project, user: User) -> None:
    assert isinstance(upload(project, "/a.png", png(), user), FileWrite)
    assert isinstance(upload(project, "/b.png", png(), user), FileWrite)
    assert BinaryBlob.objects.filter(project=project).count() == 1
    again = upload(project, "/a.png", png(), user)
    assert isinstance(again, FileError)
    assert again.code == ErrorCode.NO_CHANGE


def test_replace_rename_delete_restore_and_undo(project: Project, user: User) -> None:
    first, second = png(2, 1), png(3, 3)
    assert isinstance(upload(project, "/hero.png", first, user), FileWrite)
    mark = FileRevision.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    replaced = upload(project, "/hero.png", second, user)
    assert isinstance(replaced, FileWrite)
    assert replaced.version == 2
    assert binary_of(project, "/hero.png").width == 3

    renamed = file_rename(
        project=project, path="/hero.png", new_path="/img/hero.png", author=Author.person(user)
    )
    assert isinstance(renamed, FileWrite)
    as_text = file_rename(
        project=project, path="/img/hero.png", new_path="/hero.html", author=Author.person(user)
    )
    assert isinstance(as_text, FileError)
    assert "keeps an extension of its kind" in as_text.message

    run = list(FileRevision.objects.filter(project=project, pk__gt=mark))
    undone = changes_undo(
        project=project, revisions=run, user=user, kind=Reversal.Kind.UNDO, summary="undo"
    )
    assert isinstance(undone, Reversal), undone
    assert binary_of(project, "/hero.png").width == 2, "the first image, under its first name"

    deleted = file_delete(project=project, path="/hero.png", author=Author.person(user))
    assert isinstance(deleted, FileWrite)
    assert isinstance(
        file_restore(project=project, revision_id=deleted.revision_id, author=Author.person(user)),
        FileWrite,
    )
    assert binary_of(project, "/hero.png").width == 2


def test_the_preview_serves_bytes_with_type_etag_and_ranges(
    sites_client: Client, project: Project, user: User
) -> None:
    data = png(5, 5)
    assert isinstance(upload(project, "/logo.png", data, user), FileWrite)
    url = f"/preview/{project.preview_token}/logo.png"
    whole = sites_client.get(url)
    assert whole.status_code == 200
    assert whole["Content-Type"] == "image/png"
    assert whole.content == data
    etag = whole["ETag"]
    assert sites_client.get(url, headers={"If-None-Match": etag}).status_code == 304
    part = sites_client.get(url, headers={"Range": "bytes=0-7"})
    assert part.status_code == 206
    assert part.content == data[:8]
    assert part["Content-Range"] == f"bytes 0-7/{len(data)}"
    tail = sites_client.get(url, headers={"Range": "bytes=-4"})
    assert tail.content == data[-4:]
    beyond = sites_client.get(url, headers={"Range": f"bytes={len(data) + 10}-"})
    assert beyond.status_code == 416
    assert "sandbox" in whole["Content-Security-Policy"]


def test_a_zip_round_trip_keeps_images_byte_for_byte(project: Project, user: User) -> None:
    assert isinstance(upload(project, "/img/a.jpg", jpeg(), user), FileWrite)
    assert isinstance(upload(project, "/b.gif", gif(), user), FileWrite)
    exported = project_export_zip(project)
    with zipfile.ZipFile(io.BytesIO(exported)) as archive:
        assert archive.read("img/a.jpg") == jpeg()
    again = project_import_zip(
        owner=user, name="Again", upload=io.BytesIO(exported), upload_size=len(exported)
    )
    assert isinstance(again, Imported)
    assert again.skipped == ()
    assert binary_of(again.project, "/img/a.jpg").content_type == "image/jpeg"


def test_a_zip_image_that_lies_is_left_out_and_named(user: User) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("index.html", "<p>hi</p>")
        archive.writestr("photo.png", b"<script>x</script>")
    data = buffer.getvalue()
    result = project_import_zip(
        owner=user, name="Bad", upload=io.BytesIO(data), upload_size=len(data)
    )
    assert isinstance(result, Imported)
    assert "photo.png is not a PNG image" in " ".join(result.skipped)
    assert list(result.project.files.values_list("path", flat=True)) == ["/index.html"]


def test_the_model_sees_binaries_described_and_cannot_write_them(
    project: Project, user: User
) -> None:
    assert isinstance(upload(project, "/logo.png", png(4, 3), user), FileWrite)
    tools = file_tools()
    versions = {info.path: info.version for info in file_list(project)}
    context = ToolContext(project, Author.assistant(user), versions)

    def call(name: str, **arguments: object) -> dict[str, object]:
        tool = tools.get(name)
        assert tool is not None
        args = tool.parse(json.dumps(arguments))
        assert not isinstance(args, ToolOutcome), args.result
        return dict(tool.handler(args, context).result)

    listed = call("list_project_files")
    assert listed["files"] == [
        {"path": "/logo.png", "size": len(png(4, 3)), "type": "image/png", "width": 4, "height": 3}
    ]
    read = call("read_file", path="/logo.png")
    assert read["binary"] is True
    assert "content" not in read
    assert '<img src="logo.png"' in str(read["note"])
    for name, arguments in (
        ("update_file", {"path": "/logo.png", "content": "<svg/>"}),
        ("edit_file", {"path": "/logo.png", "edits": [{"search": "binary", "replace": "x"}]}),
        ("create_file", {"path": "/new.png", "content": "not an image"}),
    ):
        result = call(name, **arguments)
        assert result["success"] is False, name
        assert "binary file" in str(result["error"]), name
    assert binary_of(project, "/logo.png").width == 4


def test_no_text_file_can_pass_for_a_binary_marker(project: Project, user: User) -> None:
    assert isinstance(upload(project, "/logo.png", png(), user), FileWrite)
    marker = ProjectFile.objects.get(project=project, path="/logo.png").content
    forged = file_create(
        project=project, path="/notes.txt", content=marker, author=Author.person(user)
    )
    assert isinstance(forged, FileError)
    assert "reserved for binary files" in forged.message


def test_bytes_can_live_in_django_storage_instead(
    sites_client: Client, project: Project, user: User, settings: SettingsWrapper, tmp_path
) -> None:
    settings.BUILTIT_BINARY_STORAGE = "storage"
    settings.MEDIA_ROOT = tmp_path
    assert isinstance(upload(project, "/logo.png", png(7, 7), user), FileWrite)
    blob = BinaryBlob.objects.get(project=project)
    assert blob.data is None
    assert (tmp_path / blob.stored_name).read_bytes() == png(7, 7)
    served = sites_client.get(f"/preview/{project.preview_token}/logo.png")
    assert served.content == png(7, 7)
