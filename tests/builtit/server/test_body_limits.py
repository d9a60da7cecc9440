"""Request bodies over their route's limit are refused by the server before
they are read; the larger limits are for signed-in people
only, decided from the session before the body is read, and a body that stalls
is ended with 408. Against daphne started through
its command line on the real ASGI application, with the test database, over raw
sockets: the body is never sent, or only part."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connections
from django.test import Client

from builtit.server.bodylimit import body_limit
from projects.models import Project, ProjectFile
from tests.servers import listening_port

ROOT = Path(__file__).resolve().parents[3]
START_LIMIT = 60.0
# The pace server's rule: 1 byte a second over each 3 s window. Its trickle
# sends a byte every TRICKLE seconds, below that rate over any window.
PACE = {"BUILTIT_BODY_TIMEOUT": "3", "BUILTIT_BODY_MIN_RATE": "1"}
TRICKLE = 6.0
MB = 2**20
CSRF = "k" * 32
MULTIPART = "multipart/form-data; boundary=built-it-test"
PROJECT = "0b4e8f1c-0000-4000-8000-000000000000"


DAPHNE = [
    sys.executable,
    "-m",
    "daphne",
    "-v",
    "1",
    "-e",
    "tcp:port=0:interface=127.0.0.1",
    "builtit.asgi:application",
]
RUNSERVER = [sys.executable, "manage.py", "runserver", "--noreload", "127.0.0.1:0"]


def _serve(command: list[str], **env: str) -> Iterator[tuple[str, int]]:
    """The app served by `command` on the test database."""
    given = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": _database_url(),
        "SECRET_KEY": settings.SECRET_KEY,
        **env,
    }
    process = subprocess.Popen(  # noqa: S603 (our own commands)
        command, cwd=ROOT, env=given, stderr=subprocess.PIPE, text=True
    )
    try:
        yield "127.0.0.1", listening_port(process, limit=START_LIMIT)
    finally:
        process.terminate()
        process.wait(timeout=30)


def _database_url() -> str:
    db = connections["default"].settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@pytest.fixture(scope="module")
def server(django_db_setup: None) -> Iterator[tuple[str, int]]:
    """`daphne builtit.asgi:application`, as production runs it."""
    yield from _serve(DAPHNE)


@pytest.fixture(scope="module")
def pace_server(django_db_setup: None) -> Iterator[tuple[str, int]]:
    yield from _serve(DAPHNE, **PACE)


@pytest.fixture(scope="module")
def server_without_database(django_db_setup: None) -> Iterator[tuple[str, int]]:
    """Its database refuses every connection (nothing listens on port 9)."""
    yield from _serve(DAPHNE, DATABASE_URL="postgres://builtit@127.0.0.1:9/builtit")


@pytest.fixture(scope="module")
def runserver(django_db_setup: None) -> Iterator[tuple[str, int]]:
    """`manage.py runserver`, as `make run` runs it (daphne's runserver)."""
    yield from _serve(RUNSERVER)


def exchange(address: tuple[str, int], head: bytes, body: bytes = b"") -> bytes:
    """Send `head` (and `body`), then read what the server answers."""
    with socket.create_connection(address, timeout=30) as connection:
        connection.sendall(head + body)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and answer.startswith(b"HTTP/1.1 413"):
                break
        return answer


def post_head(
    path: str,
    *,
    length: int | None = None,
    chunked: bool = False,
    session: str | None = None,
    content_type: str = "application/x-www-form-urlencoded",
) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines.append(f"Content-Type: {content_type}")
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    if session is not None:
        # Django takes the CSRF cookie's secret itself as the token.
        lines.append(f"Cookie: csrftoken={CSRF}; sessionid={session}")
        lines.append(f"X-CSRFToken: {CSRF}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_huge_declared_body_to_the_login_page_is_refused_before_it_is_sent(server) -> None:
    answer = exchange(server, post_head("/accounts/login/", length=1000 * 2**20))
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"accepts at most 64 KiB" in answer


def test_a_chunked_body_is_cut_at_the_limit(server) -> None:
    piece = b"x" * 32 * 1024
    chunks = b"".join(b"%X\r\n%s\r\n" % (len(piece), piece) for _ in range(4))
    answer = exchange(server, post_head("/accounts/login/", chunked=True), chunks)
    assert answer.startswith(b"HTTP/1.1 413")


def test_an_import_over_its_limit_is_refused_before_it_is_sent(server) -> None:
    answer = exchange(server, post_head("/projects/import/", length=200 * 2**20))
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"accepts at most 20.1 MiB" in answer


def test_a_body_within_the_limit_reaches_the_application(server) -> None:
    body = b"username=ada&password=x"
    answer = exchange(server, post_head("/accounts/login/", length=len(body)), body)
    # Django answers (here: the CSRF check), not the server's bound.
    assert answer.startswith(b"HTTP/1.1 403")


def test_each_route_has_the_limit_of_what_it_takes() -> None:
    assert body_limit(b"/accounts/login/?next=/") == settings.BUILTIT_MAX_FORM_BYTES
    assert body_limit(b"/projects/import/") > settings.BUILTIT_MAX_IMPORT_BYTES
    save = b"/projects/0b4e8f1c-0000-4000-8000-000000000000/files/save/"
    assert body_limit(save) == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert body_limit(b"/admin/projects/projectfile/1/change/") == (
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    )


# --- Strangers get the form limit everywhere -------------------

# Each route that takes more than a form, with a declared body within its own
# limit but past the form limit: the server used to wait for all of it.
LARGE_ROUTES = {
    "import": ("/projects/import/", 20 * MB),
    "binary upload": (f"/projects/{PROJECT}/files/upload/", 8 * MB),
    "chat picture": (f"/projects/{PROJECT}/chat-images/", 4 * MB),
    "file save": (f"/projects/{PROJECT}/files/save/", 1 * MB),
    "admin": ("/admin/projects/projectfile/1/change/", 1 * MB),
}


@pytest.mark.parametrize(("path", "size"), LARGE_ROUTES.values(), ids=LARGE_ROUTES.keys())
def test_a_stranger_is_held_to_the_form_limit_before_the_body_is_sent(
    server, path: str, size: int
) -> None:
    answer = exchange(server, post_head(path, length=size, content_type=MULTIPART))
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"Without a signed-in session this address accepts at most 64 KiB" in answer


@pytest.mark.parametrize("serving", ["server", "runserver"])
def test_a_made_up_session_cookie_is_held_to_the_form_limit(
    serving: str, request: pytest.FixtureRequest
) -> None:
    server = request.getfixturevalue(serving)
    made_up = "abcdefghijklmnopqrstuvwxyz012345"
    head = post_head("/projects/import/", length=20 * MB, session=made_up, content_type=MULTIPART)
    answer = exchange(server, head)
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"Sign in, then send it again" in answer


def test_a_session_made_before_a_password_change_is_held_to_the_form_limit(
    server, transactional_db, user: User
) -> None:
    session = signed_in(user)
    user.set_password("a brand new secret phrase")
    user.save()
    head = post_head("/projects/import/", length=20 * MB, session=session, content_type=MULTIPART)
    assert exchange(server, head).startswith(b"HTTP/1.1 413")


def test_a_strangers_chunked_body_is_cut_at_the_form_limit(server) -> None:
    piece = b"x" * 32 * 1024
    chunks = b"".join(b"%X\r\n%s\r\n" % (len(piece), piece) for _ in range(4))
    head = post_head("/projects/import/", chunked=True, content_type=MULTIPART)
    answer = exchange(server, head, chunks)
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"Sign in" in answer


@pytest.mark.parametrize("serving", ["server", "runserver"])
def test_a_signed_in_person_imports_a_zip_past_the_form_limit(
    serving: str, request: pytest.FixtureRequest, transactional_db, user: User
) -> None:
    server = request.getfixturevalue(serving)
    page = "<h1>Big</h1>" + "x" * 300_000  # on disk at the server, read a piece at a time
    body = multipart("archive", "site.zip", zip_of({"index.html": page}))
    assert len(body) > settings.BUILTIT_MAX_FORM_BYTES
    head = post_head(
        "/projects/import/", length=len(body), session=signed_in(user), content_type=MULTIPART
    )
    answer = exchange(server, head, body)
    assert answer.startswith(b"HTTP/1.1 302"), answer[:300]
    project = Project.objects.get(owner=user)
    assert f"Location: /projects/{project.pk}/".encode() in answer
    assert ProjectFile.objects.get(project=project, path="/index.html").content == page


def test_a_signed_in_persons_chunked_body_reaches_the_application(
    server, transactional_db, user: User
) -> None:
    """No length: the session is checked before the body is read, and the body,
    all in by then, is handed over once the check is done. (Django reads no form
    from a body without a length, so the import asks for a file: its answer.)"""
    body = multipart("archive", "site.zip", zip_of({"index.html": "<h1>Small</h1>"}))
    chunked = b"%X\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    head = post_head(
        "/projects/import/", chunked=True, session=signed_in(user), content_type=MULTIPART
    )
    answer = exchange(server, head, chunked)
    assert answer.startswith(b"HTTP/1.1 302"), answer[:300]
    assert b"\r\nLocation: /\r\n" in answer  # the dashboard, with "Choose a ZIP file"


def test_a_client_that_waits_for_100_continue_is_told_to_send_once_signed_in(
    server, transactional_db, user: User
) -> None:
    body = multipart("archive", "site.zip", zip_of({"index.html": "x" * 100_000}))
    head = post_head(
        "/projects/import/", length=len(body), session=signed_in(user), content_type=MULTIPART
    )
    with socket.create_connection(server, timeout=30) as connection:
        connection.sendall(head.replace(b"\r\n\r\n", b"\r\nExpect: 100-continue\r\n\r\n"))
        assert connection.recv(65536) == b"HTTP/1.1 100 Continue\r\n\r\n"
        connection.sendall(body)
        assert read_to_end(connection).startswith(b"HTTP/1.1 302")


def test_a_stranger_that_waits_for_100_continue_is_refused_instead(server) -> None:
    head = post_head("/projects/import/", length=20 * MB, content_type=MULTIPART)
    with socket.create_connection(server, timeout=30) as connection:
        connection.sendall(head.replace(b"\r\n\r\n", b"\r\nExpect: 100-continue\r\n\r\n"))
        answer = read_to_end(connection)
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"100 Continue" not in answer


def test_a_signed_in_person_is_still_held_to_the_routes_limit(
    server, transactional_db, user: User
) -> None:
    head = post_head(
        "/projects/import/", length=200 * MB, session=signed_in(user), content_type=MULTIPART
    )
    answer = exchange(server, head)
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"accepts at most 20.1 MiB" in answer


def test_a_session_that_cannot_be_checked_is_answered_503_before_the_body(
    server_without_database,
) -> None:
    made_up = "abcdefghijklmnopqrstuvwxyz012345"
    head = post_head("/projects/import/", length=20 * MB, session=made_up, content_type=MULTIPART)
    answer = exchange(server_without_database, head)
    assert answer.startswith(b"HTTP/1.1 503")
    assert b"could not check your sign-in" in answer
    # A stranger needs no database to be refused.
    stranger = post_head("/projects/import/", length=20 * MB, content_type=MULTIPART)
    assert exchange(server_without_database, stranger).startswith(b"HTTP/1.1 413")


def multipart(field: str, filename: str, data: bytes) -> bytes:
    return (
        b"--built-it-test\r\n"
        + f'Content-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'.encode()
        + b"Content-Type: application/zip\r\n\r\n"
        + data
        + b"\r\n--built-it-test--\r\n"
    )


def zip_of(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def signed_in(user: User) -> str:
    """A real session for `user`, in the database the server reads."""
    client = Client()
    client.force_login(user)
    return str(client.cookies[settings.SESSION_COOKIE_NAME].value)


# --- A body that stalls is ended ------------------------------


def test_a_body_that_trickles_is_answered_408_and_closed(pace_server) -> None:
    """One byte every TRICKLE seconds: Twisted's idle timeout (60 s) never fired."""
    with socket.create_connection(pace_server, timeout=TRICKLE) as connection:
        connection.sendall(post_head("/accounts/login/", length=1000) + b"u")
        answer = b""
        for _ in range(6):
            try:
                answer = connection.recv(65536)
                break
            except TimeoutError:
                connection.sendall(b"u")
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"Nothing was saved" in answer + read_to_end(connection)


def test_a_head_that_trickles_is_answered_408_and_closed(pace_server) -> None:
    with socket.create_connection(pace_server, timeout=TRICKLE) as connection:
        connection.sendall(b"GET /accounts/login/ HTTP/1.1\r\n")
        answer = b""
        for count in range(6):
            try:
                answer = connection.recv(65536)
                break
            except TimeoutError:
                connection.sendall(f"X-Slow-{count}: 1\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 408"), answer
        read_to_end(connection)


def test_a_slow_body_that_keeps_moving_is_not_cut(pace_server) -> None:
    """Several windows long, well above the minimum rate: it reaches Django."""
    with socket.create_connection(pace_server, timeout=30) as connection:
        connection.sendall(post_head("/accounts/login/", length=40 * 1000))
        for _ in range(40):
            connection.sendall(b"a" * 1000)
            threading.Event().wait(0.2)
        answer = read_to_end(connection)
    assert answer.startswith(b"HTTP/1.1 403")  # Django's CSRF check: the body arrived


def read_to_end(connection: socket.socket) -> bytes:
    """What the server still sends, until it closes the connection."""
    connection.settimeout(30)
    answer = b""
    while chunk := connection.recv(65536):
        answer += chunk
    return answer
