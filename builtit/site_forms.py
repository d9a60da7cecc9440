"""A form posted to a live, public site's own host (`/_forms/<form>`) is
answered in the event loop, in front of Django's handler: that handler runs
the site's middleware and views on its one thread for synchronous code, and a
form that waited there for its commit held every page and form behind it
(about fifty a second, whatever the cores: bench/forms.py).

Here the request is read as Django reads it (an ASGIRequest), its site and
bounds looked up in a pool thread (common.threads: the site is read from the
database once per change), and its row handed to the process's writer
(projects.publish.forms.writer), which keeps every row queued meanwhile in one
commit; the answer goes when that commit is done. Anything else, and a form
to a site that is offline, kept by a password, or that builtit.sites_origin
would refuse or redirect, goes on to Django as before, its body untouched."""

from __future__ import annotations

import logging
from io import BytesIO
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse
from django.utils.log import log_response

from builtit.storable_requests import query_and_headers_storable
from common import threads
from common.text import storable
from projects.views.published import own_headed
from projects.views.site_forms import OWN_FORM, OwnForm, own_form_check, own_form_keep
from projects.web.plain import plain_page

logger = logging.getLogger("django.request")

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Any  # ASGI's callables: daphne's are untyped
Send = Any
_FAILED = plain_page("Something went wrong", "The form could not be received. Nothing was kept.")


class SiteFormsFirst:
    """ASGI middleware for HTTP, in front of Django's handler."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        form = _form_posted(scope)
        if form is None:
            await self.app(scope, receive, send)
            return
        body = await _body(receive)
        if body is None:
            return  # the visitor went away before sending it all
        request = ASGIRequest(scope, BytesIO(body))
        answer = await _answer(request, form)
        if answer is None:
            await self.app(scope, _Replayed(body, receive), send)
            return
        await _send(request, answer, send)


def _form_posted(scope: Scope) -> str | None:
    """The form's name, for a POST to `/_forms/<form>` whose body is within
    BUILTIT_FORMS_MAX_BYTES by its Content-Length (else Django answers it)."""
    if scope["type"] != "http" or scope.get("method") != "POST":
        return None
    found = OWN_FORM.fullmatch(scope.get("path", ""))
    if found is None or found["sent"]:
        return None
    length = next((value for name, value in scope["headers"] if name == b"content-length"), b"")
    if not length.isdigit() or int(length) > settings.BUILTIT_FORMS_MAX_BYTES:
        return None
    return found["form"]


async def _answer(request: ASGIRequest, form: str) -> HttpResponse | None:
    if not storable(request.path_info) or not query_and_headers_storable(request):
        return None
    if settings.SECURE_SSL_REDIRECT and not request.is_secure():
        return None
    try:
        checked = await threads.run(own_form_check, request, form)
        if not isinstance(checked, OwnForm):
            return checked if checked is None else own_headed(checked)
        return own_headed(await own_form_keep(request, checked))
    except Exception:
        # As Django's handler would: a traceback in the log, a plain 500 to the visitor.
        logger.exception("Internal Server Error: %s", request.path)
        return own_headed(HttpResponse(_FAILED, status=500, content_type="text/html; charset=utf-8"))


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


async def _send(request: ASGIRequest, response: HttpResponse, send: Send) -> None:
    if response.status_code >= 400:
        log_response(response.reason_phrase, request=request, response=response)
    response["Content-Length"] = str(len(response.content))
    headers = [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in response.items()
    ]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})
