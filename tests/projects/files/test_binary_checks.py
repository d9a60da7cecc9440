"""Each binary type Built-It keeps is checked whole by its structure:
images decoded with Pillow within bounds, fonts read with fontTools,
PDF by its cross-reference structure, MP4 and WebM by their boxes and elements.
A refusal is a sentence a person can act on, with nothing in the log."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from fakes import images as fake
from projects.archive import Imported, project_import_zip
from projects.files.media import budget, images
from projects.files.results import FileError, FileWrite
from projects.models import Project, ProjectFile
from projects.selectors import file_read
from projects.services import Author, file_upload

pytestmark = pytest.mark.django_db


def upload(project: Project, path: str, data: bytes, user: User) -> FileWrite | FileError:
    return file_upload(project=project, path=path, data=data, author=Author.person(user))


@pytest.mark.parametrize(
    ("path", "make", "content_type", "size"),
    [
        ("/a.png", lambda: fake.png(5, 3), "image/png", (5, 3)),
        ("/a.jpg", lambda: fake.jpeg(7, 2), "image/jpeg", (7, 2)),
        ("/a.gif", lambda: fake.gif(4, 5), "image/gif", (4, 5)),
        ("/a.webp", lambda: fake.webp(6, 4), "image/webp", (6, 4)),
        ("/a.avif", lambda: fake.avif(8, 6), "image/avif", (8, 6)),
        ("/favicon.ico", lambda: fake.ico((16, 48)), "image/x-icon", (48, 48)),
        ("/spin.gif", lambda: fake.animated("GIF", 12), "image/gif", (8, 8)),
        ("/spin.webp", lambda: fake.animated("WEBP", 12), "image/webp", (8, 8)),
        ("/spin.png", lambda: fake.animated("PNG", 12), "image/png", (8, 8)),
        ("/spin.avif", lambda: fake.animated("AVIF", 3), "image/avif", (8, 8)),
        ("/f.ttf", fake.ttf, "font/ttf", (None, None)),
        ("/f.otf", fake.otf, "font/otf", (None, None)),
        ("/f.woff", fake.woff, "font/woff", (None, None)),
        ("/f.woff2", fake.woff2, "font/woff2", (None, None)),
        ("/big.woff2", lambda: fake.woff2(padding=5_000_000), "font/woff2", (None, None)),
        ("/doc.pdf", fake.pdf, "application/pdf", (None, None)),
        ("/new.pdf", fake.pdf_with_xref_stream, "application/pdf", (None, None)),
        ("/clip.mp4", fake.mp4, "video/mp4", (None, None)),
        ("/clip.webm", fake.webm, "video/webm", (None, None)),
    ],
)
def test_every_kept_type_is_accepted_whole_with_the_decoders_size(
    project: Project,
    user: User,
    path: str,
    make: Callable[[], bytes],
    content_type: str,
    size: tuple[int | None, int | None],
) -> None:
    assert isinstance(upload(project, path, make(), user), FileWrite)
    read = file_read(project, path)
    assert not isinstance(read, FileError)
    assert read.binary is not None
    assert (read.binary.content_type, read.binary.width, read.binary.height) == (
        content_type,
        *size,
    )


@pytest.mark.parametrize(
    ("path", "make", "message"),
    [
        # The three ways past the old pixel count, and an icon that is a web page.
        ("/a.jpg", lambda: fake.jpeg_with_fill_byte(60_000, 60_000), "too large"),
        ("/a.webp", fake.webp_with_chunk_first, "damaged or cut short"),
        ("/a.gif", lambda: fake.gif_frame_larger_than_screen(10_000, 10_000), "too large"),
        ("/favicon.ico", fake.ico_with_html, "damaged or cut short"),
        # A header claiming a size within bounds, with no pixels behind it.
        ("/a.png", lambda: fake.png_claiming(5_000, 5_000), "damaged or cut short"),
        ("/a.jpg", lambda: fake.jpeg()[:-40], "damaged or cut short"),
        ("/a.jpg", lambda: fake.jpeg_with_scans(images.MAX_JPEG_SCANS + 1), "more than 100 scans"),
        ("/a.gif", lambda: fake.animated("GIF", 3)[:-30], "damaged or cut short"),
        ("/a.avif", lambda: fake.avif()[:-40], "damaged or cut short"),
        ("/a.pdf", fake.pdf_prefixed_html, "not a PDF"),
        ("/a.pdf", lambda: fake.pdf().replace(b"\n", b"\n% moved\n", 1), "PDF document is damaged"),
        ("/a.pdf", lambda: fake.pdf()[:-30], "cut short"),
        (
            "/a.pdf",
            lambda: fake.pdf_with_xref_stream().replace(b"/Size 4", b"/Size 5"),
            "does not hold the entries it declares",
        ),
        ("/a.woff2", lambda: fake.woff2()[:-20], "cut short"),
        ("/a.woff", lambda: fake.woff_claiming(100_000_000), "unpacks to more than 32 MiB"),
        ("/a.woff", lambda: fake.woff_bomb(50_000_000), "does not unpack to its declared size"),
        ("/a.ttf", lambda: fake.ttf(leave_out="OS/2"), "lacks the OS/2 table"),
        ("/a.ttf", lambda: fake.ttf()[:300], "damaged or cut short"),
        ("/a.mp4", lambda: fake.mp4(movie=False), "no movie box"),
        ("/a.mp4", lambda: fake.mp4()[:-10], "cut short"),
        ("/a.webm", lambda: fake.webm(b"matroska"), "does not say it is WebM"),
        ("/a.webm", lambda: fake.webm()[:-3], "cut short"),
    ],
)
def test_a_file_that_is_not_whole_or_not_what_it_says_is_refused_quietly(
    project: Project,
    user: User,
    caplog: pytest.LogCaptureFixture,
    path: str,
    make: Callable[[], bytes],
    message: str,
) -> None:
    caplog.set_level(logging.DEBUG, logger="fontTools")
    caplog.set_level(logging.WARNING)
    result = upload(project, path, make(), user)
    assert isinstance(result, FileError)
    assert message in result.message
    assert result.message.startswith(path)
    assert "Traceback" not in result.message
    assert not ProjectFile.objects.exists()
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_deep_animations_are_bounded_by_frames_and_by_pixels_decoded(
    project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    many = upload(project, "/many.gif", fake.animated("GIF", budget.MAX_FRAMES + 1, 2, 2), user)
    assert isinstance(many, FileError)
    assert "more than 1,000 pictures" in many.message
    monkeypatch.setattr(budget, "MAX_DECODED_PIXELS", 8 * 8 * 10)
    assert isinstance(upload(project, "/ten.webp", fake.animated("WEBP", 10), user), FileWrite)
    deep = upload(project, "/eleven.webp", fake.animated("WEBP", 11), user)
    assert isinstance(deep, FileError)
    assert "pixels in all" in deep.message


def test_the_pixel_limit_follows_what_decoding_the_format_holds(
    project: Project, user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1,600 bytes to decode in: 400 pixels of PNG (4 bytes each), 100 of WebP (16).
    monkeypatch.setattr(images, "MAX_DECODE_BYTES", 1_600)
    assert isinstance(upload(project, "/a.png", fake.png(20, 20), user), FileWrite)
    refused = upload(project, "/a.webp", fake.webp(20, 20), user)
    assert isinstance(refused, FileError)
    assert "20 by 20 pixels" in refused.message
    assert "at most 100 pixels" in refused.message


def test_pillows_decompression_bomb_warning_is_a_refusal_not_a_log_line(tmp_path: Path) -> None:
    """Run as the server runs (no pytest warning filters): an image a little over
    the bound, where Pillow warns instead of raising, is refused and nothing is
    printed."""
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(fake.png_claiming(9_000, 8_000))  # 72 million pixels
    script = (
        "import django, pathlib, sys; django.setup()\n"
        "from projects.files.binaries import checked\n"
        "print(checked('/b.png', 'png', pathlib.Path(sys.argv[1]).read_bytes()).message)\n"
    )
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "PYTHONWARNINGS": ""}
    ran = subprocess.run(  # noqa: S603  (our own interpreter and script)
        [sys.executable, "-c", script, str(bomb)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[3],
        env=environment,
    )
    assert "larger than 67,108,864 pixels" in ran.stdout
    assert ran.stderr == ""


def _zip(entries: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def test_an_import_checks_each_image_whole_and_bounds_what_they_cost_together(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(budget, "MAX_SHARED_DECODED_PIXELS", 250)
    data = _zip(
        [
            ("index.html", b"<p>hi</p>"),
            ("a.png", fake.png(10, 10)),
            ("b.png", fake.png(10, 10)),
            ("c.png", fake.png(10, 10)),
            ("favicon.ico", fake.ico_with_html()),
        ]
    )
    result = project_import_zip(
        owner=user, name="Site", upload=io.BytesIO(data), upload_size=len(data)
    )
    assert isinstance(result, Imported)
    assert sorted(result.project.files.values_list("path", flat=True)) == [
        "/a.png",
        "/b.png",
        "/index.html",
    ]
    (bounded,) = [message for message in result.skipped if message.startswith("c.png")]
    assert "uploaded together hold more than" in bounded
    (icon,) = [message for message in result.skipped if message.startswith("favicon.ico")]
    assert "damaged or cut short" in icon
