"""A site's own host answered in front of Django's handler: its pages (GET,
HEAD) and its forms (a POST to `/_forms/<form>`).

Django's ASGI handler gives every request a thread of its own for synchronous
code (started, then joined, each time) and sends its signals there; a form
waited in it for its commit. Here the request is read as Django reads it (an
ASGIRequest), the host told apart in the event loop from its name, and what
needs the database (which site, which version, its files: read once per
change) done in a pool thread (common.threads). A form's row goes to the
process's writer (projects.publish.forms.writer), which keeps every row queued
meanwhile in one commit; the visitor is answered when that commit is done.

The same code answers as builtit.sites_origin would (own_host_answer,
projects.views.site_forms); anything else (the app, the sites host, a site's
password form, a request builtit.storable_requests or SECURE_SSL_REDIRECT
would refuse or redirect, a form to a site that is offline or kept by a
password) goes on to Django as before, with its body as it came."""

from __future__ import annotations

import logging
from io import BytesIO
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse, HttpResponseBase
from django.utils.log import log_response

from builtit.sites_origin import own_host_answer
from builtit.storable_requests import query_and_headers_storable
from common import threads
from common.text import storable
from projects.views.published import own_headed
from projects.views.site_forms import OWN_FORM, OwnForm, own_form_check, own_form_keep
from projects.web.plain import plain_page
from projects.web.sites import SiteHost, host_place, request_place

logger = logging.getLogger("django.request")

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Any  # ASGI's callables: daphne's are untyped
Send = Any
PAGE = ""  # what _asked says of a GET or HEAD; else the form's name
_FAILED = plain_page("Something went wrong", "This address could not be answered just now.")


class OwnHostsFirst:
    """ASGI middleware for HTTP, in front of Django's handler."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        asked = _asked(scope)
        if asked is None:
            await self.app(scope, receive, send)
            return
        body = b"" if asked == PAGE else await _body(receive)
        if body is None:
            return  # the visitor went away before sending it all
        request = ASGIRequest(scope, BytesIO(body))
        answer = await _answer(request, asked) if _maybe_own(request) else None
        if answer is None:
            await self.app(scope, receive if asked == PAGE else _Replayed(body, receive), send)
            return
        await _send(request, answer, send)


def _asked(scope: Scope) -> str | None:
    """PAGE for a GET or HEAD; the form's name for a POST to `/_forms/<form>`
    whose body is within BUILTIT_FORMS_MAX_BYTES by its Content-Length (Django
    answers one past it); None for anything else."""
    if scope["type"] != "http":
        return None
    method = scope.get("method")
    if method in {"GET", "HEAD"}:
        return PAGE
    if method != "POST":
        return None
    found = OWN_FORM.fullmatch(scope.get("path", ""))
    if found is None or found["sent"]:
        return None
    length = next((value for name, value in scope["headers"] if name == b"content-length"), b"")
    if not length.isdigit() or int(length) > settings.BUILTIT_FORMS_MAX_BYTES:
        return None
    return str(found["form"])


def _maybe_own(request: ASGIRequest) -> bool:
    """A site's own host by its name (or a domain a site may have proven),
    and nothing the first middleware would refuse or redirect."""
    place = host_place(request)
    if not isinstance(place, SiteHost) and place != "a domain":
        return False
    if settings.SECURE_SSL_REDIRECT and not request.is_secure():
        return False
    return storable(request.path_info) and query_and_headers_storable(request)


async def _answer(request: ASGIRequest, asked: str) -> HttpResponseBase | None:
    try:
        if asked == PAGE:
            return await threads.run(_page, request)
        checked = await threads.run(own_form_check, request, asked)
        if not isinstance(checked, OwnForm):
            return checked if checked is None else own_headed(checked)
        return own_headed(await own_form_keep(request, checked))
    except Exception:
        # As Django's handler would: a traceback in the log, a plain 500 to the visitor.
        logger.exception("Internal Server Error: %s", request.path)
        failed = HttpResponse(_FAILED, status=500, content_type="text/html; charset=utf-8")
        return own_headed(failed)


def _page(request: ASGIRequest) -> HttpResponseBase | None:
    place = request_place(request)
    return own_host_answer(request, place) if isinstance(place, SiteHost) else None


async def _body(receive: Receive) -> bytes | None:
    """The whole body (bounded: its Content-Length was), or None on a disconnect."""
    pieces: list[bytes] = []
    while True:
        message: Message = await receive()
        if message["type"] == "http.disconnect":
            return None
        pieces.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(pieces)


class _Replayed:
    """The body read here, given to Django as if it came now; then daphne's messages."""

    def __init__(self, body: bytes, receive: Receive) -> None:
        self._body: bytes | None = body
        self._receive = receive

    async def __call__(self) -> Message:
        if self._body is None:
            message: Message = await self._receive()
            return message
        body, self._body = self._body, None
        return {"type": "http.request", "body": body, "more_body": False}


async def _send(request: ASGIRequest, response: HttpResponseBase, send: Send) -> None:
    """As Django's handler sends an answer that is not streamed."""
    assert isinstance(response, HttpResponse)  # what the sites' views answer
    if response.status_code >= 400:
        log_response(response.reason_phrase, request=request, response=response)
    response["Content-Length"] = str(len(response.content))
    headers = [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in response.items()
    ]
    for cookie in response.cookies.values():
        headers.append((b"Set-Cookie", cookie.output(header="").encode("ascii").strip()))
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})
