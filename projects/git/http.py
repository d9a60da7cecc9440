"""`/git/<project id>.git/…`: the project over Git's smart HTTP, on the app's
origin (it serves the repository, never the site).

Signing in is HTTP Basic with one of the person's access tokens as the
password, as GitHub does; the name is free, and a password never opens it.
The project opens by the person's role in it (projects.access): anyone it is
shared with may clone and pull, an editor and the owner may also push.
Tokens are chat's (chat.access_tokens), which projects may not import: the
wiring hands `git_view` the function that knows them (builtit/urls.py), so
this module stays the one place that speaks the protocol, and chat the one
that knows tokens and the sign-in lockout. Git sends no CSRF token: the
endpoint is exempt, and a browser's cookies open nothing here.

Answers Git shows the person are plain text (Git prints them as `remote:`
lines); the protocol's own answers are pkt-lines (projects.git.protocol).
"""

from __future__ import annotations

import gzip
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, cast

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from dulwich.errors import GitProtocolError

from common.basic_auth import basic_credentials
from projects.access import project_access, refusal
from projects.git.protocol import (
    RECEIVE,
    SERVICES,
    UPLOAD,
    advertisement,
    exchange,
    served,
    upload_handler,
)
from projects.git.receive import receive_handler
from projects.git.repository import repository_open
from projects.models import Project

logger = logging.getLogger(__name__)

REALM = 'Basic realm="Built-It Git", charset="UTF-8"'
# Bytes of a gzip-encoded request body read at most, once inflated: a fetch's
# "have" lines are a few KB; a push's pack comes as is.
_MAX_INFLATED_REQUEST = 8 * 1024 * 1024


@dataclass(frozen=True)
class GitCaller:
    user: User
    can_write: bool


@dataclass(frozen=True)
class GitRefused:
    message: str
    status: int = 403


# (request, the Basic name, the Basic password) -> who, a refusal, or None: no such token.
Authenticate = Callable[[HttpRequest, str, str], GitCaller | GitRefused | None]


def git_view(*, authenticate: Authenticate) -> Callable[..., HttpResponse]:
    @csrf_exempt
    @login_not_required
    def view(request: HttpRequest, project_id: uuid.UUID, action: str) -> HttpResponse:
        service = _service(request, action)
        if isinstance(service, HttpResponse):
            return service
        caller = _caller(request, authenticate)
        if isinstance(caller, HttpResponse):
            return caller
        if service == RECEIVE and not caller.can_write:
            return _said(
                403,
                "This access token may only read (clone and pull). To push, make a token "
                "that may also write, on the Settings page.",
            )
        # The person's role now, not when the token was made: a token follows it.
        found = project_access(caller.user, project_id)
        if found is None:
            return _said(404, "There is no project at this address that your token opens.")
        if service == RECEIVE and not found.allows("edit"):
            return _said(403, f"{refusal('edit', found.role)} You can clone and pull this project.")
        project = found.project
        return _served(request, project, caller.user, service, advertise=action == "info/refs")

    return view


@login_not_required
def git_address_page(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """The address itself, opened in a browser: what it is for."""
    address = request.build_absolute_uri()
    return _said(
        200,
        f"This is the Git address of a Built-It project. Clone it with:\n\n"
        f"    git clone {address}\n\n"
        "and sign in with any name and one of your access tokens as the password "
        "(Settings, Access tokens).",
    )


def _service(request: HttpRequest, action: str) -> str | HttpResponse:
    if action == "info/refs" and request.method in ("GET", "HEAD"):
        service = request.GET.get("service", "")
        if service not in SERVICES:
            return _said(403, "Built-It speaks Git's smart HTTP protocol: use Git 1.6.6 or later.")
        return service
    if action in SERVICES and request.method == "POST":
        if request.content_type != f"application/x-{action}-request":
            return _said(415, "That is not a request Git sends.")
        return action
    return _said(404, "Not a Git address.")


def _caller(request: HttpRequest, authenticate: Authenticate) -> GitCaller | HttpResponse:
    credentials = basic_credentials(request.headers.get("Authorization", ""))
    if credentials is None:
        response = _said(
            401, "Sign in with one of your access tokens as the password (Settings, Access tokens)."
        )
        response["WWW-Authenticate"] = REALM
        return response
    found = authenticate(request, *credentials)
    if isinstance(found, GitRefused):
        return _said(found.status, found.message)
    if found is None:
        response = _said(401, "That is not one of your access tokens.")
        response["WWW-Authenticate"] = REALM
        return response
    return found


def _served(
    request: HttpRequest, project: Project, user: User, service: str, *, advertise: bool
) -> HttpResponse:
    opened = repository_open(project)
    repo = served(opened)
    handler = upload_handler if service == UPLOAD else receive_handler(project, user, opened)
    if advertise:
        body = advertisement(repo, service, handler)
        return _protocol(body, f"application/x-{service}-advertisement")
    try:
        body = exchange(repo, _body(request).read, handler)
    except (GitProtocolError, EOFError, OSError) as error:
        logger.info("A Git %s request could not be read: %s", service, error)
        return _said(400, "That request could not be read as Git's.")
    return _protocol(body, f"application/x-{service}-result")


def _body(request: HttpRequest) -> _Bounded:
    if request.headers.get("Content-Encoding", "").lower() == "gzip":
        return _Bounded(gzip.GzipFile(fileobj=cast(IO[bytes], request)), _MAX_INFLATED_REQUEST)
    return _Bounded(request, int(settings.BUILTIT_MAX_IMPORT_BYTES) + 1024 * 1024)


class _Bounded:
    """A body read up to `limit` bytes; past it the request ends (EOFError)."""

    def __init__(self, stream: IO[bytes] | gzip.GzipFile | HttpRequest, limit: int) -> None:
        self._stream, self._left = stream, limit

    def read(self, size: int = -1) -> bytes:
        if self._left <= 0:
            raise EOFError("The request is larger than Built-It reads.")
        wanted = self._left if size < 0 else min(size, self._left)
        data = self._stream.read(wanted)
        self._left -= len(data)
        return data


def _protocol(body: bytes, content_type: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Cache-Control"] = "no-cache, max-age=0, must-revalidate"
    return response


def _said(status: int, message: str) -> HttpResponse:
    response = HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response
