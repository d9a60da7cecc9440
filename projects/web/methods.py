"""The sites origin's one method rule: its pages are read, never posted to. A
GET or HEAD is served; any other method gets 405, with the headers of the host
that answers (`headed`), as every other answer of that host has them."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Concatenate, ParamSpec

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed

SAFE_METHODS = ("GET", "HEAD")

Headed = Callable[[HttpResponse], HttpResponse]
_P = ParamSpec("_P")
_View = Callable[Concatenate[HttpRequest, _P], HttpResponse]


def method_refused(request: HttpRequest, headed: Headed) -> HttpResponse | None:
    """The 405 for a request that is not a GET or HEAD, else None."""
    if request.method in SAFE_METHODS:
        return None
    return headed(HttpResponseNotAllowed(SAFE_METHODS))


def safe_only(headed: Headed) -> Callable[[_View[_P]], _View[_P]]:
    """A view that answers only a GET or HEAD (`method_refused`), as Django's
    `require_safe` but with its host's headers on the 405."""

    def decorator(view: _View[_P]) -> _View[_P]:
        @wraps(view)
        def checked(request: HttpRequest, /, *args: _P.args, **kwargs: _P.kwargs) -> HttpResponse:
            return method_refused(request, headed) or view(request, *args, **kwargs)

        return checked

    return decorator
