"""A refused write stores nothing: whatever refuses it (the
project's size, its file count, the person's quota), its bytes are not kept,
and what a person is shown as used is what is stored. Bytes nothing refers to
any more are swept: on purge, and by `manage.py sweep_storage`."""

from __future__ import annotations

import hashlib
import io
import os
import random
import struct
import zipfile
import zlib
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone

from chat.models import ChatImage
from fakes.images import png
from projects import write_checks
from projects.archive import ImportRefused, project_import_zip
from projects.files.binaries import marker_for
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.lifecycle import project_purge, project_trash
from projects.models import BinaryBlob, FileRevision, Project, ProjectFile, RevisionBlob
from projects.services import Author, file_create, file_delete, file_upload
from projects.sweep import storage_sweep
from projects.usage import storage_used

pytestmark = pytest.mark.django_db
KIB = 1024


def noise_png(size: int, seed: int = 0) -> bytes:
    """A real PNG of about `size` bytes: random pixels do not compress."""
    rng = random.Random(seed)
    width = 256
    height = max(1, size // (3 * width))
    rows = b"".join(b"\x00" + rng.randbytes(3 * width) for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 1))
        + chunk(b"IEND", b"")
    )


def upload(project: Project, path: str, data: bytes, user: User) -> FileWrite | FileError:
    return file_upload(project=project, path=path, data=data, author=Author.person(user))


def stored_bytes() -> int:
    """What the database holds for binary files, as the review measured it."""
    return sum(
        len(bytes(data or b"")) for data in BinaryBlob.objects.values_list("data", flat=True)
    )


@pytest.mark.parametrize(
    ("setting", "value", "code"),
    [
        ("BUILTIT_MAX_PROJECT_BYTES", 300 * KIB, ErrorCode.PROJECT_TOO_LARGE),
        ("BUILTIT_MAX_FILES", 1, ErrorCode.TOO_MANY_FILES),
        ("BUILTIT_MAX_USER_STORAGE_BYTES", 300 * KIB, ErrorCode.STORAGE_FULL),
    ],
)
def test_a_refused_upload_keeps_none_of_its_bytes(
    settings, project: Project, user: User, setting: str, value: int, code: ErrorCode
) -> None:
    setattr(settings, setting, value)
    assert isinstance(upload(project, "/a.png", noise_png(200 * KIB, 1), user), FileWrite)
    used, blobs, held = storage_used(user.pk), BinaryBlob.objects.count(), stored_bytes()

    for attempt in range(8):
        refused = upload(project, f"/b{attempt}.png", noise_png(200 * KIB, 2 + attempt), user)
        assert isinstance(refused, FileError)
        assert refused.code == code

    assert (storage_used(user.pk), BinaryBlob.objects.count(), stored_bytes()) == (
        used,
        blobs,
        held,
    )


def test_a_refused_replacement_keeps_none_of_its_bytes(
    settings, project: Project, user: User
) -> None:
    settings.BUILTIT_MAX_PROJECT_BYTES = 300 * KIB
    assert isinstance(upload(project, "/a.png", noise_png(200 * KIB, 1), user), FileWrite)
    blobs = BinaryBlob.objects.count()

    refused = upload(project, "/a.png", noise_png(400 * KIB, 2), user)

    assert isinstance(refused, FileError)
    assert refused.code == ErrorCode.PROJECT_TOO_LARGE
    assert BinaryBlob.objects.count() == blobs


def test_uploads_refused_over_http_leave_the_dashboard_telling_what_is_stored(
    settings, project: Project, user: User, user_client: Client
) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 500 * KIB
    url = f"/projects/{project.pk}/files/upload/"
    first = io.BytesIO(noise_png(300 * KIB, 1))
    first.name = "a.png"
    assert user_client.post(url, {"file": first}, headers={"hx-request": "true"}).status_code == 200
    before = storage_used(user.pk)

    for attempt in range(8):
        data = io.BytesIO(noise_png(300 * KIB, 2 + attempt))
        data.name = f"b{attempt}.png"
        answer = user_client.post(url, {"file": data}, headers={"hx-request": "true"})
        assert answer.status_code == 422

    assert storage_used(user.pk) == before
    page = user_client.get("/").content.decode()
    assert "of 500 KiB used" in page
    assert f"Storage: {before / KIB:.1f} KiB".replace(".0 ", " ") in page


def test_a_write_refused_inside_a_larger_one_takes_back_only_itself(
    settings, project: Project, user: User
) -> None:
    """An import keeps the files it could write and skips the rest, saying why:
    a skipped file's bytes are not kept either."""
    settings.BUILTIT_MAX_FILE_BYTES = 100 * KIB
    settings.BUILTIT_MAX_BINARY_BYTES = 250 * KIB
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("index.html", "<h1>Hi</h1>")
        zipped.writestr("small.png", noise_png(100 * KIB, 1))
        zipped.writestr("large.png", noise_png(300 * KIB, 2))

    archive.seek(0)
    imported = project_import_zip(
        owner=user, name="Import", upload=archive, upload_size=len(archive.getvalue())
    )

    assert not isinstance(imported, ImportRefused)
    assert any("large.png" in reason for reason in imported.skipped)
    assert BinaryBlob.objects.filter(project=imported.project).count() == 1


def test_a_refused_upload_leaves_no_file_in_storage(
    settings, tmp_path: Path, project: Project, user: User
) -> None:
    settings.BUILTIT_BINARY_STORAGE = "storage"
    settings.MEDIA_ROOT = tmp_path
    settings.BUILTIT_MAX_PROJECT_BYTES = 300 * KIB
    assert isinstance(upload(project, "/a.png", noise_png(200 * KIB, 1), user), FileWrite)

    refused = upload(project, "/b.png", noise_png(200 * KIB, 2), user)

    assert isinstance(refused, FileError)
    assert len([path for path in tmp_path.rglob("*") if path.is_file()]) == 1


def test_a_purge_removes_the_projects_files_from_storage(
    settings, tmp_path: Path, django_capture_on_commit_callbacks, project: Project, user: User
) -> None:
    settings.BUILTIT_BINARY_STORAGE = "storage"
    settings.MEDIA_ROOT = tmp_path
    assert isinstance(upload(project, "/a.png", noise_png(20 * KIB, 1), user), FileWrite)
    assert isinstance(upload(project, "/b.png", png(), user), FileWrite)
    assert project_trash(project=project) is None

    with django_capture_on_commit_callbacks(execute=True):
        assert project_purge(project=project) is None

    assert not [path for path in tmp_path.rglob("*") if path.is_file()]


def _orphan_binary(project: Project, data: bytes) -> BinaryBlob:
    """A blob as the code before this issue left one: stored, named by nothing."""
    return BinaryBlob.objects.create(
        project=project,
        digest=hashlib.sha256(data).hexdigest(),
        size=len(data),
        content_type="image/png",
        data=data,
    )


def test_the_sweep_deletes_what_nothing_refers_to_and_keeps_history(
    settings, project: Project, user: User
) -> None:
    assert isinstance(upload(project, "/kept.png", png(3, 3), user), FileWrite)
    # Deleted, but its history still names the bytes: "restore" must find them.
    assert isinstance(upload(project, "/deleted.png", png(4, 4), user), FileWrite)
    deleted = file_delete(project=project, path="/deleted.png", author=Author.person(user))
    assert isinstance(deleted, FileWrite)
    assert isinstance(
        file_create(
            project=project, path="/a.html", content="<p>hi</p>", author=Author.person(user)
        ),
        FileWrite,
    )
    orphan = _orphan_binary(project, noise_png(50 * KIB, 9))
    lost_text = RevisionBlob.objects.create(
        project=project,
        digest="0" * 64,
        data=zlib.compress(b"lost"),
        size=4,
        chars=4,
        stored_size=12,
    )
    used = storage_used(user.pk)

    swept = storage_sweep()

    assert (swept.binaries, swept.texts) == (1, 1)
    assert not BinaryBlob.objects.filter(pk=orphan.pk).exists()
    assert not RevisionBlob.objects.filter(pk=lost_text.pk).exists()
    kept = set(BinaryBlob.objects.values_list("digest", flat=True))
    markers = {ProjectFile.objects.get(path="/kept.png").content} | {
        revision.content_before for revision in FileRevision.objects.filter(action="delete")
    }
    assert {marker_for(digest) for digest in kept} == markers
    assert storage_used(user.pk) == used - orphan.size - lost_text.stored_size
    assert storage_sweep().binaries == 0, "a second sweep finds nothing more"


def test_the_sweep_command_clears_stored_files_no_blob_names_once_they_are_old(
    settings, tmp_path: Path, project: Project, user: User
) -> None:
    settings.BUILTIT_BINARY_STORAGE = "storage"
    settings.MEDIA_ROOT = tmp_path
    assert isinstance(upload(project, "/a.png", png(), user), FileWrite)
    folder = tmp_path / "binaries" / str(project.pk)
    stray_old = folder / ("1" * 64)
    stray_new = folder / ("2" * 64)
    stray_old.write_bytes(b"left by a write that was rolled back")
    stray_new.write_bytes(b"a write under way")
    an_hour_ago = (timezone.now() - timedelta(hours=2)).timestamp()
    os.utime(stray_old, (an_hour_ago, an_hour_ago))
    out = io.StringIO()

    call_command("sweep_storage", stdout=out)

    assert not stray_old.exists()
    assert stray_new.exists()
    assert len(list(folder.iterdir())) == 2
    assert "1 stored file" in out.getvalue()


def test_chat_pictures_count_in_the_quota_and_unsent_ones_are_swept(
    settings, project: Project, user: User, user_client: Client
) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 700 * KIB
    url = f"/projects/{project.pk}/chat-images/"
    picture = io.BytesIO(noise_png(300 * KIB, 1))
    picture.name = "shot.png"
    assert user_client.post(url, {"image": picture}).status_code == 200
    assert storage_used(user.pk) >= 300 * KIB

    second = io.BytesIO(noise_png(300 * KIB, 2))
    second.name = "two.png"
    assert user_client.post(url, {"image": second}).status_code == 200
    third = io.BytesIO(noise_png(300 * KIB, 3))
    third.name = "three.png"
    refused = user_client.post(url, {"image": third})
    assert refused.status_code == 422
    assert "three.png would pass the project owner's storage" in refused.json()["error"]
    assert ChatImage.objects.count() == 2

    ChatImage.objects.filter(name="shot.png").update(created_at=timezone.now() - timedelta(days=2))
    swept = storage_sweep()
    assert swept.kept_elsewhere == {"chat pictures": 1}
    assert list(ChatImage.objects.values_list("name", flat=True)) == ["two.png"]
    # Nothing of the swept picture is counted any more.
    assert storage_used(user.pk) < 400 * KIB


def _zip(files: dict[str, bytes]) -> io.BytesIO:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        for name, data in files.items():
            zipped.writestr(name, data)
    archive.seek(0)
    return archive


def test_an_import_past_the_quota_stores_nothing_even_in_storage(
    settings, tmp_path: Path, user: User
) -> None:
    settings.BUILTIT_BINARY_STORAGE = "storage"
    settings.MEDIA_ROOT = tmp_path
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 300 * KIB
    archive = _zip({"a.png": noise_png(200 * KIB, 1), "b.png": noise_png(200 * KIB, 2)})

    for _ in range(3):
        refused = project_import_zip(
            owner=user, name="Big", upload=archive, upload_size=len(archive.getvalue())
        )
        assert isinstance(refused, ImportRefused)
        assert "would pass the project owner's storage" in refused.message

    assert not [path for path in tmp_path.rglob("*") if path.is_file()]
    assert storage_used(user.pk) == 0


def test_a_write_refused_after_its_bytes_were_stored_takes_them_back(
    settings, tmp_path: Path, monkeypatch, project: Project, user: User
) -> None:
    """Refused past the check before the bytes (another write of the owner's
    landed in between, say): the file saved in storage goes with the rows."""
    settings.BUILTIT_BINARY_STORAGE = "storage"
    settings.MEDIA_ROOT = tmp_path
    checks = iter([None, FileError(ErrorCode.STORAGE_FULL, "Full by now.")])
    monkeypatch.setattr(write_checks, "create_limits_problem", lambda *args, **kwargs: next(checks))

    refused = upload(project, "/a.png", noise_png(20 * KIB, 1), user)

    assert isinstance(refused, FileError)
    assert refused.message == "Full by now."
    assert not BinaryBlob.objects.exists()
    assert not [path for path in tmp_path.rglob("*") if path.is_file()]


@pytest.mark.django_db(transaction=True)
def test_an_upload_is_checked_before_its_transaction_holds_other_writers(
    monkeypatch, project: Project, user: User
) -> None:
    """Decoding an image takes time: on SQLite, inside the write's transaction,
    every other writer (a turn storing its messages, a save) would wait."""
    real = write_checks.binary_checked  # type: ignore[attr-defined]
    seen: list[bool] = []

    def checked(*args, **kwargs):
        seen.append(connection.in_atomic_block)
        return real(*args, **kwargs)

    monkeypatch.setattr(write_checks, "binary_checked", checked)
    assert isinstance(upload(project, "/a.png", png(), user), FileWrite)
    imported = project_import_zip(
        owner=user, name="Zip", upload=_zip({"b.png": png(2, 2)}), upload_size=200
    )
    assert not isinstance(imported, ImportRefused)
    assert seen == [False, False]
