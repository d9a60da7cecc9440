"""Text no database can store never reaches one from a request's address,
query or headers.

PostgreSQL refuses NUL in text, where SQLite stores it: a `%00` in a path part
or a query parameter that a view looked up (a preview's token, the domain a
proxy asks about), or in a header a library writes down (django-axes keeps a
failed sign-in's User-Agent), was a 500 with a traceback there. One rule,
common.text.storable, for every request, in front of every view and of the
sites origin's middleware, answered in the words of the host it came to (the
app's pages, or the sites origin's plain ones), which Django logs in one line
("Not Found: /a\\x00b"): such a path is 404 (nothing is ever found at it), a
query or a header 400 (HTTP allows no NUL in a header at all).

A cookie holding such text (`"\\000…"` is NUL once unquoted) is dropped, as if
it had not been sent, rather than refused: over HTTP a page on a sibling host
can set a cookie for the whole domain, and a 400 for every page would lock its
visitor out of the app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal
from urllib.parse import unquote_plus

from django.http import HttpRequest, HttpResponseBase

from builtit import errors
from common.text import storable, storable_cookies
from projects.views import preview
from projects.web.sites import request_place


class StorableRequestMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not storable(request.path_info):
            return _refused(request, 404)
        if not query_and_headers_storable(request):
            return _refused(request, 400)
        request.COOKIES = storable_cookies(request.COOKIES)
        return self.get_response(request)


def query_and_headers_storable(request: HttpRequest) -> bool:
    """Whether the request's query parameters and headers hold only text a
    database can store."""
    # Decoded as QueryDict decodes it, without parsing it into fields: a view
    # that never reads the query must not be refused for its number of fields.
    query = str(request.META.get("QUERY_STRING", ""))
    if not storable(unquote_plus(query, errors="replace")):
        return False
    return all(
        storable(str(value)) for name, value in request.META.items() if name.startswith("HTTP_")
    )


def _refused(request: HttpRequest, status: Literal[400, 404]) -> HttpResponseBase:
    app = request_place(request) is None
    if status == 404:
        return errors.not_found(request) if app else preview.not_found(request)
    return errors.bad_request(request) if app else preview.bad_request(request)
